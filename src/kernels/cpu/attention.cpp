// Attention (opset 23), f32, with or without a key/value cache: per (batch, query head) the kv
// head's keys (cache first) are packed transposed ([head size, keys], scratch per thread, the
// values beside them) so that a query's scores are a sum of vectorised rows, the mask is added, the
// softmax taken (exponential by polynomial, the row's maximum first), and the values summed with
// those weights. 3-D and 4-D inputs are read in place through strides; grouped-query heads share
// their kv head; causal rows stop at the diagonal (shifted by the cache's length); a bool or float
// mask broadcasts from any rank; present_key / present_value are the cache and the new keys and
// values; softcap (tanh, scalar) when set. Heads split among threads. The rest (nonpad_kv_seqlen,
// the qk_matmul_output output, masks narrower than the keys) stays with the reference kernel, which
// says why.
#include "ops/attention.h"

#include <fmt/format.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/row_math.h"
#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

// Below this many multiply-adds, one thread does the whole node.
constexpr double kShareMacs = double(1 << 20);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// The masks of four 16-lane blocks covering `left` values (0 past the end).
__attribute__((target("avx512f"), always_inline)) inline void block_masks(int64_t left,
                                                                          __mmask16 m[4]) {
  for (int b = 0; b < 4; ++b) {
    const int64_t here = left - 16 * b;
    m[b] = here >= 16 ? __mmask16(0xffff) : here > 0 ? __mmask16((1u << here) - 1) : 0;
  }
}

// scores[j] = s·Σ_e q[e]·keys[e·T + j] for j < n: 64 keys at a time, in four accumulators.
__attribute__((target("avx512f"))) void scores_avx512(const float* q, float s, const float* keys,
                                                      int64_t T, int64_t D, int64_t n,
                                                      float* scores) {
  for (int64_t j = 0; j < n; j += 64) {
    __mmask16 m[4];
    block_masks(n - j, m);
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                     _mm512_setzero_ps()};
    for (int64_t e = 0; e < D; ++e) {
      const __m512 qe = _mm512_set1_ps(q[e] * s);
      const float* row = keys + e * T + j;
      for (int b = 0; b < 4; ++b)
        acc[b] = _mm512_fmadd_ps(qe, _mm512_maskz_loadu_ps(m[b], row + 16 * b), acc[b]);
    }
    for (int b = 0; b < 4; ++b) _mm512_mask_storeu_ps(scores + j + 16 * b, m[b], acc[b]);
  }
}

// y[0:E] = w·Σ_{j<n} p[j]·rows[j·stride + 0:E]: 64 columns at a time, in four accumulators.
__attribute__((target("avx512f"))) void weighted_sum_avx512(const float* p, float w, int64_t n,
                                                            const float* rows, int64_t stride,
                                                            int64_t E, float* y) {
  for (int64_t d = 0; d < E; d += 64) {
    __mmask16 m[4];
    block_masks(E - d, m);
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                     _mm512_setzero_ps()};
    for (int64_t j = 0; j < n; ++j) {
      if (p[j] == 0) continue;  // a masked key
      const __m512 pj = _mm512_set1_ps(p[j] * w);
      const float* row = rows + j * stride + d;
      for (int b = 0; b < 4; ++b)
        acc[b] = _mm512_fmadd_ps(pj, _mm512_maskz_loadu_ps(m[b], row + 16 * b), acc[b]);
    }
    for (int b = 0; b < 4; ++b) _mm512_mask_storeu_ps(y + d + 16 * b, m[b], acc[b]);
  }
}

// The same two loops with AVX2: 32 keys (columns) at a time, in four accumulators of 8.
__attribute__((target("avx2,fma"))) void scores_avx2(const float* q, float s, const float* keys,
                                                     int64_t T, int64_t D, int64_t n,
                                                     float* scores) {
  for (int64_t j = 0; j < n; j += 32) {
    __m256i m[4];
    for (int b = 0; b < 4; ++b) m[b] = tail_mask8(std::clamp<int64_t>(n - j - 8 * b, 0, 8));
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                     _mm256_setzero_ps()};
    for (int64_t e = 0; e < D; ++e) {
      const __m256 qe = _mm256_set1_ps(q[e] * s);
      const float* row = keys + e * T + j;
      for (int b = 0; b < 4; ++b)
        acc[b] = _mm256_fmadd_ps(qe, _mm256_maskload_ps(row + 8 * b, m[b]), acc[b]);
    }
    for (int b = 0; b < 4; ++b) _mm256_maskstore_ps(scores + j + 8 * b, m[b], acc[b]);
  }
}

