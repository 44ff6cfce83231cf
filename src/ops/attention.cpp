// Attention (opset 23): softmax(Q·Kᵀ·scale, softcapped, plus a mask) · V over heads, with
// grouped-query attention (kv heads repeated to the query heads), a key/value cache (past_key and
// past_value are put before K and V, and returned as present_key / present_value), causal masking
// aligned to the end of the cache, boolean or additive masks broadcast to [B, Hq, Sq, T] (padded
// with "masked" up to T), and the optional QK output at the point qk_matmul_output_mode chooses
// (0: Q·Kᵀ·scale, softcapped when softcap is set; 1: the same; 2: with the mask added;
// 3: after the softmax). 3-D inputs [B, S, heads·size] take q_num_heads / kv_num_heads and give a
// 3-D Y. Computed in double, rounded once.
// Cost: 2·B·Hq·Sq·T·(D + Dv) FLOPs for the two products, plus 5 per score for the softmax (and
// 3 more with softcap).
#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::ops {

namespace {

// The geometry of one call, from the input shapes (static) or metas (dims may be symbolic).
struct AttentionDims {
  Dim batch, q_seq, kv_seq, past, total;
  int64_t q_heads = 0, kv_heads = 0, head = 0, v_head = 0;
  bool three_d = false;
};

class AttentionOp final : public Op {
 public:
  explicit AttentionOp(const NodeInfo& node)
      : causal_(node.attr_int("is_causal", 0) != 0),
        q_heads_attr_(node.attr_int("q_num_heads", 0)),
        kv_heads_attr_(node.attr_int("kv_num_heads", 0)),
        qk_mode_(node.attr_int("qk_matmul_output_mode", 0)),
        has_scale_(node.has_attr("scale")),
        scale_(node.attr_float("scale", 1.0f)),
        softcap_(node.attr_float("softcap", 0.0f)) {
    if (qk_mode_ < 0 || qk_mode_ > 3)
      fail("attribute 'qk_matmul_output_mode' must be 0 to 3, got {}", qk_mode_);
  }

  AttentionAttributes attributes() const {
    return {causal_, q_heads_attr_, kv_heads_attr_, qk_mode_, has_scale_, scale_, softcap_};
  }

