// FlexAttention (domain ai.onnx.preview, version 1): scaled dot-product attention over rank-4
// [batch, heads, sequence, head size] inputs with two optional subgraphs: score_mod rewrites the
// scores Q·Kᵀ·scale before the softmax, prob_mod the probabilities after it. Each takes the whole
// [B, Hq, L, S] tensor as its one input and gives one of the same dtype and shape. scale defaults
// to 1/sqrt(head size); K and V may have fewer heads than Q (grouped-query: each K/V head serves
// Hq/Hkv consecutive query heads). Scores and probabilities are float (double for double inputs):
// computed in double, rounded once per stage, as the subgraphs see them.
// Without subgraphs `run` chains the stages; with them the session runs the node
// (src/runtime/control_flow.cpp), calling the stages of flex_attention.h around the subgraphs.
// Cost: as Attention's, 2·B·Hq·L·S·(D + Dv) FLOPs for the two products plus 5 per score for the
// softmax; plus one run of each subgraph.
#include "ops/flex_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/control_flow.h"
#include "passes/infer_shapes.h"

namespace strata::ops {

namespace {

struct FlexDims {
  Dim batch, q_seq, kv_seq;
  int64_t q_heads = 0, kv_heads = 0, head = 0, v_head = 0;
};

FlexDims flex_dims(const Shape& q, const Shape& k, const Shape& v) {
  const char* names[] = {"Q", "K", "V"};
  const Shape* shapes[] = {&q, &k, &v};
  for (size_t i = 0; i < 3; ++i)
    if (shapes[i]->rank() != 4)
      fail("input {} is {}: it must be rank 4 [batch, heads, sequence, head size]", names[i],
           shapes[i]->str());
  FlexDims d{q[0], q[2], k[2], q[1].value(), k[1].value(), q[3].value(), v[3].value()};
  if (v[1].value() != d.kv_heads)
    fail("K has {} heads but V has {}: they must match", d.kv_heads, v[1].value());
  if (d.kv_heads <= 0 || d.q_heads % d.kv_heads != 0)
    fail("Q has {} heads, not a multiple of K's and V's {}", d.q_heads, d.kv_heads);
  if (k[3].value() != d.head)
    fail("Q's head size is {} but K's is {}: they must match", d.head, k[3].value());
  if (q[0].is_static() && k[0].is_static() && v[0].is_static() &&
      (k[0].value() != q[0].value() || v[0].value() != q[0].value()))
    fail("Q, K and V have batch sizes {}, {} and {}: they must match", q[0].value(), k[0].value(),
         v[0].value());
  if (k[2].is_static() && v[2].is_static() && k[2].value() != v[2].value())
    fail("K has {} keys but V has {} values: they must match", k[2].value(), v[2].value());
  return d;
}

// Writes doubles into a float tensor of `dtype` and `shape`.
Tensor float_tensor(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  visit_float(dtype, [&](auto type) {
    using T = typename decltype(type)::type;
    T* dst = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, double>)
        dst[i] = values[i];
      else
        dst[i] = T(float(values[i]));
    }
  });
  return t;
}

class FlexAttentionOp final : public Op {
 public:
  explicit FlexAttentionOp(const NodeInfo& node)
      : formal_inputs_(node.num_inputs() - node.num_implicit_inputs()),
        attributes_{node.has_attr("scale"), node.attr_float("scale", 1.0f)} {
    if (formal_inputs_ != 3) fail("FlexAttention takes 3 inputs (Q, K, V), not {}", formal_inputs_);
    for (const char* name : {"score_mod", "prob_mod"}) {
      if (!node.has_attr(name)) continue;
      const ir::Graph& body = node.required_graph(name);
      if (body.inputs.size() != 1 || body.outputs.size() != 1)
        fail("its {} has {} inputs and {} outputs: it must take one tensor and give one", name,
             body.inputs.size(), body.outputs.size());
      mods_.push_back({name, &body, capture_inputs(node, body)});
    }
  }

  FlexAttentionAttributes attributes() const { return attributes_; }
  bool runs_subgraphs() const override { return !mods_.empty(); }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.dtype(0);
    for (size_t i = 0; i < 3; ++i)
      if (!is_float(ctx.dtype(i)) || ctx.dtype(i) != t)
        fail("input {} is {}: Q, K and V must be float tensors of one dtype ({})", i,
             dtype_name(ctx.dtype(i)), dtype_name(t));
    const FlexDims d = flex_dims(ctx.shape(0), ctx.shape(1), ctx.shape(2));
    ctx.set_output(0, t, Shape{d.batch, Dim(d.q_heads), d.q_seq, Dim(d.v_head)});
    const DType compute = flex_attention_compute_dtype(t);
    for (const Mod& mod : mods_) {
      const std::vector<Meta> out = passes::infer_subgraph(*mod.body, bound(ctx, mod, d, compute));
      if (out[0].present() && out[0].dtype != compute)
        fail("its {} gives {}: it must keep the scores' dtype ({})", mod.name,
             dtype_name(out[0].dtype), dtype_name(compute));
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const FlexDims d = flex_dims(ctx.input(0).shape, ctx.input(1).shape, ctx.input(2).shape);
    if (!d.batch.is_static() || !d.q_seq.is_static() || !d.kv_seq.is_static()) return std::nullopt;
    const double scores = double(d.batch.value()) * double(d.q_heads) * double(d.q_seq.value()) *
                          double(d.kv_seq.value());
    c.macs = scores * double(d.head + d.v_head);
    c.flops = 2 * c.macs + 5 * scores;
    const DType compute = flex_attention_compute_dtype(ctx.input(0).dtype);
    for (const Mod& mod : mods_) {
      const std::optional<Cost> body =
          passes::subgraph_cost(*mod.body, bound(ctx, mod, d, compute));
      if (!body) return std::nullopt;
      c.macs += body->macs;
      c.flops += body->flops;
      c.bytes_read += body->bytes_read;
      c.bytes_written += body->bytes_written;
    }
    return c;
  }

