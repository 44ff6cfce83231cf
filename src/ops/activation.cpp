// Activations with attributes or extra inputs: Celu Clip Elu Gelu HardSigmoid HardSwish LeakyRelu
// Selu Shrink Swish (x * sigmoid(alpha * x), opset 24) ThresholdedRelu PRelu, and SwiGLU
// (Swish(a) * b, opset 28; a and b of one shape). The output has the shape and dtype of input 0.
//
// Cost, FLOPs per output element (elementwise_cost): one per arithmetic operation, where a
// comparison, min, max and a library function (exp, erf, tanh) count as one.
//   Clip 2 (max with min, min with max)        LeakyRelu 2 (compare, multiply)
//   PRelu 2 (compare, multiply)                HardSigmoid 4 (multiply, add, min, max)
//   Elu 4 (compare, exp, subtract, multiply)   HardSwish 5 (HardSigmoid's 4, multiply)
//   Selu 5 (compare, exp, subtract, 2 multiplies)  Swish 5 (Sigmoid's 4, multiply)
//   Celu 5 (compare, divide, exp, subtract, multiply)  SwiGLU 6 (Swish's 5 on a, multiply by b)
//   Shrink 3 (2 compares, add or subtract)     ThresholdedRelu 1 (compare)
//   Gelu 5 (scale, erf, add, 2 multiplies); approximate=tanh 9 (cube: 2, scale, add, scale,
//   tanh, add, 2 multiplies)
#include "ops/activation.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>

#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

template <class C>
bool is_negative(C v) {
  if constexpr (std::is_unsigned_v<C>)
    return false;
  else
    return v < C(0);
}

// Bounds that leave every value (infinities included) unchanged.
template <class C>
C no_lower_bound() {
  if constexpr (std::numeric_limits<C>::has_infinity)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}
template <class C>
C no_upper_bound() {
  if constexpr (std::numeric_limits<C>::has_infinity)
    return std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::max();
}

// Elu, Gelu, HardSigmoid, HardSwish, LeakyRelu, Selu: float inputs, float attributes.
class FloatActivationOp final : public Op {
 public:
  enum class Kind {
    kCelu,
    kElu,
    kGelu,
    kGeluTanh,
    kHardSigmoid,
    kHardSwish,
    kLeakyRelu,
    kSelu,
    kShrink,
    kSwish,
    kThresholdedRelu
  };

  std::optional<ActivationOfOp> activation() const {
    using K = ActivationKind;
    switch (kind_) {
      case Kind::kElu: return ActivationOfOp{{K::kElu, alpha_}};
      case Kind::kGelu: return ActivationOfOp{{K::kGelu}};
      case Kind::kGeluTanh: return ActivationOfOp{{K::kGeluTanh}};
      case Kind::kHardSigmoid: return ActivationOfOp{{K::kHardSigmoid, alpha_, beta_}};
      case Kind::kHardSwish: return ActivationOfOp{{K::kHardSwish}};
      case Kind::kLeakyRelu: return ActivationOfOp{{K::kLeakyRelu, alpha_}};
      case Kind::kCelu:
      case Kind::kSelu:
      case Kind::kShrink:
      case Kind::kThresholdedRelu: return std::nullopt;
      case Kind::kSwish:
        if (alpha_ == 1.0f) return ActivationOfOp{{K::kSilu}};
        return std::nullopt;
    }
    return std::nullopt;
  }

