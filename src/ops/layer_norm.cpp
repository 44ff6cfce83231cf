// LayerNormalization (opset 17) and RMSNormalization (opset 23). LayerNormalization: X is split at
// `axis` into outer rows and normalised over the trailing axes [axis, rank): y = (x - mean) /
// sqrt(var + epsilon) * Scale + B, with Scale and B broadcast to X.shape[axis:]. Optional outputs
// Mean and InvStdDev have shape X.shape[:axis] + 1s and the stash_type dtype. Statistics are
// computed in double (at least stash_type's precision). Cost per element: mean 1, variance 3
// (subtract, square, add), normalise 2 (subtract, multiply), scale 1, shift 1 when B is present;
// param_bytes = bytes of the constant Scale and B. RMSNormalization: y = x / sqrt(mean(x^2 over
// [axis, rank)) + epsilon) * scale, no centring, no bias, no statistics outputs. Cost per element:
// 4 (square, add, normalise, scale).
#include "ops/layer_norm.h"

#include <cmath>

#include "ops/broadcast.h"
#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

// Unidirectional broadcast: `from` right-aligned against `to`, each dim equal or 1 (dims that
// are not both known pass).
bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.rank() > to.rank()) return false;
  for (int64_t i = 1; i <= from.rank(); ++i) {
    const Dim& f = from[from.rank() - i];
    const Dim& t = to[to.rank() - i];
    if (f.is_static() && t.is_static() && f.value() != 1 && f.value() != t.value()) return false;
  }
  return true;
}

// The values of `t` broadcast to `shape`, as doubles in row-major order.
std::vector<double> expand_to(const Tensor& t, const std::vector<int64_t>& shape) {
  const std::vector<double> values = t.to_double();
  std::vector<double> out(size_t(product(shape)));
  const std::array<std::vector<int64_t>, 1> strides{broadcast_strides(t.shape(), shape)};
  for_each_broadcast(shape, strides, [&](int64_t i, const std::array<int64_t, 1>& offset) {
    out[size_t(i)] = values[size_t(offset[0])];
  });
  return out;
}

// Attribute stash_type: the float type statistics are kept in (float32 by default).
DType stash_type_of(const NodeInfo& node) {
  DType stash = DType::kUndefined;
  const int64_t stash_type = node.attr_int("stash_type", 1);
  if (!dtype_from_onnx(int(stash_type), &stash) || !is_float(stash))
    fail("attribute 'stash_type' must be a float type, got {}", stash_type);
  return stash;
}

class LayerNormOp final : public Op {
 public:
  LayerNormAttributes attributes() const {
    return {axis_, epsilon_, want_mean_ || want_inv_std_dev_};
  }

  explicit LayerNormOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", -1)),
        epsilon_(node.attr_float("epsilon", 1e-5f)),
        want_mean_(node.has_output(1)),
        want_inv_std_dev_(node.has_output(2)),
        stash_dtype_(stash_type_of(node)) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (!ctx.has_input(1)) fail("input 'Scale' is required");
    const int64_t axis = normalize_axis(axis_, x.shape.rank());
    const Shape normalized(x.shape.dims().subspan(size_t(axis)));
    static const char* const kNames[] = {"Scale", "B"};
    for (size_t i = 1; i <= 2; ++i) {
      if (!ctx.has_input(i)) continue;
      const Meta& p = ctx.input(i);
      if (p.dtype != x.dtype)
        fail("input '{}' has dtype {} but X has {}", kNames[i - 1], dtype_name(p.dtype),
             dtype_name(x.dtype));
      if (!broadcasts_to(p.shape, normalized))
        fail("input '{}' of shape {} does not broadcast to the normalised shape {}", kNames[i - 1],
             p.shape.str(), normalized.str());
    }
    ctx.set_output(0, x.dtype, x.shape);
    Shape stats = x.shape;
    for (int64_t d = axis; d < stats.rank(); ++d) stats[d] = 1;
    ctx.set_output(1, stash_dtype_, stats);
    ctx.set_output(2, stash_dtype_, stats);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, ctx.has_input(2) ? 8 : 7);
    for (size_t i = 1; i <= 2; ++i)
      if (ctx.is_constant_input(i)) c.param_bytes += ctx.bytes_in(i);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, x.rank());
    const std::vector<int64_t> normalized(x.shape().begin() + axis, x.shape().end());
    const int64_t inner = product(normalized);
    const int64_t rows = product(std::vector<int64_t>(x.shape().begin(), x.shape().begin() + axis));
    for (size_t i = 1; i <= 2; ++i)
      if (ctx.has_input(i) &&
          !broadcasts_to(Shape::of(ctx.input(i).shape()), Shape::of(normalized)))
        fail("input {} of shape {} does not broadcast to {}", i, ctx.input(i).shape_str(),
             Shape::of(normalized).str());
    const std::vector<double> scale = expand_to(ctx.input(1), normalized);
    const std::vector<double> bias =
        ctx.has_input(2) ? expand_to(ctx.input(2), normalized) : std::vector<double>(size_t(inner));
    std::vector<Moments> stats(static_cast<size_t>(rows));
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      for (int64_t r = 0; r < rows; ++r) {
        const T* in = x.data<T>() + r * inner;
        T* out = ctx.output(0).data<T>() + r * inner;
        const Moments m = moments(in, inner, double(epsilon_));
        for (int64_t i = 0; i < inner; ++i)
          out[i] = T((double(in[i]) - m.mean) * m.inv_std_dev * scale[size_t(i)] + bias[size_t(i)]);
        stats[size_t(r)] = m;
      }
    });
    visit_float(stash_dtype_, [&]<class U>(Type<U>) {
      for (int64_t r = 0; r < rows; ++r) {
        if (want_mean_ && ctx.num_outputs() > 1)
          ctx.output(1).data<U>()[r] = U(stats[size_t(r)].mean);
        if (want_inv_std_dev_ && ctx.num_outputs() > 2)
          ctx.output(2).data<U>()[r] = U(stats[size_t(r)].inv_std_dev);
      }
    });
  }

 private:
  int64_t axis_;
  float epsilon_;
  bool want_mean_;
  bool want_inv_std_dev_;
  DType stash_dtype_;
};

