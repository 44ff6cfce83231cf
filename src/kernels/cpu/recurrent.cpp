// RNN, GRU and LSTM for small batches: strata's own kernel. A recurrence of batch 1 is a chain of
// matrix–vector products, each too small for oneDNN's RNN primitives to run near the machine's
// speed (they plan for matrix–matrix work: 13 µs per step of a 128-wide LSTM where the product is
// 1 µs of FMAs). Here the input projection of every step is one pass over X at prepare-packed
// weights, and each step multiplies the state by panels of R that stream from cache, with the
// gates' exponentials vectorised (AVX-512, or AVX2 and FMA). Everything recurrent_support()
// accepts; larger batches go to oneDNN (kMaxBatch).
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/panel_product.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/kernel.h"
#include "kernels/recurrent_support.h"

namespace strata::kernels::cpu {

namespace {

using ops::RecurrentCell;

// Past this batch oneDNN's RNN primitives are faster: each step is then a matrix product they
// block well (bench/RESULTS.md, "Recurrent models").
constexpr int64_t kMaxBatch = 8;

bool recurrent_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN");
}

Verdict recurrent_supports(const NodeRequest& r) {
  if (!panel_product_available())
    return Verdict::no("strata's recurrent kernel needs AVX2 and FMA or AVX-512");
  const int64_t batch = r.input(kRecurrentX).shape[1].value();
  if (batch > kMaxBatch)
    return Verdict::no("a batch of " + std::to_string(batch) +
                       " (over 8 the steps are matrix products: oneDNN's RNN runs them)");
  Verdict v = recurrent_support(r);
  if (v.ok) v.reason += "; a batch of " + std::to_string(batch) + ": matrix-vector steps";
  return v;
}

// Recurrent weights (gates · H² · batch values) below which a step is too short to share among
// threads: a barrier per step costs about a microsecond, a step of a 128-wide LSTM about two.
constexpr int64_t kMinWeightsToSplit = 128 * 1024;

class RecurrentKernel final : public Kernel {
 public:
  explicit RecurrentKernel(const NodeRequest& r) : a_(*ops::recurrent_attributes(r.op)) {
    const std::vector<int64_t> x = r.input(kRecurrentX).shape.values();
    seq_ = x[0];
    batch_ = x[1];
    input_ = x[2];
    gates_ = a_.gates();
    hidden_ = a_.hidden_size > 0 ? a_.hidden_size : r.input(kRecurrentW).shape[1].value() / gates_;
    function_ =
        a_.cell == RecurrentCell::kRnn ? *rnn_function(a_.activations[0]) : RnnFunction::kTanh;
    const int64_t H = hidden_, GH = gates_ * H;
    threads_ = std::max(1, r.threads);
    // Both directions run side by side when there are threads for both; one direction's steps
    // are shared among the threads by hidden units when its weights are large enough.
    const bool directions_apart = a_.directions == 2 && threads_ >= 2;
    const int64_t slices =
        !directions_apart && threads_ >= 2 && gates_ * H * H * batch_ >= kMinWeightsToSplit
            ? std::min<int64_t>(threads_, H / 16)
            : 1;
    const float* w = r.input(kRecurrentW).value->data<float>();
    const float* rw = r.input(kRecurrentR).value->data<float>();
    const float* b = r.has_input(kRecurrentB) ? r.input(kRecurrentB).value->data<float>() : nullptr;
    const float* p = a_.cell == RecurrentCell::kLstm && r.has_input(kRecurrentPeepholes)
                         ? r.input(kRecurrentPeepholes).value->data<float>()
                         : nullptr;
    for (int64_t d = 0; d < a_.directions; ++d) {
      Direction dir;
      dir.w = PanelMatrix(w + d * GH * input_, GH, input_);
      packed_bytes_ += dir.w.bytes();
      for (int64_t s = 0; s < slices; ++s) {
        dir.slices.push_back(make_slice(rw + d * GH * H, H * s / slices, H * (s + 1) / slices));
        packed_bytes_ += dir.slices.back().r.bytes() + dir.slices.back().r_candidate.bytes();
      }
      dir.bias.assign(size_t(GH), 0.0f);
      dir.candidate_bias.assign(size_t(H), 0.0f);
      const bool gru = a_.cell == RecurrentCell::kGru;
      if (b) {
        const float* wb = b + d * 2 * GH;
        const float* rb = wb + GH;
        for (int64_t k = 0; k < GH; ++k)
          dir.bias[size_t(k)] = wb[k] + (gru && k >= 2 * H ? 0.0f : rb[k]);
        if (gru) std::copy(rb + 2 * H, rb + 3 * H, dir.candidate_bias.begin());
      }
      if (p) dir.peepholes.assign(p + d * 3 * H, p + (d + 1) * 3 * H);
      directions_.push_back(std::move(dir));
    }
    name_ = std::string("strata:recurrent_") + simd_name(simd_);
    if (slices > 1)
      note_ = "each step's hidden units are shared among " + std::to_string(slices) + " threads";
    // Per direction: every step's projection [seq·batch, gates·H]; the state h twice (this
    // step's and the next), the cell c and the reset state [batch, H]; per slice the slice's
    // gates and a recurrence product.
    per_direction_ = seq_ * batch_ * GH + 4 * batch_ * H + slices * batch_ * (GH + H) + 16 * slices;
    scratch_bytes_ = int64_t(sizeof(float)) * per_direction_ * a_.directions;
  }

