// Random generators (see docs/random-ops.md):
//   RandomUniform, RandomNormal:          a tensor of attribute `shape`;
//   RandomUniformLike, RandomNormalLike:  the shape of the input (whose values are not read);
//     uniform in [low, high) (defaults 0, 1), or normal with `mean` and `scale` (defaults 0, 1);
//     of type `dtype` (float by default; the Like ops default to the input's type);
//   Bernoulli:    1 with the probability in each input element, else 0; `dtype` defaults to the
//                 input's type;
//   Multinomial:  `sample_size` class indices per batch row of [batch, classes] unnormalised
//                 log-probabilities; int32 (default) or int64.
// With attribute `seed` every run draws the same values (the generator restarts from the seed);
// without it each run draws from a fresh nondeterministic seed. The generator is mt19937_64 (fully
// specified by the C++ standard); uniforms take its top 53 bits; normals use Box-Muller. Random
// ops are never folded ahead of time (is_deterministic).
// Cost (FLOPs per output value): uniform 2 (scale, shift), normal 6 (log, sqrt, cos, two
// multiplies, add), Bernoulli 1 (the comparison); Multinomial 2 per input value (exp and add for
// the cumulative sums) plus ceil(log2(classes + 1)) comparisons per sample (a binary search).
#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <random>

#include "ops/op.h"

namespace strata::ops {

namespace {

enum class RandomKind { kUniform, kNormal, kBernoulli, kMultinomial };

RandomKind random_kind_of(const std::string& op) {
  if (op == "RandomUniform" || op == "RandomUniformLike") return RandomKind::kUniform;
  if (op == "RandomNormal" || op == "RandomNormalLike") return RandomKind::kNormal;
  if (op == "Bernoulli") return RandomKind::kBernoulli;
  return RandomKind::kMultinomial;
}

// Uniform doubles in [0, 1) and standard normals from a seeded mt19937_64.
class Generator {
 public:
  explicit Generator(uint64_t seed) : engine_(seed) {}
  double uniform() { return double(engine_() >> 11) * 0x1.0p-53; }
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 engine_;
};

class RandomOp final : public Op {
 public:
  explicit RandomOp(const NodeInfo& node)
      : kind_(random_kind_of(node.op_type())),
        like_(node.op_type().ends_with("Like") || node.op_type() == "Bernoulli"),
        has_seed_(node.has_attr("seed")),
        seed_(node.attr_float("seed", 0)),
        low_(node.attr_float(kind_ == RandomKind::kNormal ? "mean" : "low", 0)),
        high_(node.attr_float(kind_ == RandomKind::kNormal ? "scale" : "high", 1)),
        sample_size_(node.attr_int("sample_size", 1)) {
    if (node.has_attr("dtype")) {
      const int64_t type = node.attr_int("dtype", 0);
      if (!dtype_from_onnx(int(type), &dtype_) || !type_allowed(dtype_))
        fail("attribute 'dtype' {} is not a type {} produces", type, node.op_type());
    } else if (kind_ == RandomKind::kMultinomial) {
      dtype_ = DType::kI32;
    } else if (!like_) {
      dtype_ = DType::kF32;
    }
    if (!like_ && kind_ != RandomKind::kMultinomial) {
      if (!node.has_attr("shape")) fail("required attribute 'shape' is missing");
      shape_ = node.attr_ints("shape");
      for (int64_t d : shape_)
        if (d < 0) fail("attribute 'shape' has a negative dimension {}", d);
    }
    if (kind_ == RandomKind::kUniform && !(low_ <= high_))
      fail("attribute 'low' {} is above 'high' {}", low_, high_);
    if (kind_ == RandomKind::kMultinomial && sample_size_ < 1)
      fail("attribute 'sample_size' must be positive, got {}", sample_size_);
  }