class RmsNormOp final : public Op {
 public:
  explicit RmsNormOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", -1)),
        epsilon_(node.attr_float("epsilon", 1e-5f)),
        stash_(stash_type_of(node)) {}  // the reference keeps the statistics in double anyway

  RmsNormAttributes attributes() const { return {axis_, epsilon_, stash_}; }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    const int64_t axis = normalize_axis(axis_, x.shape.rank());
    const Shape normalized(x.shape.dims().subspan(size_t(axis)));
    const Meta& scale = ctx.input(1);
    if (scale.dtype != x.dtype)
      fail("input 'scale' has dtype {} but X has {}", dtype_name(scale.dtype), dtype_name(x.dtype));
    if (!broadcasts_to(scale.shape, normalized))
      fail("input 'scale' of shape {} does not broadcast to the normalised shape {}",
           scale.shape.str(), normalized.str());
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, 4);
    if (ctx.is_constant_input(1)) c.param_bytes += ctx.bytes_in(1);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, x.rank());
    const std::vector<int64_t> normalized(x.shape().begin() + axis, x.shape().end());
    if (!broadcasts_to(Shape::of(ctx.input(1).shape()), Shape::of(normalized)))
      fail("input 'scale' of shape {} does not broadcast to {}", ctx.input(1).shape_str(),
           Shape::of(normalized).str());
    const int64_t inner = product(normalized), rows = inner > 0 ? x.numel() / inner : 0;
    const std::vector<double> scale = expand_to(ctx.input(1), normalized);
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      for (int64_t r = 0; r < rows; ++r) {
        const T* in = x.data<T>() + r * inner;
        T* out = ctx.output(0).data<T>() + r * inner;
        double squares = 0;
        for (int64_t i = 0; i < inner; ++i) squares += double(in[i]) * double(in[i]);
        const double inv_rms = 1 / std::sqrt(squares / double(inner) + double(epsilon_));
        for (int64_t i = 0; i < inner; ++i) out[i] = T(double(in[i]) * inv_rms * scale[size_t(i)]);
      }
    });
  }

 private:
  int64_t axis_;
  float epsilon_;
  DType stash_;
};

}  // namespace

std::optional<LayerNormAttributes> layer_norm_attributes(const Op& op) {
  const auto* norm = dynamic_cast<const LayerNormOp*>(&op);
  if (!norm) return std::nullopt;
  return norm->attributes();
}

std::optional<RmsNormAttributes> rms_norm_attributes(const Op& op) {
  const auto* norm = dynamic_cast<const RmsNormOp*>(&op);
  if (!norm) return std::nullopt;
  return norm->attributes();
}

std::unique_ptr<Op> make_layer_norm(const NodeInfo& node) {
  if (node.op_type() == "RMSNormalization") return std::make_unique<RmsNormOp>(node);
  return std::make_unique<LayerNormOp>(node);
}

}  // namespace strata::ops