  void run(const KernelArgs& args) override {
    const int threads = std::min(threads_, omp_get_max_threads());
    if (a_.directions == 2 && threads >= 2) {
#pragma omp parallel for num_threads(2)
      for (int d = 0; d < 2; ++d) run_direction(args, d, 1);
    } else {
      for (int d = 0; d < a_.directions; ++d) run_direction(args, d, threads);
    }
  }

 private:
  // The hidden units [begin, end) of one direction: their rows of R, every gate's, as one matrix
  // (GRU's candidate rows apart: they multiply the state after the reset gate, or their product
  // is reset).
  struct Slice {
    int64_t begin = 0, end = 0;
    PanelMatrix r, r_candidate;
  };
  struct Direction {
    PanelMatrix w;
    std::vector<Slice> slices;
    std::vector<float> bias, candidate_bias, peepholes;
  };

  Slice make_slice(const float* r, int64_t begin, int64_t end) const {
    const int64_t H = hidden_, units = end - begin;
    const bool gru = a_.cell == RecurrentCell::kGru;
    const int64_t gates = gru ? 2 : gates_;
    std::vector<float> rows(size_t(gates * units * H));
    for (int64_t g = 0; g < gates; ++g)
      std::copy(r + (g * H + begin) * H, r + (g * H + end) * H,
                rows.data() + size_t(g * units * H));
    Slice s{begin, end, PanelMatrix(rows.data(), gates * units, H), {}};
    if (gru) s.r_candidate = PanelMatrix(r + (2 * H + begin) * H, units, H);
    return s;
  }

  const float* input_or_null(const KernelArgs& args, size_t i) const {
    return i < args.num_inputs && args.inputs[i] ? args.inputs[i]->data<float>() : nullptr;
  }
  float* output_or_null(const KernelArgs& args, size_t o) const {
    return o < args.num_outputs && args.outputs[o] ? args.outputs[o]->data<float>() : nullptr;
  }

  // The buffers of one direction in the scratch.
  struct Buffers {
    float *xw, *h, *h_next, *c, *reset_h, *slices;
  };
  Buffers buffers(void* scratch, int d) const {
    const int64_t N = batch_, H = hidden_;
    Buffers b;
    b.xw = static_cast<float*>(scratch) + d * per_direction_;
    b.h = b.xw + seq_ * N * gates_ * H;
    b.h_next = b.h + N * H;
    b.c = b.h_next + N * H;
    b.reset_h = b.c + N * H;
    b.slices = b.reset_h + N * H;
    return b;
  }

