// Resize and Upsample in nearest mode (FPN's and YOLO's 2x upsampling) as copies: the op gives,
// per axis, the input index each output coordinate copies (ops/resize.h, so every coordinate
// transformation and rounding mode is the reference's), and the kernel copies along those tables,
// rows of the output split among threads. An output row whose source row is the one before's
// (each row of a 2x upsampling twice) is a copy of the row just written. With the channels not
// resized, it reads and writes the layout the convolutions around it use (a channel block or all
// channels of a pixel move as one element), so FPN's upsampling needs no conversion either side.
// Linear and cubic modes, extrapolated points and run-time scales stay with the reference kernel.
#include <omp.h>

#include <cstring>

#include "kernels/cpu/resize_query.h"
#include "kernels/kernel.h"
#include "ops/resize.h"

namespace strata::kernels::cpu {

namespace {

// Below this many output bytes, one thread does the whole node.
constexpr int64_t kShareBytes = int64_t(1) << 18;

bool resize_nearest_serves(const ir::Node& node) {
  return node.domain.empty() && (node.op_type == "Resize" || node.op_type == "Upsample");
}

// The copy tables of the node, when its scales, sizes and roi are constants and it copies.
std::optional<std::vector<std::vector<int64_t>>> sources_of(const NodeRequest& r) {
  return query_resize(r, ops::resize_copy_sources);
}

bool is_identity(const std::vector<int64_t>& table) {
  for (size_t x = 0; x < table.size(); ++x)
    if (table[x] != int64_t(x)) return false;
  return true;
}

Verdict resize_nearest_supports(const NodeRequest& r) {
  if (!r.has_input(0) || r.node.outputs.size() != 1) return Verdict::no("no input");
  if (r.input(0).dtype == DType::kString) return Verdict::no("string tensors are not bytes");
  if (r.output(0).shape.rank() < 1) return Verdict::no("scalars");
  if (!sources_of(r))
    return Verdict::no(
        "not a copy of input elements (linear or cubic mode, extrapolated points, or scales "
        "known only while running)");
  return Verdict::yes("nearest-neighbour copies along the op's coordinate tables");
}

// The layout input and output share: the input's when the channels are not resized.
Layout shared_layout(const NodeRequest& r, const std::vector<std::vector<int64_t>>& sources) {
  const Layout layout = r.input_layouts[0];
  if (layout == Layout::kPlain || r.output_needs_plain[0] || sources.size() != 4 ||
      !layout_fits(layout, 4) || r.input(0).shape.values()[1] != int64_t(sources[1].size()) ||
      !is_identity(sources[1]))
    return Layout::kPlain;
  return layout;
}

class ResizeNearestKernel final : public Kernel {
 public:
  ResizeNearestKernel(const NodeRequest& r, std::vector<std::vector<int64_t>> sources) {
    name_ = "strata:resize_nearest";
    const Layout layout = shared_layout(r, sources);
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    input_layouts_[0] = layout;
    output_layouts_ = {layout};
    std::vector<int64_t> in_dims = r.input(0).shape.values();
    element_bytes_ = dtype_size(r.input(0).dtype);
    // The axes in the order the bytes are laid out; the channels, not resized, join the element.
    if (layout == Layout::kChannelsLast) {
      element_bytes_ *= size_t(in_dims[1]);
      sources.erase(sources.begin() + 1);
      in_dims.erase(in_dims.begin() + 1);
    } else if (const int64_t block = channel_block(layout); block > 1) {
      element_bytes_ *= size_t(block);
      const int64_t blocks = (in_dims[1] + block - 1) / block;
      sources[1].resize(size_t(blocks));
      for (int64_t b = 0; b < blocks; ++b) sources[1][size_t(b)] = b;
      in_dims[1] = blocks;
    }
    in_strides_.assign(in_dims.size(), 1);
    for (size_t d = in_dims.size() - 1; d-- > 0;)
      in_strides_[d] = in_strides_[d + 1] * in_dims[d + 1];
    sources_ = std::move(sources);
    rows_ = 1;
    for (size_t d = 0; d + 1 < sources_.size(); ++d) rows_ *= int64_t(sources_[d].size());
  }

  void run(const KernelArgs& args) override {
    const auto* src = static_cast<const std::byte*>(args.inputs[0]->raw());
    auto* dst = static_cast<std::byte*>(args.outputs[0]->raw());
    const size_t row_bytes = sources_.back().size() * element_bytes_;
    const bool share = int64_t(row_bytes) * rows_ >= kShareBytes && rows_ > 1;
#pragma omp parallel if (share)
    {
      const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      copy_rows(src, dst, rows_ * t / threads, rows_ * (t + 1) / threads, row_bytes);
    }
  }

 private:
  void copy_rows(const std::byte* src, std::byte* dst, int64_t begin, int64_t end,
                 size_t row_bytes) const {
    const size_t last = sources_.size() - 1;
    int64_t previous = -1;  // the input offset (in elements) of the row written last
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = 0;
      for (int64_t d = int64_t(last), rest = row; d-- > 0;) {
        const int64_t length = int64_t(sources_[size_t(d)].size());
        offset += sources_[size_t(d)][size_t(rest % length)] * in_strides_[size_t(d)];
        rest /= length;
      }
      std::byte* to = dst + size_t(row) * row_bytes;
      if (offset == previous) {
        std::memcpy(to, to - row_bytes, row_bytes);
        continue;
      }
      previous = offset;
      const std::byte* from = src + size_t(offset) * element_bytes_;
      switch (element_bytes_) {
        case 4: gather<uint32_t>(from, to); break;
        case 8: gather<uint64_t>(from, to); break;
        case 2: gather<uint16_t>(from, to); break;
        case 1: gather<uint8_t>(from, to); break;
        default:
          for (size_t x = 0; x < sources_[last].size(); ++x)
            std::memcpy(to + x * element_bytes_, from + size_t(sources_[last][x]) * element_bytes_,
                        element_bytes_);
      }
    }
  }

  template <class T>
  void gather(const std::byte* from, std::byte* to) const {
    const auto* in = reinterpret_cast<const T*>(from);
    auto* out = reinterpret_cast<T*>(to);
    const std::vector<int64_t>& table = sources_.back();
    for (size_t x = 0; x < table.size(); ++x) out[x] = in[table[x]];
  }

  std::vector<std::vector<int64_t>> sources_;  // per laid-out axis: the input index per output one
  std::vector<int64_t> in_strides_;            // of the input's laid-out axes, in elements
  size_t element_bytes_ = 0;                   // what moves as one: a value, block or pixel
  int64_t rows_ = 1;                           // output positions before the last axis
};

std::unique_ptr<Kernel> resize_nearest_prepare(const NodeRequest& r) {
  return std::make_unique<ResizeNearestKernel>(r, *sources_of(r));
}

}  // namespace

KernelFamily resize_nearest_family() {
  return {"cpu_resize_nearest",    true, &resize_nearest_serves, &resize_nearest_supports,
          &resize_nearest_prepare, false};
}

}  // namespace strata::kernels::cpu
