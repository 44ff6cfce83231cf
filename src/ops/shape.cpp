// Shape (dims as an int64 vector, optionally a [start, end) range of them, opset 15) and Size
// (element count as an int64 scalar). Both only look at the input's shape, so when the dims are
// known ahead of time their value is too: infer sets it, which lets shape arithmetic fold.
#include <algorithm>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

// Neither op reads the input's data: only the output is written.
Cost shape_only_cost(const CostContext& ctx) {
  Cost c;
  c.bytes_written = ctx.all_output_bytes();
  return c;
}

class ShapeOp final : public Op {
 public:
  explicit ShapeOp(const NodeInfo& node)
      : start_(node.attr_int("start", 0)), end_(node.attr_int("end", INT64_MAX)) {}

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.shape(0);
    const auto [begin, end] = range(in.rank());
    std::vector<int64_t> dims;
    dims.reserve(size_t(std::max<int64_t>(end - begin, 0)));
    for (int64_t d = begin; d < end; ++d) {
      if (!in[d].is_static()) {
        ctx.set_output(0, DType::kI64, Shape{end - begin});
        return;
      }
      dims.push_back(in[d].value());
    }
    ctx.set_output_value(0, Tensor::from<int64_t>({end - begin}, dims));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override { return shape_only_cost(ctx); }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    const auto [begin, end] = range(src.rank());
    int64_t* out = ctx.output(0).data<int64_t>();
    for (int64_t d = begin; d < end; ++d) out[d - begin] = src.dim(d);
  }

 private:
  // The [begin, end) dims selected by start/end: negative counts from the back, then clamped.
  std::pair<int64_t, int64_t> range(int64_t rank) const {
    auto clamp = [rank](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t(0), rank); };
    const int64_t begin = clamp(start_);
    return {begin, std::max(begin, clamp(end_))};
  }

  int64_t start_;
  int64_t end_;
};

class SizeOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.shape(0);
    if (in.is_static()) {
      ctx.set_output_value(0, Tensor::from<int64_t>({}, {in.numel().value()}));
    } else {
      ctx.set_output(0, DType::kI64, Shape{});
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override { return shape_only_cost(ctx); }

  void run(KernelContext& ctx) const override {
    ctx.output(0).data<int64_t>()[0] = ctx.input(0).numel();
  }
};

}  // namespace

std::unique_ptr<Op> make_shape(const NodeInfo& node) {
  if (node.op_type() == "Size") return std::make_unique<SizeOp>();
  return std::make_unique<ShapeOp>(node);
}

}  // namespace strata::ops
