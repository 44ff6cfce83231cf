// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12/13).
// NLL: input [N, C] or [N, C, d1..dk] (log-probabilities), target [N] or [N, d1..dk] of class
// indices, optional weight [C]. Per element: loss = -input[n, t, d] * weight[t] (weight 1 when
// absent), 0 where t == ignore_index (which then weighs 0). reduction: "none" gives the loss per
// target element; "sum" their sum; "mean" their sum divided by the sum of the weights that count.
// SoftmaxCrossEntropyLoss: log_prob = LogSoftmax(scores) over axis 1, then NLL of it; its
// optional second output is log_prob. Sums are accumulated in double.
// Cost: NLL 2 FLOPs per target element (multiply, add); SoftmaxCrossEntropyLoss adds LogSoftmax's
// 5 per score element.
#include <cmath>

#include "ops/op.h"

namespace strata::ops {

namespace {

enum class Reduction { kNone, kSum, kMean };

Reduction parse_reduction(const NodeInfo& node) {
  const std::string r = node.attr_string("reduction", "mean");
  if (r == "none") return Reduction::kNone;
  if (r == "sum") return Reduction::kSum;
  if (r == "mean") return Reduction::kMean;
  fail("attribute 'reduction' must be none, sum or mean, not '{}'", r);
}

class LossOp final : public Op {
 public:
  explicit LossOp(const NodeInfo& node)
      : softmax_(node.op_type() == "SoftmaxCrossEntropyLoss"),
        reduction_(parse_reduction(node)),
        has_ignore_(node.has_attr("ignore_index")),
        ignore_index_(node.attr_int("ignore_index", 0)) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const Meta& target = ctx.input(1);
    if (!is_float(x.dtype)) fail("input has dtype {}; a float type is needed", dtype_name(x.dtype));
    if (target.dtype != DType::kI32 && target.dtype != DType::kI64)
      fail("target has dtype {}; int32 or int64 is needed", dtype_name(target.dtype));
    if (x.shape.rank() < 2) fail("input must have rank 2 or more, got {}", x.shape.str());
    bool fits = target.shape.rank() == x.shape.rank() - 1;
    for (int64_t d = 0; fits && d < target.shape.rank(); ++d) {
      const Dim& t = target.shape[d];
      const Dim& in = x.shape[d == 0 ? 0 : d + 1];
      fits = !t.is_static() || !in.is_static() || t == in;
    }
    if (!fits)
      fail("target of shape {} does not match input {} (N, C, d1..dk needs N, d1..dk)",
           target.shape.str(), x.shape.str());
    if (ctx.has_input(2)) {
      const Meta& w = ctx.input(2);
      if (w.dtype != x.dtype || w.shape.rank() != 1 ||
          (w.shape[0].is_static() && x.shape[1].is_static() && !(w.shape[0] == x.shape[1])))
        fail("weight must be {}[C] with C = {}, got {}{}", dtype_name(x.dtype), x.shape[1].str(),
             dtype_name(w.dtype), w.shape.str());
    }
    ctx.set_output(0, x.dtype, reduction_ == Reduction::kNone ? target.shape : Shape{});
    if (softmax_ && ctx.num_outputs() > 1) ctx.set_output(1, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, 0);
    c.flops = 2 * double(ctx.numel_in(1)) + (softmax_ ? 5 * double(ctx.numel_in(0)) : 0);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& target = ctx.input(1);
    const int64_t n = x.dim(0), classes = x.dim(1);
    const int64_t inner = classes > 0 ? x.numel() / (n * classes) : 0;
    std::vector<double> log_prob = x.to_double();
    if (softmax_) log_softmax_over_classes(log_prob, n, classes, inner);
    const std::vector<int64_t> t = target.to_int64();
    std::vector<double> weight;
    if (ctx.has_input(2)) weight = ctx.input(2).to_double();
    std::vector<double> loss(t.size());
    double weights_counted = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < inner; ++i) {
        const size_t k = size_t(b * inner + i);
        if (has_ignore_ && t[k] == ignore_index_) continue;
        if (t[k] < 0 || t[k] >= classes)
          fail("target value {} at index {} is outside [0, {})", t[k], k, classes);
        const double w = weight.empty() ? 1.0 : weight[size_t(t[k])];
        loss[k] = -log_prob[size_t((b * classes + t[k]) * inner + i)] * w;
        weights_counted += w;
      }
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      T* y = ctx.output(0).data<T>();
      if (reduction_ == Reduction::kNone) {
        for (size_t k = 0; k < loss.size(); ++k) y[k] = T(loss[k]);
      } else {
        double sum = 0;
        for (double v : loss) sum += v;
        y[0] = T(reduction_ == Reduction::kSum ? sum : sum / weights_counted);
      }
      if (softmax_ && ctx.num_outputs() > 1 && ctx.output(1).defined()) {
        T* lp = ctx.output(1).data<T>();
        for (size_t k = 0; k < log_prob.size(); ++k) lp[k] = T(log_prob[k]);
      }
    });
  }

 private:
  static void log_softmax_over_classes(std::vector<double>& v, int64_t n, int64_t classes,
                                       int64_t inner) {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t c) -> double& { return v[size_t((b * classes + c) * inner + i)]; };
        double top = -INFINITY, sum = 0;
        for (int64_t c = 0; c < classes; ++c) top = std::max(top, at(c));
        for (int64_t c = 0; c < classes; ++c) sum += std::exp(at(c) - top);
        const double log_sum = top + std::log(sum);
        for (int64_t c = 0; c < classes; ++c) at(c) -= log_sum;
      }
  }

  bool softmax_;
  Reduction reduction_;
  bool has_ignore_;
  int64_t ignore_index_;
};

}  // namespace

std::unique_ptr<Op> make_loss(const NodeInfo& node) {
  return std::make_unique<LossOp>(node);
}

}  // namespace strata::ops