  void infer(InferContext& ctx) const override {
    if (kind_ == RandomKind::kMultinomial) {
      const Meta& x = ctx.input(0);
      if (!is_float(x.dtype))
        fail("input has dtype {}; a float type is needed", dtype_name(x.dtype));
      if (x.shape.rank() != 2) fail("input must be [batch, classes], got rank {}", x.shape.rank());
      if (x.shape[1].is_static() && x.shape[1].value() < 1) fail("input has no classes");
      ctx.set_output(0, dtype_, Shape{x.shape[0], Dim(sample_size_)});
      return;
    }
    if (!like_) return ctx.set_output(0, dtype_, Shape::of(shape_));
    const Meta& x = ctx.input(0);
    if (kind_ == RandomKind::kBernoulli && !is_float(x.dtype))
      fail("input has dtype {}; probabilities must be a float type", dtype_name(x.dtype));
    const DType out = dtype_ != DType::kUndefined ? dtype_ : x.dtype;
    if (!type_allowed(out))
      fail("cannot produce {}: set attribute 'dtype' to a float type", dtype_name(out));
    ctx.set_output(0, out, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    switch (kind_) {
      case RandomKind::kUniform: return elementwise_cost(ctx, 2);
      case RandomKind::kNormal: return elementwise_cost(ctx, 6);
      case RandomKind::kBernoulli: return elementwise_cost(ctx, 1);
      case RandomKind::kMultinomial: break;
    }
    // Exp and add per class, then a binary search over the classes per sample.
    Cost c = elementwise_cost(ctx, 0);
    const Dim classes = ctx.input(0).shape[1];
    const double search =
        classes.is_static() ? std::ceil(std::log2(double(classes.value()) + 1)) : 1;
    c.flops = 2 * ctx.numel_in(0) + search * ctx.numel_out(0);
    return c;
  }

  bool is_deterministic() const override { return false; }

  void run(KernelContext& ctx) const override {
    Generator gen(has_seed_ ? uint64_t(std::bit_cast<uint32_t>(seed_)) : std::random_device{}());
    Tensor& y = ctx.output(0);
    if (kind_ == RandomKind::kMultinomial) return multinomial(ctx.input(0), y, gen);
    std::vector<double> p;
    if (kind_ == RandomKind::kBernoulli) p = ctx.input(0).to_double();
    const auto fill = [&]<class T>(Type<T>) {
      T* out = y.data<T>();
      for (int64_t i = 0; i < y.numel(); ++i) {
        double v;
        if (kind_ == RandomKind::kUniform)
          v = low_ + (high_ - low_) * gen.uniform();
        else if (kind_ == RandomKind::kNormal)
          v = low_ + high_ * gen.normal();
        else
          v = gen.uniform() < p[size_t(i)] ? 1 : 0;
        out[i] = T(v);
      }
    };
    if (!visit_all(y.dtype(), fill))
      fail_internal("{} kernel reached with {}", "random", dtype_name(y.dtype()));
  }

 private:
  bool type_allowed(DType t) const {
    if (kind_ == RandomKind::kMultinomial) return t == DType::kI32 || t == DType::kI64;
    if (kind_ == RandomKind::kBernoulli) return is_float(t) || is_integer(t) || t == DType::kBool;
    return is_float(t);
  }

  // Each sample: a uniform point on the cumulative sums of exp(x - max) of its row.
  void multinomial(const Tensor& x, Tensor& y, Generator& gen) const {
    const int64_t batch = x.dim(0), classes = x.dim(1);
    const std::vector<double> logits = x.to_double();
    std::vector<double> cumulative(static_cast<size_t>(classes));
    std::vector<int64_t> drawn(size_t(y.numel()));
    for (int64_t b = 0; b < batch; ++b) {
      const double* row = logits.data() + b * classes;
      double top = -INFINITY;
      for (int64_t c = 0; c < classes; ++c) top = std::max(top, row[c]);
      double sum = 0;
      for (int64_t c = 0; c < classes; ++c) {
        sum += std::isfinite(top) ? std::exp(row[c] - top) : 0;
        cumulative[size_t(c)] = sum;
      }
      if (!(sum > 0) || !std::isfinite(sum))
        fail("row {} of the input holds no finite log-probability", b);
      for (int64_t s = 0; s < sample_size_; ++s) {
        const double point = gen.uniform() * sum;
        const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), point);
        drawn[size_t(b * sample_size_ + s)] =
            std::min<int64_t>(int64_t(it - cumulative.begin()), classes - 1);
      }
    }
    visit_integer(y.dtype(), [&]<class T>(Type<T>) {
      for (int64_t i = 0; i < y.numel(); ++i) y.data<T>()[i] = T(drawn[size_t(i)]);
    });
  }

  RandomKind kind_;
  bool like_;
  bool has_seed_;
  float seed_;
  double low_, high_;  // low and high, or mean and scale
  int64_t sample_size_;
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> shape_;
};

}  // namespace

std::unique_ptr<Op> make_random(const NodeInfo& node) {
  return std::make_unique<RandomOp>(node);
}

}  // namespace strata::ops
