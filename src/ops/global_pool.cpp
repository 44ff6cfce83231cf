// GlobalAveragePool and GlobalMaxPool: the mean or max of each (n, c) plane of [N, C, D1..Dn],
// giving [N, C, 1..1].
// Cost: one FLOP per input element; bytes read and written.
#include <algorithm>

#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

class GlobalPoolOp final : public Op {
 public:
  explicit GlobalPoolOp(const NodeInfo& node) : is_max_(node.op_type() == "GlobalMaxPool") {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    require_rank(x.shape, 0, "X");
    Shape out{x.shape[0], x.shape[1]};
    for (int64_t d = 2; d < x.shape.rank(); ++d) {
      if (x.shape[d].is_static() && x.shape[d].value() == 0)
        fail("cannot pool over the empty spatial axis {} of shape {}", d, x.shape.str());
      out.push_back(1);
    }
    ctx.set_output(0, x.dtype, std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, 0);
    c.flops = ctx.numel_in(0);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t planes = x.dim(0) * x.dim(1);
    const int64_t plane_size = planes > 0 ? x.numel() / planes : 0;
    if (y.numel() != planes || (plane_size == 0 && planes > 0))
      fail("input shape {} does not fit the output {}", x.shape_str(), y.shape_str());
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      for (int64_t plane = 0; plane < planes; ++plane) {
        const T* in = x.data<T>() + plane * plane_size;
        double result = double(in[0]);
        for (int64_t i = 1; i < plane_size; ++i) {
          result = is_max_ ? std::max(result, double(in[i])) : result + double(in[i]);
        }
        if (!is_max_) result /= double(plane_size);
        y.data<T>()[plane] = T(result);
      }
    });
  }

 private:
  bool is_max_;
};

}  // namespace

std::unique_ptr<Op> make_global_pool(const NodeInfo& node) {
  return std::make_unique<GlobalPoolOp>(node);
}

}  // namespace strata::ops