__attribute__((target("avx2,fma"))) void weighted_sum_avx2(const float* p, float w, int64_t n,
                                                           const float* rows, int64_t stride,
                                                           int64_t E, float* y) {
  for (int64_t d = 0; d < E; d += 32) {
    __m256i m[4];
    for (int b = 0; b < 4; ++b) m[b] = tail_mask8(std::clamp<int64_t>(E - d - 8 * b, 0, 8));
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                     _mm256_setzero_ps()};
    for (int64_t j = 0; j < n; ++j) {
      if (p[j] == 0) continue;  // a masked key
      const __m256 pj = _mm256_set1_ps(p[j] * w);
      const float* row = rows + j * stride + d;
      for (int b = 0; b < 4; ++b)
        acc[b] = _mm256_fmadd_ps(pj, _mm256_maskload_ps(row + 8 * b, m[b]), acc[b]);
    }
    for (int b = 0; b < 4; ++b) _mm256_maskstore_ps(y + d + 8 * b, m[b], acc[b]);
  }
}

#pragma GCC diagnostic pop

void scores_scalar(const float* q, float s, const float* keys, int64_t T, int64_t D, int64_t n,
                   float* scores) {
  std::fill_n(scores, n, 0.f);
  for (int64_t e = 0; e < D; ++e) axpy(false, q[e] * s, keys + e * T, scores, n);
}

void weighted_sum_scalar(const float* p, float w, int64_t n, const float* rows, int64_t stride,
                         int64_t E, float* y) {
  std::fill_n(y, E, 0.f);
  for (int64_t j = 0; j < n; ++j)
    if (p[j] != 0) axpy(false, p[j] * w, rows + j * stride, y, E);
}

bool attention_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Attention";
}

// True when output `j` of the node exists and something reads it.
bool output_used(const NodeRequest& r, size_t j) {
  if (j >= r.node.outputs.size() || r.node.outputs[j] == ir::kNoValue) return false;
  const ir::ValueId id = r.node.outputs[j];
  if (r.graph.values[size_t(id)].is_graph_output) return true;
  for (const ir::Node& n : r.graph.nodes)
    if (std::find(n.inputs.begin(), n.inputs.end(), id) != n.inputs.end()) return true;
  return false;
}

// Strides (batch, head, position) of a [B, H, S, E] or [B, S, H·E] tensor, in floats.
struct Strides {
  int64_t batch = 0, head = 0, pos = 0;
};
Strides strides_of(bool three_d, int64_t H, int64_t S, int64_t E) {
  if (three_d) return {S * H * E, E, H * E};
  return {H * S * E, S * E, E};
}

// The geometry of one node: heads, sizes and strides.
struct Geometry {
  bool three_d = false;
  int64_t B = 0, Hq = 0, Hkv = 0, Sq = 0, D = 0, Dv = 0;
  int64_t S = 0, P = 0, T = 0;  // new keys, cached keys (past), all keys
  Strides q, k, v, y;
};

Geometry geometry_of(const NodeRequest& r, const ops::AttentionAttributes& a) {
  const std::vector<int64_t> q = r.input(0).shape.values(), k = r.input(1).shape.values(),
                             v = r.input(2).shape.values();
  Geometry g;
  g.three_d = q.size() == 3;
  g.B = q[0];
  if (g.three_d) {
    g.Hq = a.q_heads;
    g.Hkv = a.kv_heads;
    g.Sq = q[1];
    g.S = k[1];
    g.D = q[2] / g.Hq;
    g.Dv = v[2] / g.Hkv;
  } else {
    g.Hq = q[1];
    g.Hkv = k[1];
    g.Sq = q[2];
    g.S = k[2];
    g.D = q[3];
    g.Dv = v[3];
  }
  g.P = r.has_input(4) ? r.input(4).shape.values()[2] : 0;
  g.T = g.P + g.S;
  g.q = strides_of(g.three_d, g.Hq, g.Sq, g.D);
  g.k = strides_of(g.three_d, g.Hkv, g.S, g.D);
  g.v = strides_of(g.three_d, g.Hkv, g.S, g.Dv);
  g.y = strides_of(g.three_d, g.Hq, g.Sq, g.Dv);
  return g;
}

