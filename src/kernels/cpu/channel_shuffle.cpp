// ChannelShuffle in the layout its input comes in: nchw as one copy per channel plane; channels-
// last and blocked (nChw16c, nChw8c) as, for every pixel, each output channel read from its
// source channel through a table made at prepare. The convolutions around a ShuffleNet shuffle
// write and read nhwc or blocked data, so the shuffle costs one pass instead of the two layout
// conversions and the transpose its three exported ops needed.
#include "ops/channel_shuffle.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

bool channel_shuffle_serves(const ir::Node& node) {
  return node.domain == "strata" && node.op_type == "ChannelShuffle";
}

Verdict channel_shuffle_supports(const NodeRequest& r) {
  if (!ops::channel_shuffle_group(r.op)) return Verdict::no("not a ChannelShuffle op");
  const size_t element = dtype_size(r.input(0).dtype);
  if (element != 1 && element != 2 && element != 4 && element != 8)
    return Verdict::no("elements of " + std::to_string(element) + " bytes");
  return Verdict::yes("channels permuted in the layout the data comes in");
}

// Values per thread below which a second thread costs about what it saves (as silu_in_place).
constexpr int64_t kValuesPerThread = 1 << 19;

class ChannelShuffleKernel final : public Kernel {
 public:
  explicit ChannelShuffleKernel(const NodeRequest& r) {
    name_ = "strata:channel_shuffle";
    const std::vector<int64_t> shape = r.input(0).shape.values();
    const int64_t rank = int64_t(shape.size()), channels = shape[1],
                  group = *ops::channel_shuffle_group(r.op);
    layout_ = r.output_needs_plain[0] || !layout_fits(r.input_layouts[0], rank)
                  ? Layout::kPlain
                  : r.input_layouts[0];
    batch_ = shape[0];
    for (int64_t d = 2; d < rank; ++d) pixels_ *= shape[size_t(d)];
    element_ = dtype_size(r.input(0).dtype);
    // Channels as laid out: padded to whole blocks; padding channels (zeros) copy themselves.
    const int64_t block = channel_block(layout_);
    padded_ = (channels + block - 1) / block * block;
    source_.resize(size_t(padded_));
    for (int64_t c = 0; c < padded_; ++c) {
      const int64_t from = c < channels ? ops::shuffled_channel_source(c, channels, group) : c;
      // Where channel `from` of the pixel at offset 0 lies, in elements.
      source_[size_t(c)] = layout_ == Layout::kChannelsLast ? from
                           : block > 1 ? from / block * pixels_ * block + from % block
                                       : from * pixels_;
    }
    const int64_t values = batch_ * padded_ * pixels_;
    threads_ = int(std::clamp<int64_t>(values / kValuesPerThread, 1, std::max(1, r.threads)));
    input_layouts_.assign(r.inputs.size(), layout_);
    output_layouts_ = {layout_};
  }

  void run(const KernelArgs& args) override {
    const auto* in = static_cast<const std::byte*>(args.inputs[0]->raw());
    auto* out = static_cast<std::byte*>(args.outputs[0]->raw());
    switch (element_) {
      case 1: shuffle<uint8_t>(in, out); break;
      case 2: shuffle<uint16_t>(in, out); break;
      case 4: shuffle<uint32_t>(in, out); break;
      default: shuffle<uint64_t>(in, out); break;
    }
  }

 private:
  template <class T>
  void shuffle(const std::byte* in_bytes, std::byte* out_bytes) const {
    const T* in = reinterpret_cast<const T*>(in_bytes);
    T* out = reinterpret_cast<T*>(out_bytes);
    const int64_t image = padded_ * pixels_, block = channel_block(layout_);
    if (layout_ == Layout::kPlain) {  // a plane per channel
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
      for (int64_t plane = 0; plane < batch_ * padded_; ++plane)
        std::memcpy(out + plane * pixels_,
                    in + plane / padded_ * image + source_[size_t(plane % padded_)],
                    size_t(pixels_) * sizeof(T));
      return;
    }
    // Channels-last: one row of `padded_` channels per pixel; blocked: a row of `block` channels
    // per pixel and block. Either way each output row reads its channels through the table.
    const int64_t row = layout_ == Layout::kChannelsLast ? padded_ : block;
    const int64_t rows_per_image = image / row;
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
    for (int64_t r = 0; r < batch_ * rows_per_image; ++r) {
      const int64_t n = r / rows_per_image, within = r % rows_per_image;
      // Blocked rows run block by block, pixel by pixel; channels-last rows pixel by pixel.
      const int64_t first_channel = layout_ == Layout::kChannelsLast ? 0 : within / pixels_ * block;
      const int64_t pixel = layout_ == Layout::kChannelsLast ? within : within % pixels_;
      const T* from = in + n * image + pixel * row;
      const int64_t* source = source_.data() + first_channel;
      T* to = out + n * image + within * row;
      for (int64_t c = 0; c < row; ++c) to[c] = from[source[c]];
    }
  }

  Layout layout_ = Layout::kPlain;
  int64_t batch_ = 1, pixels_ = 1, padded_ = 0;
  size_t element_ = 4;
  int threads_ = 1;
  std::vector<int64_t> source_;  // per output channel, its source's offset within an image
};

std::unique_ptr<Kernel> channel_shuffle_prepare(const NodeRequest& r) {
  return std::make_unique<ChannelShuffleKernel>(r);
}

}  // namespace

KernelFamily channel_shuffle_family() {
  return {"cpu_channel_shuffle",    true, &channel_shuffle_serves, &channel_shuffle_supports,
          &channel_shuffle_prepare, false};
}

}  // namespace strata::kernels::cpu
