// LinearAttention (opset 27): recurrent linear attention for prefill and decoding. Inputs are
// packed [B, T, heads * dim]: query [B, T, Hq·dk], key [B, T, Hkv·dk], value [B, T, Hkv·dv],
// past_state [B, Hkv, dk, dv] (zeros when absent), decay g in log space [B, T, Hkv·dk] (per key
// dimension) or [B, T, Hkv] (per head), beta [B, T, Hkv] or [B, T, 1]. Each query head reads the
// state of KV head h / (Hq / Hkv) (grouped-query attention). Per step t, with state S (dk × dv):
//   linear       S = S + k ⊗ v
//   gated        S = exp(g) S + k ⊗ v
//   delta        S = S + β k ⊗ (v - Sᵀk)
//   gated_delta  S = exp(g) S + β k ⊗ (v - (exp(g) S)ᵀk)      (the default)
// and o = scale · qᵀS, scale 1/sqrt(dk) unless the attribute is non-zero. Outputs: o packed as
// [B, T, Hq·dv] and the final state [B, Hkv, dk, dv]. Computed in double.
// Cost per step and KV head: the state update 2·dk·dv (4·dk·dv with the delta term's Sᵀk and its
// outer product) + dk·dv for the decay, and per query head the readout 2·dk·dv.
#include <cmath>

#include "ops/indexing.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

enum class Rule { kLinear, kGated, kDelta, kGatedDelta };