  void run(KernelContext& ctx) const override {
    if (!mods_.empty()) fail_internal("a FlexAttention with subgraphs is run by the session");
    Tensor scores = flex_attention_scores(ctx.input(0), ctx.input(1), attributes_);
    flex_attention_softmax(scores);
    flex_attention_weighted_values(scores, ctx.input(2), ctx.output(0));
  }

 private:
  struct Mod {
    const char* name;
    const ir::Graph* body;
    std::vector<size_t> captures;  // node input of each capture
  };

  // The metas a subgraph is called with: the scores, then its captures.
  template <class Ctx>
  std::vector<Meta> bound(const Ctx& ctx, const Mod& mod, const FlexDims& d, DType compute) const {
    std::vector<Meta> metas = {
        {compute, Shape{d.batch, Dim(d.q_heads), d.q_seq, d.kv_seq}, nullptr, false}};
    for (size_t i : mod.captures) metas.push_back(ctx.has_input(i) ? ctx.input(i) : Meta{});
    return metas;
  }

  size_t formal_inputs_;
  FlexAttentionAttributes attributes_;
  std::vector<Mod> mods_;
};

}  // namespace

std::optional<FlexAttentionAttributes> flex_attention_attributes(const Op& op) {
  const auto* flex = dynamic_cast<const FlexAttentionOp*>(&op);
  if (!flex) return std::nullopt;
  return flex->attributes();
}

DType flex_attention_compute_dtype(DType input) {
  return input == DType::kF64 ? DType::kF64 : DType::kF32;
}

Tensor flex_attention_scores(const Tensor& q, const Tensor& k, const FlexAttentionAttributes& a) {
  const FlexDims d = flex_dims(Shape::of(q.shape()), Shape::of(k.shape()), Shape::of(k.shape()));
  const int64_t B = d.batch.value(), L = d.q_seq.value(), S = d.kv_seq.value();
  const int64_t Hq = d.q_heads, Hkv = d.kv_heads, D = d.head;
  const double scale = a.has_scale ? double(a.scale) : 1 / std::sqrt(double(D));
  const std::vector<double> qv = q.to_double(), kv = k.to_double();
  std::vector<double> scores(size_t(B * Hq * L * S));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = h / (Hq / Hkv);
      for (int64_t i = 0; i < L; ++i) {
        const double* qi = qv.data() + size_t(((b * Hq + h) * L + i) * D);
        for (int64_t j = 0; j < S; ++j) {
          const double* kj = kv.data() + size_t(((b * Hkv + kvh) * S + j) * D);
          double dot = 0;
          for (int64_t e = 0; e < D; ++e) dot += qi[e] * kj[e];
          scores[size_t(((b * Hq + h) * L + i) * S + j)] = dot * scale;
        }
      }
    }
  return float_tensor(flex_attention_compute_dtype(q.dtype()), {B, Hq, L, S}, scores);
}

void flex_attention_softmax(Tensor& scores) {
  std::vector<double> s = scores.to_double();
  const int64_t S = scores.shape().back();
  for (size_t row = 0; S > 0 && row < s.size(); row += size_t(S)) {
    double top = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < S; ++j) top = std::max(top, s[row + size_t(j)]);
    // A row with every key masked attends to nothing: zeros, not 0/0 (as Attention).
    const bool none = !(top > -std::numeric_limits<double>::infinity());
    double sum = 0;
    for (int64_t j = 0; j < S; ++j)
      sum += (s[row + size_t(j)] = none ? 0.0 : std::exp(s[row + size_t(j)] - top));
    for (int64_t j = 0; j < S; ++j) s[row + size_t(j)] = none ? 0.0 : s[row + size_t(j)] / sum;
  }
  scores = float_tensor(scores.dtype(), scores.shape(), s);
}

void flex_attention_weighted_values(const Tensor& probs, const Tensor& v, Tensor& y) {
  const std::vector<int64_t>& ps = probs.shape();
  const int64_t B = ps[0], Hq = ps[1], L = ps[2], S = ps[3];
  const int64_t Hkv = v.shape()[1], Dv = v.shape()[3];
  const std::vector<double> p = probs.to_double(), vv = v.to_double();
  std::vector<double> out(size_t(B * Hq * L * Dv), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = h / (Hq / Hkv);
      for (int64_t i = 0; i < L; ++i) {
        double* yi = out.data() + size_t(((b * Hq + h) * L + i) * Dv);
        for (int64_t j = 0; j < S; ++j) {
          const double w = p[size_t(((b * Hq + h) * L + i) * S + j)];
          const double* vj = vv.data() + size_t(((b * Hkv + kvh) * S + j) * Dv);
          for (int64_t e = 0; e < Dv; ++e) yi[e] += w * vj[e];
        }
      }
    }
  const Tensor rounded = float_tensor(y.dtype(), y.shape(), out);
  std::memcpy(y.raw(), rounded.raw(), rounded.nbytes());
}

std::unique_ptr<Op> make_flex_attention(const NodeInfo& node) {
  return std::make_unique<FlexAttentionOp>(node);
}

}  // namespace strata::ops