  explicit FloatActivationOp(const NodeInfo& node) {
    const std::string& type = node.op_type();
    if (type == "Elu") {
      kind_ = Kind::kElu;
      alpha_ = node.attr_float("alpha", 1.0f);
    } else if (type == "Celu") {  // Elu of x / alpha, scaled by alpha: continuous for any alpha
      kind_ = Kind::kCelu;
      alpha_ = node.attr_float("alpha", 1.0f);
      if (alpha_ == 0) fail("attribute 'alpha' must not be 0");
    } else if (type == "Gelu") {
      const std::string approximate = node.attr_string("approximate", "none");
      if (approximate != "none" && approximate != "tanh")
        fail("attribute 'approximate' must be 'none' or 'tanh', not '{}'", approximate);
      kind_ = approximate == "tanh" ? Kind::kGeluTanh : Kind::kGelu;
    } else if (type == "HardSigmoid") {
      kind_ = Kind::kHardSigmoid;
      alpha_ = node.attr_float("alpha", 0.2f);
      beta_ = node.attr_float("beta", 0.5f);
    } else if (type == "HardSwish") {  // HardSigmoid with fixed alpha and beta, times x
      kind_ = Kind::kHardSwish;
      alpha_ = 1.0f / 6;
      beta_ = 0.5f;
    } else if (type == "LeakyRelu") {
      kind_ = Kind::kLeakyRelu;
      alpha_ = node.attr_float("alpha", 0.01f);
    } else if (type == "Shrink") {  // x + bias below -lambd, x - bias above lambd, else 0
      kind_ = Kind::kShrink;
      alpha_ = node.attr_float("lambd", 0.5f);
      beta_ = node.attr_float("bias", 0.0f);
    } else if (type == "ThresholdedRelu") {
      kind_ = Kind::kThresholdedRelu;
      alpha_ = node.attr_float("alpha", 1.0f);
    } else if (type == "Swish") {
      kind_ = Kind::kSwish;
      alpha_ = node.attr_float("alpha", 1.0f);
    } else if (type == "Selu") {
      kind_ = Kind::kSelu;
      alpha_ = node.attr_float("alpha", 1.67326319217681884765625f);
      gamma_ = node.attr_float("gamma", 1.05070102214813232421875f);
    } else {
      fail_internal("FloatActivationOp built for op type {}", type);
    }
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    switch (kind_) {
      case Kind::kLeakyRelu: return elementwise_cost(ctx, 2);
      case Kind::kShrink: return elementwise_cost(ctx, 3);
      case Kind::kThresholdedRelu: return elementwise_cost(ctx, 1);
      case Kind::kElu:
      case Kind::kHardSigmoid: return elementwise_cost(ctx, 4);
      case Kind::kHardSwish:
      case Kind::kCelu:
      case Kind::kSelu:
      case Kind::kSwish:
      case Kind::kGelu: return elementwise_cost(ctx, 5);
      case Kind::kGeluTanh: return elementwise_cost(ctx, 9);
    }
    return std::nullopt;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const bool visited = visit_float(x.dtype(), [&]<class T>(Type<T>) {
      using C = compute_t<T>;
      const C alpha = C(alpha_), beta = C(beta_), gamma = C(gamma_);
      auto map = [&](auto f) { broadcast_map(y.data<T>(), y.shape(), f, operand<T>(x)); };
      auto hard_sigmoid = [=](C v) { return std::max(C(0), std::min(C(1), alpha * v + beta)); };
      switch (kind_) {
        case Kind::kElu: return map([=](C v) { return v < 0 ? alpha * std::expm1(v) : v; });
        case Kind::kCelu:
          return map([=](C v) { return v < 0 ? alpha * std::expm1(v / alpha) : v; });
        case Kind::kGelu:
          return map(
              [](C v) { return C(0.5) * v * (1 + std::erf(v * C(std::numbers::sqrt2 / 2))); });
        case Kind::kGeluTanh:
          return map([](C v) {
            const C inner = C(std::sqrt(2 / std::numbers::pi)) * (v + C(0.044715) * v * v * v);
            return C(0.5) * v * (1 + std::tanh(inner));
          });
        case Kind::kHardSigmoid: return map(hard_sigmoid);
        case Kind::kHardSwish: return map([=](C v) { return v * hard_sigmoid(v); });
        case Kind::kLeakyRelu: return map([=](C v) { return v < 0 ? alpha * v : v; });
        case Kind::kSelu:
          return map(
              [=](C v) { return v > 0 ? gamma * v : gamma * (alpha * std::exp(v) - alpha); });
        case Kind::kSwish: return map([=](C v) { return v / (1 + std::exp(-alpha * v)); });
        case Kind::kThresholdedRelu: return map([=](C v) { return v > alpha ? v : C(0); });
        case Kind::kShrink:
          return map([=](C v) { return v < -alpha ? v + beta : (v > alpha ? v - beta : C(0)); });
      }
    });
    if (!visited) fail_internal("activation kernel reached with dtype {}", dtype_name(x.dtype()));
  }