class LinearAttentionOp final : public Op {
 public:
  explicit LinearAttentionOp(const NodeInfo& node)
      : q_heads_(node.required_int("q_num_heads")),
        kv_heads_(node.required_int("kv_num_heads")),
        scale_(node.attr_float("scale", 0.0f)) {
    if (kv_heads_ <= 0 || q_heads_ <= 0 || q_heads_ % kv_heads_ != 0)
      fail("attribute 'q_num_heads' {} must be a positive multiple of 'kv_num_heads' {}", q_heads_,
           kv_heads_);
    const std::string rule = node.attr_string("update_rule", "gated_delta");
    if (rule == "linear") {
      rule_ = Rule::kLinear;
    } else if (rule == "gated") {
      rule_ = Rule::kGated;
    } else if (rule == "delta") {
      rule_ = Rule::kDelta;
    } else if (rule == "gated_delta") {
      rule_ = Rule::kGatedDelta;
    } else {
      fail("attribute 'update_rule' must be linear, gated, delta or gated_delta, not '{}'", rule);
    }
  }

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.dtype(0);
    if (!is_float(dtype)) fail("does not support dtype {}", dtype_name(dtype));
    const char* names[] = {"query", "key", "value", "past_state", "decay", "beta"};
    for (size_t i = 0; i < 6; ++i)
      if (ctx.has_input(i) && ctx.dtype(i) != dtype)
        fail("input '{}' is {}, but 'query' is {}", names[i], dtype_name(ctx.dtype(i)),
             dtype_name(dtype));
    for (size_t i : {0, 1, 2})
      if (ctx.shape(i).rank() != 3)
        fail("input '{}' must be packed [batch, time, heads * dim], got shape {}", names[i],
             ctx.shape(i).str());
    const bool gated = rule_ == Rule::kGated || rule_ == Rule::kGatedDelta;
    const bool delta = rule_ == Rule::kDelta || rule_ == Rule::kGatedDelta;
    if (gated && !ctx.has_input(4)) fail("update rule needs input 'decay'");
    if (delta && !ctx.has_input(5)) fail("update rule needs input 'beta'");
    const Shape& q = ctx.shape(0);
    const Shape& v = ctx.shape(2);
    const Dim batch = q[0], dv_total = v[2];
    Shape out{batch, q[1], dv_total};
    if (dv_total.is_static()) {
      if (dv_total.value() % kv_heads_ != 0)
        fail("input 'value' last dim {} is not a multiple of kv_num_heads {}", dv_total.value(),
             kv_heads_);
      out[2] = Dim(dv_total.value() / kv_heads_ * q_heads_);
    }
    ctx.set_output(0, dtype, out);
    if (ctx.num_outputs() > 1 && q[2].is_static() && v[2].is_static()) {
      if (q[2].value() % q_heads_ != 0)
        fail("input 'query' last dim {} is not a multiple of q_num_heads {}", q[2].value(),
             q_heads_);
      ctx.set_output(1, dtype,
                     Shape{batch, Dim(kv_heads_), Dim(q[2].value() / q_heads_),
                           Dim(v[2].value() / kv_heads_)});
    } else if (ctx.num_outputs() > 1) {
      throw NotStatic{};  // the state's shape needs the head sizes
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const auto& q = ctx.input(0).shape;
    const double b = double(q[0].value()), t = double(q[1].value());
    const double dk = double(q[2].value()) / double(q_heads_);
    const double dv = double(ctx.input(2).shape[2].value()) / double(kv_heads_);
    const bool gated = rule_ == Rule::kGated || rule_ == Rule::kGatedDelta;
    const bool delta = rule_ == Rule::kDelta || rule_ == Rule::kGatedDelta;
    const double update = (delta ? 4 : 2) + (gated ? 1 : 0);
    Cost c = data_movement_cost(ctx);
    c.flops = b * t * dk * dv * (double(kv_heads_) * update + double(q_heads_) * 2);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const int64_t batch = q.dim(0), steps = q.dim(1);
    const int64_t dk = q.dim(2) / q_heads_, dv = v.dim(2) / kv_heads_;
    if (k.dim(0) != batch || k.dim(1) != steps || k.dim(2) != kv_heads_ * dk || v.dim(0) != batch ||
        v.dim(1) != steps)
      fail("inputs 'key' {} and 'value' {} do not match 'query' {} for {} KV heads of size {}",
           k.shape_str(), v.shape_str(), q.shape_str(), kv_heads_, dk);
    const bool gated = rule_ == Rule::kGated || rule_ == Rule::kGatedDelta;
    const bool delta = rule_ == Rule::kDelta || rule_ == Rule::kGatedDelta;
    // Decay per key dimension or per head; beta per head or one for all heads.
    int64_t decay_width = 0, beta_width = 0;
    if (gated) {
      const Tensor& g = ctx.input(4);
      decay_width = g.rank() == 3 ? g.dim(2) : -1;
      if (g.rank() != 3 || g.dim(0) != batch || g.dim(1) != steps ||
          (decay_width != kv_heads_ * dk && decay_width != kv_heads_))
        fail("input 'decay' of shape {} must be [batch, time, kv heads * dk] or [.., kv heads]",
             g.shape_str());
    }
    if (delta) {
      const Tensor& beta = ctx.input(5);
      beta_width = beta.rank() == 3 ? beta.dim(2) : -1;
      if (beta.rank() != 3 || beta.dim(0) != batch || beta.dim(1) != steps ||
          (beta_width != kv_heads_ && beta_width != 1))
        fail("input 'beta' of shape {} must be [batch, time, kv heads] or [batch, time, 1]",
             beta.shape_str());
    }
    if (ctx.has_input(3)) {
      const Tensor& past = ctx.input(3);
      if (past.numel() != batch * kv_heads_ * dk * dv)
        fail("input 'past_state' of shape {} must be [{}, {}, {}, {}]", past.shape_str(), batch,
             kv_heads_, dk, dv);
    }
    const double scale = scale_ != 0 ? double(scale_) : 1 / std::sqrt(double(dk));
    const int64_t group = q_heads_ / kv_heads_;
    visit_float(q.dtype(), [&]<class T>(Type<T>) {
      auto at = [](const Tensor& t, int64_t i) { return double(t.data<T>()[i]); };
      T* out = ctx.output(0).data<T>();
      std::vector<double> s(static_cast<size_t>(dk * dv));
      std::vector<double> sk(static_cast<size_t>(dv));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < kv_heads_; ++h) {
          for (int64_t i = 0; i < dk * dv; ++i)
            s[size_t(i)] =
                ctx.has_input(3) ? at(ctx.input(3), (b * kv_heads_ + h) * dk * dv + i) : 0;
          for (int64_t t = 0; t < steps; ++t) {
            const int64_t row = b * steps + t;
            const int64_t k0 = row * kv_heads_ * dk + h * dk, v0 = row * kv_heads_ * dv + h * dv;
            if (gated)
              for (int64_t i = 0; i < dk; ++i) {
                const int64_t gi = decay_width == kv_heads_ ? row * kv_heads_ + h : k0 + i;
                const double decay = std::exp(at(ctx.input(4), gi));
                for (int64_t j = 0; j < dv; ++j) s[size_t(i * dv + j)] *= decay;
              }
            double beta = 1;
            if (delta) {
              beta = at(ctx.input(5), beta_width == 1 ? row : row * kv_heads_ + h);
              for (int64_t j = 0; j < dv; ++j) {
                sk[size_t(j)] = 0;
                for (int64_t i = 0; i < dk; ++i)
                  sk[size_t(j)] += s[size_t(i * dv + j)] * at(k, k0 + i);
              }
            }
            for (int64_t i = 0; i < dk; ++i)
              for (int64_t j = 0; j < dv; ++j) {
                const double vj = at(v, v0 + j) - (delta ? sk[size_t(j)] : 0.0);
                s[size_t(i * dv + j)] += beta * at(k, k0 + i) * vj;
              }
            for (int64_t hq = h * group; hq < (h + 1) * group; ++hq) {
              const int64_t q0 = row * q_heads_ * dk + hq * dk;
              const int64_t o0 = row * q_heads_ * dv + hq * dv;
              for (int64_t j = 0; j < dv; ++j) {
                double acc = 0;
                for (int64_t i = 0; i < dk; ++i) acc += at(q, q0 + i) * s[size_t(i * dv + j)];
                out[o0 + j] = from_acc<T>(scale * acc);
              }
            }
          }
          if (ctx.num_outputs() > 1)
            for (int64_t i = 0; i < dk * dv; ++i)
              ctx.output(1).data<T>()[(b * kv_heads_ + h) * dk * dv + i] =
                  from_acc<T>(s[size_t(i)]);
        }
    });
  }

 private:
  int64_t q_heads_;
  int64_t kv_heads_;
  float scale_;
  Rule rule_ = Rule::kGatedDelta;
};

}  // namespace

std::unique_ptr<Op> make_linear_attention(const NodeInfo& node) {
  return std::make_unique<LinearAttentionOp>(node);
}

}  // namespace strata::ops
