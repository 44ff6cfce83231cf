// Squeeze (drops size-1 axes: the listed ones, or all of them) and Unsqueeze (inserts size-1
// axes at the listed output positions). Axes are an attribute before opset 13, an input from 13.
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class SqueezeOp final : public Op {
 public:
  SqueezeOp(const NodeInfo& node, bool unsqueeze) : unsqueeze_(unsqueeze) {
    if (node.opset() < 13) axes_attr_ = optional_ints_attr(node, "axes");
    if (unsqueeze && node.opset() < 13 && !axes_attr_) fail("required attribute 'axes' is missing");
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const std::optional<std::vector<int64_t>> axes = attr_or_input_ints(axes_attr_, ctx, 1);
    const Shape& in = ctx.shape(0);
    ctx.set_output(0, ctx.dtype(0), unsqueeze_ ? unsqueezed(in, axes) : squeezed(in, axes));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override { copy_all_bytes(ctx.input(0), ctx.output(0)); }

 private:
  static Shape squeezed(const Shape& in, const std::optional<std::vector<int64_t>>& axes) {
    std::vector<bool> drop(size_t(in.rank()), false);
    if (axes && !axes->empty()) {  // an empty axes input means "all", as in onnxruntime
      for (int64_t a : normalize_axes(*axes, in.rank())) {
        // A symbolic dim is taken to be 1, as the model says; the run-time shape checks it.
        if (in[a].is_static() && in[a].value() != 1)
          fail("cannot squeeze axis {} of size {}", a, in[a].value());
        drop[size_t(a)] = true;
      }
    } else {
      for (int64_t d = 0; d < in.rank(); ++d) drop[size_t(d)] = in[d].value() == 1;
    }
    Shape out;
    out.reserve(size_t(in.rank()));
    for (int64_t d = 0; d < in.rank(); ++d)
      if (!drop[size_t(d)]) out.push_back(in[d]);
    return out;
  }

  static Shape unsqueezed(const Shape& in, const std::optional<std::vector<int64_t>>& axes) {
    if (!axes) fail("input 'axes' is missing");
    const int64_t rank = in.rank() + int64_t(axes->size());
    std::vector<bool> inserted(size_t(rank), false);
    for (int64_t a : normalize_axes(*axes, rank)) inserted[size_t(a)] = true;
    Shape out;
    out.reserve(size_t(rank));
    int64_t next = 0;
    for (int64_t d = 0; d < rank; ++d) out.push_back(inserted[size_t(d)] ? Dim(1) : in[next++]);
    return out;
  }

  bool unsqueeze_;
  std::optional<std::vector<int64_t>> axes_attr_;
};

}  // namespace

std::unique_ptr<Op> make_squeeze(const NodeInfo& node) {
  return std::make_unique<SqueezeOp>(node, node.op_type() == "Unsqueeze");
}

}  // namespace strata::ops
