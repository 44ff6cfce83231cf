// Softmax, LogSoftmax and Hardmax (1 at the first maximum, 0 elsewhere). Before opset 13 the input
// is coerced to 2-D at `axis` (default 1) and each row of the flattened tail is normalised; from
// opset 13 only the single `axis` (default -1).
#include "ops/softmax.h"

#include <cmath>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

template <class T>
void softmax_kernel(const Tensor& in, const AxisSplit& s, bool log, Tensor& out) {
  const T* x = in.data<T>();
  T* y = out.data<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      // exp(x - max) cannot overflow, and the largest term is exactly 1.
      double top = -INFINITY;
      for (int64_t j = 0; j < s.n; ++j) top = std::max(top, double(x[s.offset(o, j, i)]));
      double sum = 0;
      for (int64_t j = 0; j < s.n; ++j) sum += std::exp(double(x[s.offset(o, j, i)]) - top);
      const double log_sum = std::log(sum);
      for (int64_t j = 0; j < s.n; ++j) {
        const int64_t at = s.offset(o, j, i);
        const double shifted = double(x[at]) - top;
        y[at] = T(log ? shifted - log_sum : std::exp(shifted) / sum);
      }
    }
  }
}

template <class T>
void hardmax_kernel(const Tensor& in, const AxisSplit& s, Tensor& out) {
  const T* x = in.data<T>();
  T* y = out.data<T>();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      int64_t best = 0;
      for (int64_t j = 1; j < s.n; ++j)
        if (double(x[s.offset(o, j, i)]) > double(x[s.offset(o, best, i)])) best = j;
      for (int64_t j = 0; j < s.n; ++j) y[s.offset(o, j, i)] = T(j == best ? 1.0f : 0.0f);
    }
}

class SoftmaxOp final : public Op {
 public:
  SoftmaxAttributes attributes() const { return {log_, coerce_2d_, axis_}; }
  bool is_hardmax() const { return hard_; }

  explicit SoftmaxOp(const NodeInfo& node)
      : log_(node.op_type() == "LogSoftmax"),
        hard_(node.op_type() == "Hardmax"),
        coerce_2d_(node.opset() < 13),
        axis_(node.attr_int("axis", node.opset() < 13 ? 1 : -1)) {}

  void infer(InferContext& ctx) const override {
    const Meta& data = ctx.input(0);
    if (!is_float(data.dtype)) fail("input does not support dtype {}", dtype_name(data.dtype));
    normalized_range(data.shape.rank());  // validates axis
    ctx.set_output(0, data.dtype, data.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    // Per element: max, subtract, exp, add, and a divide (Softmax) or subtract (LogSoftmax);
    // Hardmax: one comparison.
    return elementwise_cost(ctx, hard_ ? 1 : 5);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const auto [begin, end] = normalized_range(in.rank());
    const AxisSplit s = split_at(in.shape(), begin, end);
    visit_float(in.dtype(), [&]<class T>(Type<T>) {
      if (hard_)
        hardmax_kernel<T>(in, s, ctx.output(0));
      else
        softmax_kernel<T>(in, s, log_, ctx.output(0));
    });
  }

 private:
  // The dims [begin, end) that are normalised together.
  std::pair<int64_t, int64_t> normalized_range(int64_t rank) const {
    if (!coerce_2d_) {
      const int64_t axis = normalize_axis(axis_, rank);
      return {axis, axis + 1};
    }
    // Coercion to 2-D accepts axis == rank (every row has a single element).
    if (axis_ < -rank || axis_ > rank) fail("axis {} is out of range for rank {}", axis_, rank);
    return {axis_ < 0 ? axis_ + rank : axis_, rank};
  }

  bool log_;
  bool hard_;
  bool coerce_2d_;
  int64_t axis_;
};

}  // namespace

std::optional<SoftmaxAttributes> softmax_attributes(const Op& op) {
  const auto* softmax = dynamic_cast<const SoftmaxOp*>(&op);
  if (!softmax || softmax->is_hardmax()) return std::nullopt;
  return softmax->attributes();
}

std::unique_ptr<Op> make_softmax(const NodeInfo& node) {
  return std::make_unique<SoftmaxOp>(node);
}

}  // namespace strata::ops
