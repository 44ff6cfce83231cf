// ConstantOfShape: a tensor of the shape given by input 0, every element equal to `value`.
#include "core/checked.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class ConstantOfShapeOp final : public Op {
 public:
  explicit ConstantOfShapeOp(const NodeInfo& node) {
    if (const Tensor* value = node.attr_tensor("value")) {
      require_fixed_size(value->dtype());
      if (value->numel() != 1)
        fail("attribute 'value' must hold one element, not {}", value->numel());
      value_ = value->clone();
    } else {
      value_ = Tensor::from<float>({1}, {0.0f});
    }
  }

  void infer(InferContext& ctx) const override {
    const Meta& shape_input = ctx.input(0);
    if (!is_integer(shape_input.dtype))
      fail("input 'input' must be an integer tensor, not {}", dtype_name(shape_input.dtype));
    if (shape_input.shape.rank() != 1)
      fail("input 'input' must be one-dimensional, not of shape {}", shape_input.shape.str());
    const std::vector<int64_t> dims = ctx.ints(0);
    const int64_t numel = checked_numel(dims);  // fails on negative dims
    if (numel <= kMaxFoldedElements) {
      Tensor out = Tensor::zeros(value_.dtype(), dims);
      fill(out);
      ctx.set_output_value(0, std::move(out));
    } else {
      ctx.set_output(0, value_.dtype(), Shape::of(dims));
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override { fill(ctx.output(0)); }

 private:
  void fill(Tensor& out) const { out.fill_with(value_.raw()); }

  Tensor value_;  // one element; its dtype is the output's
};

}  // namespace

std::unique_ptr<Op> make_constant_of_shape(const NodeInfo& node) {
  return std::make_unique<ConstantOfShapeOp>(node);
}

}  // namespace strata::ops