  void infer(InferContext& ctx) const override {
    for (size_t i = 0; i < 3; ++i)
      if (!is_float(ctx.dtype(i))) fail("input {} has dtype {}", i, dtype_name(ctx.dtype(i)));
    if (ctx.has_input(4) != ctx.has_input(5))
      fail("past_key and past_value go together: one of them is missing");
    const AttentionDims d =
        dims(ctx.shape(0), ctx.shape(1), ctx.shape(2), ctx.has_input(4) ? &ctx.shape(4) : nullptr);
    const DType t = ctx.dtype(0);
    if (d.three_d)
      ctx.set_output(0, t, Shape{d.batch, d.q_seq, Dim(d.q_heads * d.v_head)});
    else
      ctx.set_output(0, t, Shape{d.batch, Dim(d.q_heads), d.q_seq, Dim(d.v_head)});
    if (ctx.num_outputs() > 1)
      ctx.set_output(1, t, Shape{d.batch, Dim(d.kv_heads), d.total, Dim(d.head)});
    if (ctx.num_outputs() > 2)
      ctx.set_output(2, t, Shape{d.batch, Dim(d.kv_heads), d.total, Dim(d.v_head)});
    if (ctx.num_outputs() > 3)
      ctx.set_output(3, t, Shape{d.batch, Dim(d.q_heads), d.q_seq, d.total});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const AttentionDims d = dims(ctx.input(0).shape, ctx.input(1).shape, ctx.input(2).shape,
                                 ctx.has_input(4) ? &ctx.input(4).shape : nullptr);
    if (!d.batch.is_static() || !d.q_seq.is_static() || !d.total.is_static()) return std::nullopt;
    const double scores = double(d.batch.value()) * double(d.q_heads) * double(d.q_seq.value()) *
                          double(d.total.value());
    c.macs = scores * double(d.head + d.v_head);
    c.flops = 2 * c.macs + scores * (5 + (softcap_ > 0 ? 3 : 0));
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Shape q_shape = Shape::of(ctx.input(0).shape());
    const Shape past_shape = ctx.has_input(4) ? Shape::of(ctx.input(4).shape()) : Shape{};
    const AttentionDims d =
        dims(q_shape, Shape::of(ctx.input(1).shape()), Shape::of(ctx.input(2).shape()),
             ctx.has_input(4) ? &past_shape : nullptr);
    const int64_t B = d.batch.value(), Sq = d.q_seq.value(), Skv = d.kv_seq.value();
    const int64_t P = d.past.value(), T = d.total.value();
    const int64_t Hq = d.q_heads, Hkv = d.kv_heads, D = d.head, Dv = d.v_head;
    // Everything in [B, heads, seq, size] order, in double.
    const std::vector<double> q = heads_first(ctx.input(0), d.three_d, B, Sq, Hq, D);
    const std::vector<double> k_new = heads_first(ctx.input(1), d.three_d, B, Skv, Hkv, D);
    const std::vector<double> v_new = heads_first(ctx.input(2), d.three_d, B, Skv, Hkv, Dv);
    const std::vector<double> k = with_past(ctx, 4, k_new, B, Hkv, P, Skv, D);
    const std::vector<double> v = with_past(ctx, 5, v_new, B, Hkv, P, Skv, Dv);
    const std::vector<double> bias = mask_bias(ctx, B, Hq, Sq, T, P);
    const double scale = has_scale_ ? double(scale_) : 1 / std::sqrt(double(D));
    std::vector<double> y(size_t(B * Hq * Sq * Dv)), qk_out(size_t(B * Hq * Sq * T));
    std::vector<double> scores(static_cast<size_t>(T));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t kvh = h / (Hq / Hkv);  // grouped-query: each kv head serves Hq / Hkv heads
        for (int64_t i = 0; i < Sq; ++i) {
          const double* qi = q.data() + size_t(((b * Hq + h) * Sq + i) * D);
          double top = -std::numeric_limits<double>::infinity();
          for (int64_t j = 0; j < T; ++j) {
            const double* kj = k.data() + size_t(((b * Hkv + kvh) * T + j) * D);
            double dot = 0;
            for (int64_t e = 0; e < D; ++e) dot += qi[e] * kj[e];
            dot *= scale;
            if (softcap_ > 0) dot = std::tanh(dot / softcap_) * softcap_;
            const double masked = dot + bias[size_t(((b * Hq + h) * Sq + i) * T + j)];
            qk_out[size_t(((b * Hq + h) * Sq + i) * T + j)] = qk_mode_ == 2 ? masked : dot;
            scores[size_t(j)] = masked;
            top = std::max(top, masked);
          }
          // A row with every key masked attends to nothing: zeros, not 0/0.
          const bool none = !(top > -std::numeric_limits<double>::infinity());
          double sum = 0;
          for (double& s : scores) sum += (s = none ? 0.0 : std::exp(s - top));
          if (none) sum = 1;
          double* yi = y.data() + size_t(((b * Hq + h) * Sq + i) * Dv);
          for (int64_t j = 0; j < T; ++j) {
            const double p = scores[size_t(j)] / sum;
            if (qk_mode_ == 3) qk_out[size_t(((b * Hq + h) * Sq + i) * T + j)] = p;
            const double* vj = v.data() + size_t(((b * Hkv + kvh) * T + j) * Dv);
            for (int64_t e = 0; e < Dv; ++e) yi[e] += p * vj[e];
          }
        }
      }
    store(ctx.output(0), d.three_d ? seq_first(y, B, Hq, Sq, Dv) : y);
    if (ctx.num_outputs() > 1 && ctx.output(1).defined()) store(ctx.output(1), k);
    if (ctx.num_outputs() > 2 && ctx.output(2).defined()) store(ctx.output(2), v);
    if (ctx.num_outputs() > 3 && ctx.output(3).defined()) store(ctx.output(3), qk_out);
  }