 private:
  Kind kind_ = Kind::kElu;
  float alpha_ = 0, beta_ = 0, gamma_ = 0;
};

// Clip: bounds are attributes before opset 11, optional scalar inputs from opset 11.
class ClipOp final : public Op {
 public:
  ActivationOfOp activation() const {
    if (bounds_are_inputs_)
      return {{ActivationKind::kClip, std::numeric_limits<float>::lowest(),
               std::numeric_limits<float>::max()},
              true};
    return {{ActivationKind::kClip, float(min_), float(max_)}, false};
  }

  explicit ClipOp(const NodeInfo& node) : bounds_are_inputs_(node.opset() >= 11) {
    if (!bounds_are_inputs_) {
      min_ = node.attr_float("min", std::numeric_limits<float>::lowest());
      max_ = node.attr_float("max", std::numeric_limits<float>::max());
    }
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const bool ok =
        bounds_are_inputs_ ? is_float(x.dtype) || is_integer(x.dtype) : is_float(x.dtype);
    if (!ok) fail("does not support dtype {}", dtype_name(x.dtype));
    for (size_t i : {1, 2}) {
      if (!bounds_are_inputs_ || !ctx.has_input(i)) continue;
      const Meta& bound = ctx.input(i);
      if (bound.dtype != x.dtype)
        fail("bound input {} has dtype {}, but the input is {}", i, dtype_name(bound.dtype),
             dtype_name(x.dtype));
      if (bound.shape.is_static() && element_count(bound.shape.values()) != 1)
        fail("bound input {} must be a scalar, not shape {}", i, bound.shape.str());
    }
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 2);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const bool visited = visit_numeric(x.dtype(), [&]<class T>(Type<T>) {
      using C = compute_t<T>;
      C lo = no_lower_bound<C>(), hi = no_upper_bound<C>();
      if (!bounds_are_inputs_) {
        lo = saturate_cast<C>(min_);
        hi = saturate_cast<C>(max_);
      }
      if (bounds_are_inputs_ && ctx.has_input(1)) lo = C(scalar_input<T>(ctx, 1));
      if (bounds_are_inputs_ && ctx.has_input(2)) hi = C(scalar_input<T>(ctx, 2));
      // Lower bound first, so min > max gives max everywhere (as the spec says); NaN stays NaN.
      auto clip = [lo, hi](C v) {
        v = v < lo ? lo : v;
        return hi < v ? hi : v;
      };
      broadcast_map(y.data<T>(), y.shape(), clip, operand<T>(x));
    });
    if (!visited) fail_internal("Clip kernel reached with dtype {}", dtype_name(x.dtype()));
  }

 private:
  // Bound shapes may be symbolic at infer time, so their size is checked here too.
  template <class T>
  static T scalar_input(const KernelContext& ctx, size_t i) {
    const Tensor& t = ctx.input(i);
    if (t.numel() != 1) fail("bound input {} must be a scalar, not shape {}", i, t.shape_str());
    return t.data<T>()[0];
  }

  bool bounds_are_inputs_;
  double min_ = 0, max_ = 0;
};

// SwiGLU (opset 28): y = Swish(a, alpha) * b, a gated linear unit; a and b have the same shape.
class SwiGluOp final : public Op {
 public:
  explicit SwiGluOp(const NodeInfo& node) : alpha_(node.attr_float("alpha", 1.0f)) {}