Verdict attention_supports(const NodeRequest& r) {
  const auto a = ops::attention_attributes(r.op);
  if (!a) return Verdict::no("not an Attention op");
  if (r.has_input(4) != r.has_input(5))
    return Verdict::no("past_key without past_value or the other way round");
  if (r.has_input(6)) return Verdict::no("nonpad_kv_seqlen stays with the reference");
  if (output_used(r, 3)) return Verdict::no("the qk_matmul_output output is read");
  for (size_t i = 0; i < 3; ++i)
    if (r.input(i).dtype != DType::kF32)
      return Verdict::no(
          fmt::format("runs f32 only; input {} is {}", i, dtype_name(r.input(i).dtype)));
  if (r.input(0).shape.rank() != 3 && r.input(0).shape.rank() != 4)
    return Verdict::no("Q is neither 3-D nor 4-D");
  if (r.has_input(4)) {
    const Geometry g = geometry_of(r, *a);
    for (size_t i : {size_t(4), size_t(5)}) {
      if (r.input(i).dtype != DType::kF32)
        return Verdict::no(
            fmt::format("runs f32 only; input {} is {}", i, dtype_name(r.input(i).dtype)));
      const std::vector<int64_t> past = r.input(i).shape.values();
      if (past != std::vector<int64_t>{g.B, g.Hkv, g.P, i == 4 ? g.D : g.Dv})
        return Verdict::no("a cache whose shape does not fit K and V");
    }
  }
  if (r.has_input(3)) {
    const ops::Meta& m = r.input(3);
    if (m.dtype != DType::kF32 && m.dtype != DType::kBool)
      return Verdict::no(fmt::format("a mask of {}", dtype_name(m.dtype)));
    const Geometry g = geometry_of(r, *a);
    const std::vector<int64_t> shape = m.shape.values();
    if (shape.empty() || shape.size() > 4) return Verdict::no("a mask of rank 0 or above 4");
    if (shape.back() != 1 && shape.back() != g.T)
      return Verdict::no("a mask narrower than the keys (padded as masked)");
    const int64_t full[4] = {g.B, g.Hq, g.Sq, g.T};
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] != 1 && shape[d] != full[4 - shape.size() + d])
        return Verdict::no("a mask that does not broadcast to the scores");
  }
  return Verdict::yes("f32 heads, keys packed per head, vectorised");
}

class AttentionKernel final : public Kernel {
 public:
  explicit AttentionKernel(const NodeRequest& r)
      : simd_(simd_level()), threads_(std::max(1, r.threads)) {
    const ops::AttentionAttributes a = *ops::attention_attributes(r.op);
    name_ = simd_ == Simd::kScalar ? std::string("strata:attention")
                                   : std::string("strata:attention:") + simd_name(simd_);
    g_ = geometry_of(r, a);
    causal_ = a.causal;
    scale_ = a.has_scale ? a.scale : float(1 / std::sqrt(double(g_.D)));
    softcap_ = a.softcap;
    if (r.has_input(3)) {
      has_mask_ = true;
      bool_mask_ = r.input(3).dtype == DType::kBool;
      std::vector<int64_t> shape = r.input(3).shape.values();
      shape.insert(shape.begin(), 4 - shape.size(), 1);
      // Strides of the mask read as [B, Hq, Sq, T]; 0 along its axes of 1.
      int64_t stride = 1;
      for (int d = 3; d >= 0; --d) {
        mask_strides_[d] = shape[size_t(d)] == 1 ? 0 : stride;
        stride *= shape[size_t(d)];
      }
    }
    present_key_ = r.node.outputs.size() > 1 && output_used(r, 1);
    present_value_ = r.node.outputs.size() > 2 && output_used(r, 2);
    per_thread_ = g_.D * g_.T + g_.T * g_.Dv + g_.T;
    scratch_bytes_ = int64_t(sizeof(float)) * per_thread_ * threads_;
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_.assign(r.outputs.size(), Layout::kPlain);
    if (!present_key_ && !present_value_ && r.node.outputs.size() > 1)
      note_ = "present_key and present_value are not read: not written";
  }