 private:
  AttentionDims dims(const Shape& q, const Shape& k, const Shape& v, const Shape* past) const {
    if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4))
      fail("Q, K and V must all be 3-D or all 4-D, got {}, {} and {}", q.str(), k.str(), v.str());
    AttentionDims d;
    d.three_d = q.rank() == 3;
    d.batch = q[0];
    auto static_dim = [](const Dim& dim, const char* what) {
      if (!dim.is_static()) fail("{} must be known before running", what);
      return dim.value();
    };
    if (d.three_d) {
      if (q_heads_attr_ <= 0 || kv_heads_attr_ <= 0)
        fail("3-D inputs need attributes 'q_num_heads' and 'kv_num_heads'");
      d.q_heads = q_heads_attr_;
      d.kv_heads = kv_heads_attr_;
      d.q_seq = q[1];
      d.kv_seq = k[1];
      const int64_t qh = static_dim(q[2], "Q's hidden size"),
                    kh = static_dim(k[2], "K's hidden size");
      const int64_t vh = static_dim(v[2], "V's hidden size");
      if (qh % d.q_heads || kh % d.kv_heads || vh % d.kv_heads)
        fail("hidden sizes {}, {}, {} do not divide into {} and {} heads", qh, kh, vh, d.q_heads,
             d.kv_heads);
      d.head = qh / d.q_heads;
      d.v_head = vh / d.kv_heads;
      if (kh / d.kv_heads != d.head) fail("Q and K have different head sizes");
    } else {
      d.q_heads = static_dim(q[1], "Q's head count");
      d.kv_heads = static_dim(k[1], "K's head count");
      d.q_seq = q[2];
      d.kv_seq = k[2];
      d.head = static_dim(q[3], "Q's head size");
      d.v_head = static_dim(v[3], "V's head size");
      if (static_dim(k[3], "K's head size") != d.head) fail("Q and K have different head sizes");
    }
    if (d.kv_heads <= 0 || d.q_heads % d.kv_heads)
      fail("{} query heads cannot share {} key/value heads", d.q_heads, d.kv_heads);
    // The kernels index K and V with Q's batch and K's sequence and heads: known sizes must agree.
    auto agree = [](const Dim& a, const Dim& b, const char* what) {
      if (a.is_static() && b.is_static() && a.value() != b.value())
        fail("{} differ: {} and {}", what, a.value(), b.value());
    };
    agree(q[0], k[0], "Q's and K's batch sizes");
    agree(q[0], v[0], "Q's and V's batch sizes");
    agree(d.kv_seq, d.three_d ? v[1] : v[2], "K's and V's sequence lengths");
    if (!d.three_d) agree(k[1], v[1], "K's and V's head counts");
    if (past && past->rank() != 4) fail("past_key must be 4-D, got {}", past->str());
    d.past = past ? (*past)[2] : Dim(0);
    d.total = d.past + d.kv_seq;
    return d;
  }

  // A [B, S, H·E] tensor as [B, H, S, E]; a 4-D one as it is.
  static std::vector<double> heads_first(const Tensor& t, bool three_d, int64_t B, int64_t S,
                                         int64_t H, int64_t E) {
    const std::vector<double> x = t.to_double();
    if (!three_d) return x;
    std::vector<double> out(x.size());
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t e = 0; e < E; ++e)
            out[size_t(((b * H + h) * S + s) * E + e)] = x[size_t(((b * S + s) * H + h) * E + e)];
    return out;
  }

  static std::vector<double> seq_first(const std::vector<double>& x, int64_t B, int64_t H,
                                       int64_t S, int64_t E) {
    std::vector<double> out(x.size());
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t s = 0; s < S; ++s)
          for (int64_t e = 0; e < E; ++e)
            out[size_t(((b * S + s) * H + h) * E + e)] = x[size_t(((b * H + h) * S + s) * E + e)];
    return out;
  }

  // The cache (input `slot`) then the new values, along the sequence.
  static std::vector<double> with_past(const KernelContext& ctx, size_t slot,
                                       const std::vector<double>& fresh, int64_t B, int64_t H,
                                       int64_t P, int64_t S, int64_t E) {
    if (!ctx.has_input(slot)) return fresh;
    const std::vector<double> past = ctx.input(slot).to_double();
    if (int64_t(past.size()) != B * H * P * E)
      fail("input {} has shape {}; [{}, {}, {}, {}] is needed", slot, ctx.input(slot).shape_str(),
           B, H, P, E);
    std::vector<double> out(size_t(B * H * (P + S) * E));
    // Through data(): an empty cache (P = 0) has no element to take the address of.
    for (int64_t bh = 0; bh < B * H; ++bh) {
      std::copy_n(past.data() + bh * P * E, P * E, out.data() + bh * (P + S) * E);
      std::copy_n(fresh.data() + bh * S * E, S * E, out.data() + (bh * (P + S) + P) * E);
    }
    return out;
  }

  // The additive bias per score [B, Hq, Sq, T]: the mask (bool: 0 or -inf; float: as it is)
  // broadcast and padded with -inf past its last column; the causal mask (a query at i sees keys
  // up to i + offset: the cache's length, or, with nonpad_kv_seqlen and no cache,
  // nonpad_kv_seqlen[b] - Sq); keys at or past nonpad_kv_seqlen[b] masked.
  std::vector<double> mask_bias(const KernelContext& ctx, int64_t B, int64_t H, int64_t Sq,
                                int64_t T, int64_t P) const {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> bias(size_t(B * H * Sq * T), 0.0);
    if (ctx.has_input(3)) {
      const Tensor& m = ctx.input(3);
      const std::vector<int64_t> shape = m.shape();
      if (shape.empty() || shape.size() > 4)
        fail("attn_mask must have rank 1 to 4, got {}", m.shape_str());
      std::vector<int64_t> full(4 - shape.size(), 1);
      full.insert(full.end(), shape.begin(), shape.end());
      const int64_t want[4] = {B, H, Sq, T};
      for (int d = 0; d < 4; ++d)
        if (full[size_t(d)] != 1 && full[size_t(d)] != want[d] && !(d == 3 && full[3] < T))
          fail("attn_mask of shape {} does not broadcast to [{}, {}, {}, {}]", m.shape_str(), B, H,
               Sq, T);
      const std::vector<double> values = m.to_double();
      const bool boolean = m.dtype() == DType::kBool;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < Sq; ++i)
            for (int64_t j = 0; j < T; ++j) {
              double& out = bias[size_t(((b * H + h) * Sq + i) * T + j)];
              if (full[3] != 1 && j >= full[3]) {  // past the mask's columns: masked
                out = -inf;
                continue;
              }
              const int64_t at =
                  (((full[0] == 1 ? 0 : b) * full[1] + (full[1] == 1 ? 0 : h)) * full[2] +
                   (full[2] == 1 ? 0 : i)) *
                      full[3] +
                  (full[3] == 1 ? 0 : j);
              const double value = values[size_t(at)];
              out = boolean ? (value != 0 ? 0.0 : -inf) : value;
            }
    }
    std::vector<int64_t> valid;  // per batch, keys that count (nonpad_kv_seqlen)
    if (ctx.has_input(6)) {
      valid = ctx.input(6).to_int64();
      if (int64_t(valid.size()) != B)
        fail("nonpad_kv_seqlen holds {} values for a batch of {}", valid.size(), B);
    }
    for (int64_t b = 0; b < B; ++b) {
      const int64_t offset = !valid.empty() && !ctx.has_input(4) ? valid[size_t(b)] - Sq : P;
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < Sq; ++i)
          for (int64_t j = 0; j < T; ++j)
            if ((causal_ && j > i + offset) || (!valid.empty() && j >= valid[size_t(b)]))
              bias[size_t(((b * H + h) * Sq + i) * T + j)] = -inf;
    }
    return bias;
  }

  static void store(Tensor& out, const std::vector<double>& values) {
    visit_float(out.dtype(), [&]<class T>(Type<T>) {
      for (size_t i = 0; i < values.size(); ++i) out.data<T>()[i] = T(float(values[i]));
    });
  }

  bool causal_;
  int64_t q_heads_attr_, kv_heads_attr_, qk_mode_;
  bool has_scale_;
  float scale_, softcap_;
};

}  // namespace

std::optional<AttentionAttributes> attention_attributes(const Op& op) {
  const auto* attention = dynamic_cast<const AttentionOp*>(&op);
  if (!attention) return std::nullopt;
  return attention->attributes();
}

std::unique_ptr<Op> make_attention(const NodeInfo& node) {
  return std::make_unique<AttentionOp>(node);
}

}  // namespace strata::ops
