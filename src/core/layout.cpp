#include "core/layout.h"

#include "core/checked.h"

namespace strata {

int64_t channel_block(Layout layout) {
  switch (layout) {
    case Layout::kBlocked16: return 16;
    case Layout::kBlocked8: return 8;
    case Layout::kPlain:
    case Layout::kChannelsLast: break;
  }
  return 1;
}

std::string layout_name(Layout layout, int64_t rank) {
  // Plain tensors are "nchw" where that reads naturally (images); other ranks hold anything.
  if (layout == Layout::kPlain) return rank == 4 ? "nchw" : "plain";
  if (rank < 3 || rank > 5) return "plain";
  static const char* const kSpatial[] = {"w", "hw", "dhw"};
  const std::string spatial = kSpatial[rank - 3];
  switch (layout) {
    case Layout::kPlain: return "nc" + spatial;
    case Layout::kChannelsLast: return "n" + spatial + "c";
    case Layout::kBlocked16:
    case Layout::kBlocked8: return "nC" + spatial + std::to_string(channel_block(layout)) + "c";
  }
  return "plain";
}

bool layout_fits(Layout layout, int64_t rank) {
  return layout == Layout::kPlain || (rank >= 3 && rank <= 5);
}

bool same_memory_order(const std::vector<int64_t>& shape, Layout a, Layout b) {
  if (a == b) return true;
  if (shape.size() < 3) return false;
  int64_t spatial = 1;
  for (size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
  const int64_t channels = shape[1];
  auto plain_like = [&](Layout l) {
    switch (l) {
      case Layout::kPlain: return true;
      case Layout::kChannelsLast: return spatial == 1 || channels == 1;
      case Layout::kBlocked16:
      case Layout::kBlocked8: return spatial == 1 && channels % channel_block(l) == 0;
    }
    return false;
  };
  return plain_like(a) && plain_like(b);
}

int64_t layout_bytes(DType dtype, const std::vector<int64_t>& shape, Layout layout) {
  std::vector<int64_t> padded = shape;
  const int64_t block = channel_block(layout);
  if (padded.size() >= 2) padded[1] = checked_add(padded[1], block - 1) / block * block;
  return checked_mul(checked_numel(padded), int64_t(dtype_size(dtype)));
}

}  // namespace strata
