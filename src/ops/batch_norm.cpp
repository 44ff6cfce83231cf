// BatchNormalization in inference mode: y = scale * (x - mean) / sqrt(var + epsilon) + B with the
// given running mean and var, per channel of X [N, C, D1..Dn]. Opsets before 9 with spatial=0 give
// scale, B, mean and var the shape [C, D1..Dn] (one set per element of a sample).
// Training mode (training_mode=1, opset 14+) normalises with the batch's own mean and population
// variance over N and the spatial dims, and outputs the updated running statistics
// (running = input * momentum + batch * (1 - momentum)). Before opset 7, is_test=0 with the batch
// statistics outputs requested is not supported. The extra outputs that old opsets declare
// (running mean/var, saved mean/var) are filled with the input mean and var.
// Cost: 2 FLOPs per element (one multiply and one add once scale, B, mean and var are folded);
// param_bytes = bytes of the constant scale, B, mean and var.
#include "ops/batch_norm.h"

#include <cmath>
#include <cstring>

#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

constexpr size_t kParams = 4;  // inputs 1..4: scale, B, mean, var

class BatchNormOp final : public Op {
 public:
  explicit BatchNormOp(const NodeInfo& node)
      : epsilon_(node.attr_float("epsilon", 1e-5f)),
        momentum_(node.attr_float("momentum", 0.9f)),
        per_element_(node.opset() < 9 && node.attr_int("spatial", 1) == 0) {
    for (size_t i = 1; i <= 4; ++i) stat_outputs_[i] = node.has_output(i);
    training_ = node.attr_int("training_mode", 0) != 0;
    if (training_ && per_element_) fail("training mode needs spatial=1");
    const bool wants_batch_stats = node.has_output(1) || node.has_output(2);
    if (node.opset() < 7 && node.attr_int("is_test", 0) == 0 && wants_batch_stats)
      fail("training mode (is_test=0 with mean/var outputs) is not supported");
  }

