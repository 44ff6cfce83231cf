// Split: cuts the input along `axis` into the node's outputs. Sizes come from `split` (an attribute
// before opset 13, an input from 13); without it the parts are equal, or from opset 18 with
// num_outputs, ceil(dim / n) each with a smaller last part.
#include <cstring>

#include "core/checked.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class SplitOp final : public Op {
 public:
  explicit SplitOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", 0)), num_outputs_(node.num_outputs()) {
    if (node.opset() < 13) split_attr_ = optional_ints_attr(node, "split");
    if (node.opset() >= 18 && node.has_attr("num_outputs")) {
      const int64_t n = node.attr_int("num_outputs", 0);
      if (n < 1 || size_t(n) != num_outputs_)
        fail("attribute 'num_outputs' is {} but the node has {} outputs", n, num_outputs_);
      uneven_ = true;
      if (node.has_input(1)) fail("input 'split' and attribute 'num_outputs' are both given");
    }
    if (num_outputs_ == 0) fail("needs at least one output");
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const int64_t axis = normalize_axis(axis_, in.rank());
    const std::vector<Dim> sizes = part_sizes(in[axis], attr_or_input_ints(split_attr_, ctx, 1));
    for (size_t i = 0; i < num_outputs_; ++i) {
      Shape out = in;
      out[axis] = sizes[i];
      ctx.set_output(i, ctx.dtype(0), out);
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, src.rank());
    const size_t elem = dtype_size(src.dtype());
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= src.dim(d);
    if (outer == 0) return;
    // Each output takes one contiguous block of every input row (one row per outer index).
    const size_t src_row = size_t(src.numel() / outer) * elem;
    size_t column = 0;
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& dst = ctx.output(i);
      const size_t dst_row = size_t(dst.numel() / outer) * elem;
      if (column + dst_row > src_row) fail("split sizes changed between infer and run");
      const auto* from = static_cast<const std::byte*>(src.raw());
      auto* to = static_cast<std::byte*>(dst.raw());
      for (int64_t o = 0; o < outer && dst_row; ++o)
        std::memcpy(to + size_t(o) * dst_row, from + size_t(o) * src_row + column, dst_row);
      column += dst_row;
    }
  }

 private:
  std::vector<Dim> part_sizes(const Dim& dim,
                              const std::optional<std::vector<int64_t>>& split) const {
    const int64_t n = int64_t(num_outputs_);
    if (split && !split->empty()) {  // an empty 'split' input is taken as absent
      if (split->size() != num_outputs_)
        fail("'split' has {} entries but the node has {} outputs", split->size(), n);
      int64_t total = 0;
      for (int64_t s : *split) {
        if (s < 0) fail("'split' has a negative size {}", s);
        total = checked_add(total, s);
      }
      if (dim.is_static() && total != dim.value())
        fail("'split' sizes add up to {}, not the axis size {}", total, dim.value());
      return std::vector<Dim>(split->begin(), split->end());
    }
    if (!uneven_) {
      if (dim.is_static() && dim.value() % n != 0)
        fail("axis size {} does not split into {} equal parts", dim.value(), n);
      return std::vector<Dim>(num_outputs_, floor_div(dim, n));
    }
    const int64_t d = dim.value();
    const int64_t chunk = (d + n - 1) / n;
    if (chunk * (n - 1) > d) fail("axis size {} cannot be split into {} parts", d, n);
    std::vector<Dim> sizes(num_outputs_, chunk);
    sizes.back() = d - chunk * (n - 1);
    return sizes;
  }

  int64_t axis_;
  size_t num_outputs_;
  bool uneven_ = false;
  std::optional<std::vector<int64_t>> split_attr_;
};

}  // namespace

std::unique_ptr<Op> make_split(const NodeInfo& node) {
  return std::make_unique<SplitOp>(node);
}

}  // namespace strata::ops