  void infer(InferContext& ctx) const override {
    const Meta& a = ctx.input(0);
    const Meta& b = ctx.input(1);
    if (!is_float(a.dtype)) fail("does not support dtype {}", dtype_name(a.dtype));
    if (b.dtype != a.dtype)
      fail("input 'b' has dtype {}, but 'a' is {}", dtype_name(b.dtype), dtype_name(a.dtype));
    if (!(a.shape == b.shape))
      fail("inputs 'a' {} and 'b' {} must have the same shape", a.shape.str(), b.shape.str());
    ctx.set_output(0, a.dtype, a.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 6);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    Tensor& y = ctx.output(0);
    visit_float(a.dtype(), [&]<class T>(Type<T>) {
      using C = compute_t<T>;
      const C alpha = C(alpha_);
      broadcast_map(
          y.data<T>(), y.shape(), [=](C va, C vb) { return va / (1 + std::exp(-alpha * va)) * vb; },
          operand<T>(a), operand<T>(ctx.input(1)));
    });
  }

 private:
  float alpha_;
};

// PRelu: y = x < 0 ? slope * x : x, with slope broadcast (numpy rules) to x's shape.
// Before opset 7 a 1-D slope holds one value per channel (dim 1 of x) instead.
class PReluOp final : public Op {
 public:
  explicit PReluOp(const NodeInfo& node) : per_channel_1d_(node.opset() < 7) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const Meta& slope = ctx.input(1);
    if (!is_float(x.dtype) && !is_integer(x.dtype))
      fail("does not support dtype {}", dtype_name(x.dtype));
    if (slope.dtype != x.dtype)
      fail("slope has dtype {}, but the input is {}", dtype_name(slope.dtype), dtype_name(x.dtype));
    Shape slope_shape = slope.shape;
    const bool single_value = slope.shape.rank() == 1 && slope.shape[0] == Dim(1);
    if (is_per_channel(x.shape.rank(), slope.shape.rank(), single_value)) {
      slope_shape = Shape();
      for (int64_t d = 0; d < x.shape.rank(); ++d)
        slope_shape.push_back(d == 1 ? slope.shape[0] : 1);
    }
    // Unidirectional: the broadcast result must be x's own shape.
    const Shape out = broadcast_shapes(x.shape, slope_shape);
    if (out.rank() != x.shape.rank())
      fail("slope shape {} does not broadcast to input shape {}", slope.shape.str(), x.shape.str());
    for (int64_t d = 0; d < out.rank(); ++d)
      if (!(out[d] == x.shape[d]))
        fail("slope shape {} does not broadcast to input shape {}", slope.shape.str(),
             x.shape.str());
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 2);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const Tensor& slope = ctx.input(1);
    std::vector<int64_t> slope_shape = slope.shape();
    if (is_per_channel(x.rank(), slope.rank(), slope.rank() == 1 && slope.dim(0) == 1)) {
      slope_shape.assign(size_t(x.rank()), 1);
      slope_shape[1] = slope.dim(0);
    }
    const bool visited = visit_numeric(x.dtype(), [&]<class T>(Type<T>) {
      using C = compute_t<T>;
      broadcast_map(
          y.data<T>(), y.shape(), [](C v, C s) { return is_negative(v) ? wrap_mul(s, v) : v; },
          operand<T>(x), Operand<T>{slope.data<T>(), slope_shape});
    });
    if (!visited) fail_internal("PRelu kernel reached with dtype {}", dtype_name(x.dtype()));
  }

 private:
  bool is_per_channel(int64_t x_rank, int64_t slope_rank, bool single_value) const {
    return per_channel_1d_ && slope_rank == 1 && x_rank >= 2 && !single_value;
  }

  bool per_channel_1d_;
};

}  // namespace

std::optional<ActivationOfOp> activation_of(const Op& op) {
  if (const auto* clip = dynamic_cast<const ClipOp*>(&op)) return clip->activation();
  if (const auto* f = dynamic_cast<const FloatActivationOp*>(&op)) return f->activation();
  return std::nullopt;
}

std::unique_ptr<Op> make_activation(const NodeInfo& node) {
  if (node.op_type() == "Clip") return std::make_unique<ClipOp>(node);
  if (node.op_type() == "PRelu") return std::make_unique<PReluOp>(node);
  if (node.op_type() == "SwiGLU") return std::make_unique<SwiGluOp>(node);
  return std::make_unique<FloatActivationOp>(node);
}

}  // namespace strata::ops