  BatchNormAttributes attributes() const {
    bool stats_declared = false;
    for (bool declared : stat_outputs_) stats_declared |= declared;
    return {epsilon_, !training_ && !per_element_ && !stats_declared};
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() < 2) fail("input X must have rank at least 2, got shape {}", x.shape.str());
    // Per channel: [C]; per element (spatial=0): [C, D1..Dn].
    const Shape expected = per_element_ ? Shape(x.shape.dims().subspan(1)) : Shape{x.shape[1]};
    static const char* const kNames[kParams] = {"scale", "B", "mean", "var"};
    for (size_t i = 0; i < kParams; ++i) {
      const Meta& p = ctx.input(i + 1);
      if (!is_float(p.dtype))
        fail("input '{}' has dtype {} but must be a float type", kNames[i], dtype_name(p.dtype));
      bool fits = p.shape.rank() == expected.rank();
      for (int64_t d = 0; fits && d < p.shape.rank(); ++d)
        fits = !p.shape[d].is_static() || !expected[d].is_static() || p.shape[d] == expected[d];
      if (!fits)
        fail("input '{}' has shape {} but needs {}", kNames[i], p.shape.str(), expected.str());
    }
    ctx.set_output(0, x.dtype, x.shape);
    // Old opsets' extra outputs: running mean, running var, saved mean, saved var.
    for (size_t i = 1; i < ctx.num_outputs() && i <= 4; ++i) {
      const Meta& stat = ctx.input(i % 2 == 1 ? 3 : 4);
      ctx.set_output(i, stat.dtype, stat.shape);
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, 2);
    for (size_t i = 1; i <= kParams; ++i)
      if (ctx.is_constant_input(i)) c.param_bytes += ctx.bytes_in(i);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t channels = x.dim(1);
    const int64_t plane = product(spatial_dims(x.shape()));
    const int64_t param_count = per_element_ ? channels * plane : channels;
    for (size_t i = 1; i <= kParams; ++i)
      if (ctx.input(i).numel() != param_count)
        fail("input {} has {} values but X {} needs {}", i, ctx.input(i).numel(), x.shape_str(),
             param_count);
    // Fold into y = x * a + b.
    const std::vector<double> scale = ctx.input(1).to_double(), bias = ctx.input(2).to_double();
    std::vector<double> mean = ctx.input(3).to_double(), var = ctx.input(4).to_double();
    if (training_) {
      const std::vector<double> running_mean = mean, running_var = var;
      batch_statistics(x, mean, var);
      write_running_statistics(ctx, running_mean, mean, 1);
      write_running_statistics(ctx, running_var, var, 2);
    }
    std::vector<double> a(static_cast<size_t>(param_count)), b(static_cast<size_t>(param_count));
    for (size_t k = 0; k < a.size(); ++k) {
      a[k] = scale[k] / std::sqrt(var[k] + double(epsilon_));
      b[k] = bias[k] - mean[k] * a[k];
    }
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* in = x.data<T>();
      T* out = y.data<T>();
      for (int64_t n = 0; n < x.dim(0); ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (n * channels + c) * plane;
          for (int64_t i = 0; i < plane; ++i) {
            const size_t k = size_t(per_element_ ? c * plane + i : c);
            out[base + i] = T(double(in[base + i]) * a[k] + b[k]);
          }
        }
      }
    });
    for (size_t i = 1; i < ctx.num_outputs() && i <= 4 && !training_; ++i) {
      if (!stat_outputs_[i]) continue;
      const Tensor& stat = ctx.input(i % 2 == 1 ? 3 : 4);
      Tensor& dst = ctx.output(i);
      if (dst.nbytes() == stat.nbytes() && stat.nbytes())
        std::memcpy(dst.raw(), stat.raw(), stat.nbytes());
    }
  }

 private:
  // Per-channel mean and population variance of X over N and the spatial dims.
  static void batch_statistics(const Tensor& x, std::vector<double>& mean,
                               std::vector<double>& var) {
    const int64_t channels = x.dim(1), plane = product(spatial_dims(x.shape()));
    const std::vector<double> v = x.to_double();
    const double count = double(x.dim(0) * plane);
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0, sq = 0;
      for (int64_t n = 0; n < x.dim(0); ++n)
        for (int64_t i = 0; i < plane; ++i) sum += v[size_t((n * channels + c) * plane + i)];
      const double m = count > 0 ? sum / count : 0;
      for (int64_t n = 0; n < x.dim(0); ++n)
        for (int64_t i = 0; i < plane; ++i) {
          const double d = v[size_t((n * channels + c) * plane + i)] - m;
          sq += d * d;
        }
      mean[size_t(c)] = m;
      var[size_t(c)] = count > 0 ? sq / count : 0;
    }
  }

  void write_running_statistics(KernelContext& ctx, const std::vector<double>& running,
                                const std::vector<double>& batch, size_t output) const {
    if (output >= ctx.num_outputs() || !stat_outputs_[output]) return;
    Tensor& dst = ctx.output(output);
    visit_float(dst.dtype(), [&]<class T>(Type<T>) {
      for (size_t k = 0; k < running.size(); ++k)
        dst.data<T>()[k] = T(running[k] * momentum_ + batch[k] * (1 - momentum_));
    });
  }

  float epsilon_;
  double momentum_ = 0.9;
  bool training_ = false;
  bool per_element_;
  bool stat_outputs_[5] = {};  // which of the extra outputs 1..4 the node declares
};

}  // namespace

std::optional<BatchNormAttributes> batch_norm_attributes(const Op& op) {
  const auto* norm = dynamic_cast<const BatchNormOp*>(&op);
  if (!norm) return std::nullopt;
  return norm->attributes();
}

std::unique_ptr<Op> make_batch_norm(const NodeInfo& node) {
  return std::make_unique<BatchNormOp>(node);
}

}  // namespace strata::ops
