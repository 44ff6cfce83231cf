// HannWindow, HammingWindow, BlackmanWindow (opset 17): a 1-D window of `size` values (a scalar
// integer input), periodic (the default: one sample of a window of size + 1) or symmetric, of type
// output_datatype (float by default). With N = size (periodic) or size - 1 (symmetric):
//   Hann      0.5 - 0.5 cos(2πn/N)
//   Hamming   25/46 - 21/46 cos(2πn/N)
//   Blackman  0.42 - 0.5 cos(2πn/N) + 0.08 cos(4πn/N)
// Cost: 4 FLOPs per value (Blackman 7).
#include <cmath>
#include <numbers>

#include "ops/op.h"

namespace strata::ops {

namespace {

enum class WindowFunction { kHann, kHamming, kBlackman };

class WindowOp final : public Op {
 public:
  explicit WindowOp(const NodeInfo& node)
      : window_(node.op_type() == "HannWindow"      ? WindowFunction::kHann
                : node.op_type() == "HammingWindow" ? WindowFunction::kHamming
                                                    : WindowFunction::kBlackman),
        periodic_(node.attr_int("periodic", 1) != 0) {
    const int64_t type = node.attr_int("output_datatype", 1);
    if (!dtype_from_onnx(int(type), &dtype_) || (!is_float(dtype_) && !is_integer(dtype_)))
      fail("attribute 'output_datatype' {} is not a numeric type strata supports", type);
  }

  void infer(InferContext& ctx) const override {
    if (!is_integer(ctx.dtype(0)))
      fail("input 'size' must be an integer, got {}", dtype_name(ctx.dtype(0)));
    const std::vector<int64_t> size = ctx.ints(0);
    if (size.size() != 1 || size[0] < 0) fail("input 'size' must be one non-negative value");
    ctx.set_output(0, dtype_, Shape{size[0]});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, window_ == WindowFunction::kBlackman ? 7 : 4);
    return c;
  }

  void run(KernelContext& ctx) const override {
    Tensor& y = ctx.output(0);
    const int64_t size = y.numel();
    const double n_total = double(periodic_ ? size : size - 1);
    visit_numeric(y.dtype(), [&]<class T>(Type<T>) {
      for (int64_t n = 0; n < size; ++n) {
        const double angle = n_total > 0 ? 2 * std::numbers::pi * double(n) / n_total : 0;
        double v = 0;
        switch (window_) {
          case WindowFunction::kHann: v = 0.5 - 0.5 * std::cos(angle); break;
          case WindowFunction::kHamming: v = 25.0 / 46 - 21.0 / 46 * std::cos(angle); break;
          case WindowFunction::kBlackman:
            v = 0.42 - 0.5 * std::cos(angle) + 0.08 * std::cos(2 * angle);
            break;
        }
        y.data<T>()[n] = T(v);
      }
    });
  }

 private:
  WindowFunction window_;
  bool periodic_;
  DType dtype_ = DType::kF32;
};

}  // namespace

std::unique_ptr<Op> make_window(const NodeInfo& node) {
  return std::make_unique<WindowOp>(node);
}

}  // namespace strata::ops