  void run(const KernelArgs& args) override {
    const float* q = args.inputs[0]->data<float>();
    const float* k = args.inputs[1]->data<float>();
    const float* v = args.inputs[2]->data<float>();
    const float* past_k = g_.P ? args.inputs[4]->data<float>() : nullptr;
    const float* past_v = g_.P ? args.inputs[5]->data<float>() : nullptr;
    const void* mask = has_mask_ ? args.inputs[3]->raw() : nullptr;
    float* y = args.outputs[0]->data<float>();
    float* scratch = static_cast<float*>(args.scratch);
    const int64_t tasks = g_.B * g_.Hq;
    const double macs = double(tasks) * double(g_.Sq) * double(g_.T) * double(g_.D + g_.Dv);
    const int threads = tasks > 1 && macs >= kShareMacs ? threads_ : 1;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t task = 0; task < tasks; ++task)
      head(task / g_.Hq, task % g_.Hq, q, {k, past_k}, {v, past_v}, mask, y,
           scratch + per_thread_ * omp_get_thread_num());
    if (present_key_) copy_heads({k, past_k}, g_.k, g_.D, args.outputs[1]->data<float>());
    if (present_value_) copy_heads({v, past_v}, g_.v, g_.Dv, args.outputs[2]->data<float>());
  }

 private:
  // Keys or values: the new ones (input 1 or 2) and the cache before them (nullptr for none).
  struct Source {
    const float* fresh;
    const float* past;
  };

  // Row j of all keys or values (cache first) of kv head h in batch item b.
  const float* row(const Source& src, const Strides& s, int64_t E, int64_t b, int64_t h,
                   int64_t j) const {
    if (j < g_.P) return src.past + ((b * g_.Hkv + h) * g_.P + j) * E;
    return src.fresh + b * s.batch + h * s.head + (j - g_.P) * s.pos;
  }

  void head(int64_t b, int64_t h, const float* q, const Source& k, const Source& v,
            const void* mask, float* y, float* scratch) const {
    const int64_t kvh = h / (g_.Hq / g_.Hkv), T = g_.T, D = g_.D, Dv = g_.Dv;
    float* keys = scratch;            // [D, T]
    float* values = scratch + D * T;  // [T, Dv]
    float* scores = values + T * Dv;
    for (int64_t j = 0; j < T; ++j) {
      const float* key = row(k, g_.k, D, b, kvh, j);
      for (int64_t e = 0; e < D; ++e) keys[e * T + j] = key[e];
      std::copy_n(row(v, g_.v, Dv, b, kvh, j), Dv, values + j * Dv);
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < g_.Sq; ++i) {
      const float* qi = q + b * g_.q.batch + h * g_.q.head + i * g_.q.pos;
      float* yi = y + b * g_.y.batch + h * g_.y.head + i * g_.y.pos;
      // Keys this query may see: causal rows end at the diagonal, shifted by the cache.
      const int64_t seen = causal_ ? std::min(T, i + 1 + g_.P) : T;
      if (simd_ == Simd::kAvx512)
        scores_avx512(qi, scale_, keys, T, D, seen, scores);
      else if (simd_ == Simd::kAvx2)
        scores_avx2(qi, scale_, keys, T, D, seen, scores);
      else
        scores_scalar(qi, scale_, keys, T, D, seen, scores);
      if (softcap_ > 0)  // as the reference: after the scale, before the mask
        for (int64_t j = 0; j < seen; ++j) scores[j] = softcap_ * std::tanh(scores[j] / softcap_);
      if (has_mask_) add_mask(mask, b, h, i, scores, seen);
      float top = -inf;
      for (int64_t j = 0; j < seen; ++j) top = std::max(top, scores[j]);
      if (!(top > -inf)) {  // every key masked: zeros, as the reference
        std::fill_n(yi, Dv, 0.f);
        continue;
      }
      const float sum = exp_shifted(simd_, scores, seen, top);
      if (simd_ == Simd::kAvx512)
        weighted_sum_avx512(scores, 1 / sum, seen, values, Dv, Dv, yi);
      else if (simd_ == Simd::kAvx2)
        weighted_sum_avx2(scores, 1 / sum, seen, values, Dv, Dv, yi);
      else
        weighted_sum_scalar(scores, 1 / sum, seen, values, Dv, Dv, yi);
    }
  }

  void add_mask(const void* mask, int64_t b, int64_t h, int64_t i, float* scores, int64_t n) const {
    const int64_t row = b * mask_strides_[0] + h * mask_strides_[1] + i * mask_strides_[2];
    const int64_t step = mask_strides_[3];
    if (bool_mask_) {
      const bool* m = static_cast<const bool*>(mask) + row;
      for (int64_t j = 0; j < n; ++j)
        if (!m[j * step]) scores[j] = -std::numeric_limits<float>::infinity();
    } else {
      const float* m = static_cast<const float*>(mask) + row;
      for (int64_t j = 0; j < n; ++j) scores[j] += m[j * step];
    }
  }

  // All keys or values (the cache, then the new ones) as [B, Hkv, T, E]: present_key/value.
  void copy_heads(const Source& src, const Strides& s, int64_t E, float* to) const {
    for (int64_t b = 0; b < g_.B; ++b)
      for (int64_t h = 0; h < g_.Hkv; ++h)
        for (int64_t j = 0; j < g_.T; ++j)
          std::memcpy(to + ((b * g_.Hkv + h) * g_.T + j) * E, row(src, s, E, b, h, j),
                      size_t(E) * sizeof(float));
  }

  Simd simd_;
  int threads_;
  Geometry g_;
  bool causal_ = false, has_mask_ = false, bool_mask_ = false;
  bool present_key_ = false, present_value_ = false;
  float scale_ = 1, softcap_ = 0;
  int64_t mask_strides_[4] = {};
  int64_t per_thread_ = 0;
};

std::unique_ptr<Kernel> attention_prepare(const NodeRequest& r) {
  return std::make_unique<AttentionKernel>(r);
}

}  // namespace

KernelFamily attention_family() {
  return {"cpu_attention",    false, &attention_serves, &attention_supports,
          &attention_prepare, false};
}

}  // namespace strata::kernels::cpu
