// Concat as contiguous copies: in every layout strata uses, the bytes of a concatenation along an
// axis are, for each position of the axes laid out before it, each input's block one after the
// other. So a concat is `outer` rounds of one memcpy per input, whatever the dtype. Inputs and
// output share the layout convolution outputs come in (blocked or channels-last: SqueezeNet's,
// GoogLeNet's and DenseNet's channel concatenations), except where a blocked layout would split a
// block between inputs (channel counts not a multiple of 16): then plain. oneDNN 2.6's concat
// primitive copied blocked tensors at 5 GB/s, 30x slower than this. With nothing laid out before
// the axis (batch 1), each input is one contiguous part of the output: the session then places the
// inputs there (Kernel::input_parts), their producers write the concatenation, and no byte is
// copied (DenseNet's growing concatenations become views of its block's last one).
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/kernel.h"
#include "ops/op.h"

namespace strata::kernels::cpu {

namespace {

bool concat_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Concat";
}

int64_t concat_axis(const NodeRequest& r) {
  const int64_t rank = r.output(0).shape.rank();
  const int64_t axis = ops::NodeInfo(r.graph, r.node, r.graph.opset).attr_int("axis", 1);
  return axis < 0 ? axis + rank : axis;
}

Verdict concat_supports(const NodeRequest& r) {
  if (r.node.inputs.empty() || r.node.outputs.size() != 1) return Verdict::no("no inputs");
  for (size_t i = 0; i < r.node.inputs.size(); ++i) {
    if (!r.has_input(i)) return Verdict::no("an input is omitted");
    if (r.input(i).dtype == DType::kString) return Verdict::no("string tensors are not bytes");
  }
  if (r.output(0).shape.rank() < 1) return Verdict::no("scalars");
  return Verdict::yes("contiguous copies");
}

// The layout all inputs and the output share: the first non-plain one among the inputs (DenseNet
// concatenates its plain input with blocked convolution outputs), when every input fits it.
Layout shared_layout(const NodeRequest& r, int64_t axis) {
  if (r.output_needs_plain[0]) return Layout::kPlain;
  Layout layout = Layout::kPlain;
  for (Layout l : r.input_layouts)
    if (layout == Layout::kPlain) layout = l;
  if (!layout_fits(layout, r.output(0).shape.rank())) return Layout::kPlain;
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (axis == 1 && r.input(i).shape.values()[1] % channel_block(layout))
      return Layout::kPlain;  // a block would hold channels of two inputs
  return layout;
}

// The dims in the order the bytes are laid out, and where logical `axis` falls among them.
std::pair<std::vector<int64_t>, size_t> physical(std::vector<int64_t> shape, Layout layout,
                                                 int64_t axis) {
  if (layout == Layout::kPlain) return {shape, size_t(axis)};
  const int64_t channels = shape[1];
  shape.erase(shape.begin() + 1);
  if (layout == Layout::kChannelsLast) {
    shape.push_back(channels);
    return {shape, axis == 1 ? shape.size() - 1 : size_t(axis == 0 ? 0 : axis - 1)};
  }
  const int64_t block = channel_block(layout);
  shape.insert(shape.begin() + 1, (channels + block - 1) / block);
  shape.push_back(block);
  return {shape, size_t(axis)};
}

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t d = from; d < to; ++d) p *= dims[d];
  return p;
}

class ConcatKernel final : public Kernel {
 public:
  explicit ConcatKernel(const NodeRequest& r) {
    name_ = "strata:concat";
    const int64_t axis = concat_axis(r);
    const Layout layout = shared_layout(r, axis);
    const size_t element = dtype_size(r.output(0).dtype);
    for (size_t i = 0; i < r.inputs.size(); ++i) {
      const auto [dims, p] = physical(r.input(i).shape.values(), layout, axis);
      outer_ = product(dims, 0, p);
      chunk_bytes_.push_back(size_t(product(dims, p, dims.size())) * element);
      row_bytes_ += chunk_bytes_.back();
    }
    input_layouts_.assign(r.inputs.size(), layout);
    output_layouts_ = {layout};
    if (outer_ == 1) {
      int64_t offset = 0;
      for (size_t bytes : chunk_bytes_) {
        input_parts_.push_back(offset);
        offset += int64_t(bytes);
      }
    }
  }

  void run(const KernelArgs& args) override {
    auto* dst = static_cast<std::byte*>(args.outputs[0]->raw());
    if (all_in_place(args, dst)) return;
    const size_t total = row_bytes_ * size_t(outer_);
    // Large copies are shared among the session's threads as equal byte ranges of the output
    // (a Loop's growing stack is one large input beside a small one); small ones are not worth a
    // wake-up.
    if (total < kShareBytes) return copy_range(args, dst, 0, total);
#pragma omp parallel
    {
      const size_t threads = size_t(omp_get_num_threads()), t = size_t(omp_get_thread_num());
      copy_range(args, dst, total * t / threads, total * (t + 1) / threads);
    }
  }

 private:
  // True when the session placed every input where the output holds it: nothing to copy.
  bool all_in_place(const KernelArgs& args, const std::byte* dst) const {
    if (input_parts_.empty()) return false;
    for (size_t i = 0; i < input_parts_.size(); ++i)
      if (args.inputs[i]->raw() != dst + input_parts_[i]) return false;
    return true;
  }

  // Writes output bytes [begin, end): the parts of the input chunks that fall there, but for
  // inputs already in place.
  void copy_range(const KernelArgs& args, std::byte* dst, size_t begin, size_t end) const {
    size_t at = begin;
    while (at < end) {
      const size_t o = at / row_bytes_, in_row = at % row_bytes_;
      size_t i = 0, chunk_start = 0;
      while (chunk_start + chunk_bytes_[i] <= in_row) chunk_start += chunk_bytes_[i++];
      const size_t skip = in_row - chunk_start;
      const size_t n = std::min(chunk_bytes_[i] - skip, end - at);
      const std::byte* src =
          static_cast<const std::byte*>(args.inputs[i]->raw()) + o * chunk_bytes_[i] + skip;
      if (src != dst + at) std::memcpy(dst + at, src, n);
      at += n;
    }
  }

  static constexpr size_t kShareBytes = size_t(1) << 20;
  int64_t outer_ = 1;
  std::vector<size_t> chunk_bytes_;  // per input: its bytes for one outer position
  size_t row_bytes_ = 0;             // the output's bytes for one outer position
};

std::unique_ptr<Kernel> concat_prepare(const NodeRequest& r) {
  return std::make_unique<ConcatKernel>(r);
}

}  // namespace

KernelFamily concat_family() {
  return {"cpu_concat", true, &concat_serves, &concat_supports, &concat_prepare, false};
}

}  // namespace strata::kernels::cpu
