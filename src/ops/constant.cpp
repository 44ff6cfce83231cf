// Constant: outputs the tensor given by exactly one of its value attributes.
#include <cstring>
#include <memory>
#include <span>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

// The attribute's tensor: `value` (any opset), or since opset 12 a scalar or list attribute.
Tensor constant_value(const NodeInfo& node) {
  // Counted in one pass over the node's attributes: models hold hundreds of Constants, and
  // the analyzer builds their ops on every analysis.
  const int set = node.count_attrs({"value", "sparse_value", "value_float", "value_floats",
                                    "value_int", "value_ints", "value_string", "value_strings"});
  if (set != 1) fail("exactly one value attribute must be set, not {}", set);

  if (const Tensor* value = node.attr_tensor("value")) {
    require_fixed_size(value->dtype());
    // Independent of the graph's lifetime: sharing the buffer when the attribute keeps it alive
    // (no copy to make and free), else a copy.
    return value->keeps_buffer_alive() ? *value : value->clone();
  }
  if (node.has_attr("sparse_value")) fail("attribute 'sparse_value' is not supported");
  if (node.has_attr("value_string") || node.has_attr("value_strings"))
    fail("string constants are not supported");
  if (node.has_attr("value_float"))
    return Tensor::from<float>({}, {node.attr_float("value_float", 0)});
  if (node.has_attr("value_int")) return Tensor::from<int64_t>({}, {node.attr_int("value_int", 0)});
  if (node.has_attr("value_floats")) {
    const std::vector<float> v = node.attr_floats("value_floats");
    return Tensor::from<float>({int64_t(v.size())}, std::span<const float>(v));
  }
  const std::vector<int64_t> v = node.attr_ints("value_ints");
  return Tensor::from<int64_t>({int64_t(v.size())}, std::span<const int64_t>(v));
}

class ConstantOp final : public Op {
 public:
  explicit ConstantOp(const NodeInfo& node)
      : value_(std::make_shared<const Tensor>(constant_value(node))) {}

  void infer(InferContext& ctx) const override { ctx.set_output_value(0, value_); }

  // Writes its bytes; the value itself is a parameter of the model.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost cost = data_movement_cost(ctx);
    cost.param_bytes = double(value_->nbytes());
    return cost;
  }

  void run(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    if (out.nbytes() != value_->nbytes())
      fail_internal("constant of {} bytes into an output of {}", value_->nbytes(), out.nbytes());
    if (value_->nbytes()) std::memcpy(out.raw(), value_->raw(), value_->nbytes());
  }

 private:
  std::shared_ptr<const Tensor> value_;  // shared with the outputs' metas, never copied
};

}  // namespace

std::unique_ptr<Op> make_constant(const NodeInfo& node) {
  return std::make_unique<ConstantOp>(node);
}

}  // namespace strata::ops