  void run_direction(const KernelArgs& args, int d, int threads) const {
    const Direction& dir = directions_[size_t(d)];
    const int64_t H = hidden_, GH = gates_ * H, N = batch_, rows = seq_ * batch_;
    Buffers buf = buffers(args.scratch, d);
    // Every step's input projection X·Wᵀ + bias, the rows shared among the threads in one chunk
    // each (the product reuses each part of W for all the rows of its chunk).
    const float* x = args.inputs[kRecurrentX]->data<float>();
    const int64_t team = rows >= 64 ? threads : 1;
    const int64_t chunk_rows = (rows + 4 * team - 1) / (4 * team) * 4;
#pragma omp parallel for num_threads(int(team)) schedule(static) if (team > 1)
    for (int64_t chunk = 0; chunk < rows; chunk += chunk_rows) {
      const int64_t n = std::min<int64_t>(chunk_rows, rows - chunk);
      for (int64_t i = chunk; i < chunk + n; ++i)
        std::memcpy(buf.xw + i * GH, dir.bias.data(), size_t(GH) * sizeof(float));
      dir.w.multiply_add(x + chunk * input_, input_, n, buf.xw + chunk * GH, GH);
    }
    const float* h0 = input_or_null(args, kRecurrentInitialH);
    const float* c0 = input_or_null(args, kRecurrentInitialC);
    if (h0)
      std::memcpy(buf.h, h0 + d * N * H, size_t(N * H) * sizeof(float));
    else
      std::fill(buf.h, buf.h + N * H, 0.0f);
    if (c0)
      std::memcpy(buf.c, c0 + d * N * H, size_t(N * H) * sizeof(float));
    else
      std::fill(buf.c, buf.c + N * H, 0.0f);
    float* y = output_or_null(args, kRecurrentY);
    const bool backwards = a_.reverse || d == 1;
    const int64_t slices = int64_t(dir.slices.size());
    // Every thread runs every step, each its slices, meeting at a barrier per step (and GRU's
    // reset state halfway): whatever the team's size, the barriers match.
#pragma omp parallel num_threads(int(slices)) if (slices > 1)
    {
      const int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
      float* h = buf.h;
      float* h_next = buf.h_next;
      for (int64_t step = 0; step < seq_; ++step) {
        const int64_t t = backwards ? seq_ - 1 - step : step;
        const float* xw = buf.xw + t * N * GH;
        for (int64_t s = me; s < slices; s += team) {
          float* gates = buf.slices + s * (N * (GH + H) + 16);
          gather_gates(dir.slices[size_t(s)], xw, gates);
          if (a_.cell == RecurrentCell::kLstm)
            lstm_step(dir, dir.slices[size_t(s)], gates, h, h_next, buf.c);
          else if (a_.cell == RecurrentCell::kRnn)
            rnn_step(dir.slices[size_t(s)], gates, h, h_next);
          else
            gru_gates(dir.slices[size_t(s)], gates, h, buf.reset_h);
        }
        if (a_.cell == RecurrentCell::kGru) {
          if (!a_.linear_before_reset && slices > 1) {
#pragma omp barrier
          }
          for (int64_t s = me; s < slices; s += team) {
            float* gates = buf.slices + s * (N * (GH + H) + 16);
            gru_candidate(dir, dir.slices[size_t(s)], gates, h, buf.reset_h, h_next);
          }
        }
        if (y)
          for (int64_t s = me; s < slices; s += team) {
            const Slice& sl = dir.slices[size_t(s)];
            for (int64_t n = 0; n < N; ++n)
              std::memcpy(y + ((t * a_.directions + d) * N + n) * H + sl.begin,
                          h_next + n * H + sl.begin, size_t(sl.end - sl.begin) * sizeof(float));
          }
        if (slices > 1) {
#pragma omp barrier
        }
        std::swap(h, h_next);
      }
      if (me == 0) {
        if (float* y_h = output_or_null(args, kRecurrentYH))
          std::memcpy(y_h + d * N * H, h, size_t(N * H) * sizeof(float));
        if (a_.cell == RecurrentCell::kLstm)
          if (float* y_c = output_or_null(args, kRecurrentYC))
            std::memcpy(y_c + d * N * H, buf.c, size_t(N * H) * sizeof(float));
      }
    }
  }

  // The slice's gate pre-activations from the step's projection: [batch, gates, units].
  void gather_gates(const Slice& s, const float* xw, float* gates) const {
    const int64_t H = hidden_, units = s.end - s.begin;
    for (int64_t n = 0; n < batch_; ++n)
      for (int64_t g = 0; g < gates_; ++g)
        std::memcpy(gates + (n * gates_ + g) * units, xw + (n * gates_ + g) * H + s.begin,
                    size_t(units) * sizeof(float));
  }

  // ONNX's gate order i, o, f, c; peepholes i, o, f.
  void lstm_step(const Direction& dir, const Slice& s, float* gates, const float* h, float* h_next,
                 float* c) const {
    const int64_t H = hidden_, U = s.end - s.begin, GU = 4 * U;
    s.r.multiply_add(h, H, batch_, gates, GU);
    const float* p = dir.peepholes.empty() ? nullptr : dir.peepholes.data() + s.begin;
    float* tmp = gates + batch_ * GU;
    for (int64_t n = 0; n < batch_; ++n) {
      float *i = gates + n * GU, *o = i + U, *f = o + U, *cand = f + U;
      float* cn = c + n * H + s.begin;
      if (p)
        for (int64_t j = 0; j < U; ++j) {
          i[j] += p[j] * cn[j];
          f[j] += p[2 * H + j] * cn[j];
        }
      sigmoid_in_place(simd_, i, U);
      sigmoid_in_place(simd_, f, U);
      tanh_in_place(simd_, cand, U);
      for (int64_t j = 0; j < U; ++j) cn[j] = f[j] * cn[j] + i[j] * cand[j];
      if (p)
        for (int64_t j = 0; j < U; ++j) o[j] += p[H + j] * cn[j];
      sigmoid_in_place(simd_, o, U);
      std::memcpy(tmp, cn, size_t(U) * sizeof(float));
      tanh_in_place(simd_, tmp, U);
      float* hn = h_next + n * H + s.begin;
      for (int64_t j = 0; j < U; ++j) hn[j] = o[j] * tmp[j];
    }
  }

  void rnn_step(const Slice& s, float* gates, const float* h, float* h_next) const {
    const int64_t H = hidden_, U = s.end - s.begin;
    s.r.multiply_add(h, H, batch_, gates, U);
    for (int64_t n = 0; n < batch_; ++n) {
      float* v = gates + n * U;
      if (function_ == RnnFunction::kTanh)
        tanh_in_place(simd_, v, U);
      else if (function_ == RnnFunction::kSigmoid)
        sigmoid_in_place(simd_, v, U);
      else
        for (int64_t j = 0; j < U; ++j) v[j] = std::max(v[j], 0.0f);
      std::memcpy(h_next + n * H + s.begin, v, size_t(U) * sizeof(float));
    }
  }

  // GRU's gates z and r (ONNX's order z, r, h) of the slice; without linear_before_reset, the
  // reset state r ⊙ h the candidate's product reads (all of it: the threads meet before).
  void gru_gates(const Slice& s, float* gates, const float* h, float* reset_h) const {
    const int64_t H = hidden_, U = s.end - s.begin, GU = 3 * U;
    s.r.multiply_add(h, H, batch_, gates, GU);
    for (int64_t n = 0; n < batch_; ++n) {
      sigmoid_in_place(simd_, gates + n * GU, 2 * U);
      if (!a_.linear_before_reset)
        for (int64_t j = 0; j < U; ++j)
          reset_h[n * H + s.begin + j] = gates[n * GU + U + j] * h[n * H + s.begin + j];
    }
  }

  void gru_candidate(const Direction& dir, const Slice& s, float* gates, const float* h,
                     const float* reset_h, float* h_next) const {
    const int64_t H = hidden_, U = s.end - s.begin, GU = 3 * U, N = batch_;
    float* rec = gates + N * GU;
    for (int64_t n = 0; n < N; ++n)
      std::memcpy(rec + n * U, dir.candidate_bias.data() + s.begin, size_t(U) * sizeof(float));
    s.r_candidate.multiply_add(a_.linear_before_reset ? h : reset_h, H, N, rec, U);
    for (int64_t n = 0; n < N; ++n) {
      const float *z = gates + n * GU, *r = z + U;
      float* cand = gates + n * GU + 2 * U;
      for (int64_t j = 0; j < U; ++j)
        cand[j] += a_.linear_before_reset ? r[j] * rec[n * U + j] : rec[n * U + j];
      tanh_in_place(simd_, cand, U);
      const float* hn = h + n * H + s.begin;
      float* out = h_next + n * H + s.begin;
      for (int64_t j = 0; j < U; ++j) out[j] = (1 - z[j]) * cand[j] + z[j] * hn[j];
    }
  }

  Simd simd_ = simd_level();
  ops::RecurrentAttributes a_;
  RnnFunction function_;
  int64_t seq_ = 0, batch_ = 0, input_ = 0, hidden_ = 0, gates_ = 1, per_direction_ = 0;
  int threads_ = 1;
  std::vector<Direction> directions_;
};

std::unique_ptr<Kernel> recurrent_prepare(const NodeRequest& r) {
  return std::make_unique<RecurrentKernel>(r);
}

}  // namespace

KernelFamily rnn_family() {
  return {"cpu_recurrent",    false, &recurrent_serves, &recurrent_supports,
          &recurrent_prepare, false};
}

}  // namespace strata::kernels::cpu
