// RNN, GRU and LSTM for small batches: strata's own kernel. A recurrence of batch 1 is a chain of
// matrix–vector products, each too small for oneDNN's RNN primitives to run near the machine's
// speed (they plan for matrix–matrix work: 13 µs per step of a 128-wide LSTM where the product is
// 1 µs of FMAs). Here the input projection of every step is one pass over X at prepare-packed
// weights, and each step multiplies the state by panels of R that stream from cache, with the
// gates' exponentials vectorised (AVX-512). Everything recurrent_support() accepts; larger
// batches go to oneDNN (kMaxBatch).
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

bool serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN");
}

Verdict supports(const NodeRequest& r) {
  if (!panel_product_available()) return Verdict::no("strata's recurrent kernel needs AVX-512");
  const int64_t batch = r.input(kRecurrentX).shape[1].value();
  if (batch > kMaxBatch)
    return Verdict::no("a batch of " + std::to_string(batch) +
                       " (over 8 the steps are matrix products: oneDNN's RNN runs them)");
  Verdict v = recurrent_support(r);
  if (v.ok) v.reason += "; a batch of " + std::to_string(batch) + ": matrix-vector steps";
  return v;
}

void add(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

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
    const float* w = r.input(kRecurrentW).value->data<float>();
    const float* rw = r.input(kRecurrentR).value->data<float>();
    const float* b = r.has_input(kRecurrentB) ? r.input(kRecurrentB).value->data<float>() : nullptr;
    const float* p = a_.cell == RecurrentCell::kLstm && r.has_input(kRecurrentPeepholes)
                         ? r.input(kRecurrentPeepholes).value->data<float>()
                         : nullptr;
    const bool gru = a_.cell == RecurrentCell::kGru;
    for (int64_t d = 0; d < a_.directions; ++d) {
      Direction dir;
      dir.w = PanelMatrix(w + d * GH * input_, GH, input_);
      const float* rd = rw + d * GH * H;
      // GRU's candidate multiplies the state after the reset gate (or adds its product after
      // it): its rows of R are a matrix of their own.
      dir.r = PanelMatrix(rd, gru ? 2 * H : GH, H);
      if (gru) dir.r_candidate = PanelMatrix(rd + 2 * H * H, H, H);
      dir.bias.assign(size_t(GH), 0.0f);
      dir.candidate_bias.assign(size_t(H), 0.0f);
      if (b) {
        const float* wb = b + d * 2 * GH;
        const float* rb = wb + GH;
        for (int64_t k = 0; k < GH; ++k)
          dir.bias[size_t(k)] = wb[k] + (gru && k >= 2 * H ? 0.0f : rb[k]);
        if (gru) std::copy(rb + 2 * H, rb + 3 * H, dir.candidate_bias.begin());
      }
      if (p) dir.peepholes.assign(p + d * 3 * H, p + (d + 1) * 3 * H);
      packed_bytes_ += dir.w.bytes() + dir.r.bytes() + dir.r_candidate.bytes();
      directions_.push_back(std::move(dir));
    }
    name_ = "strata:recurrent_avx512";
    // Per direction: every step's projection [seq·batch, gates·H], then the state h, the cell c
    // and two [batch, H] temporaries.
    per_direction_ = seq_ * batch_ * GH + 4 * batch_ * H;
    scratch_bytes_ = int64_t(sizeof(float)) * per_direction_ * a_.directions;
    threads_ = std::max(1, r.threads);
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
  struct Direction {
    PanelMatrix w, r, r_candidate;
    std::vector<float> bias, candidate_bias, peepholes;
  };

  const float* input_or_null(const KernelArgs& args, size_t i) const {
    return i < args.num_inputs && args.inputs[i] ? args.inputs[i]->data<float>() : nullptr;
  }
  float* output_or_null(const KernelArgs& args, size_t o) const {
    return o < args.num_outputs && args.outputs[o] ? args.outputs[o]->data<float>() : nullptr;
  }

  void run_direction(const KernelArgs& args, int d, int threads) const {
    const Direction& dir = directions_[size_t(d)];
    const int64_t H = hidden_, GH = gates_ * H, N = batch_, rows = seq_ * batch_;
    float* xw = static_cast<float*>(args.scratch) + d * per_direction_;
    float* h = xw + rows * GH;
    float* c = h + N * H;
    float* t1 = c + N * H;
    float* t2 = t1 + N * H;
    // Every step's input projection X·Wᵀ + bias, the rows shared among the threads.
    const float* x = args.inputs[kRecurrentX]->data<float>();
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && rows >= 64)
    for (int64_t chunk = 0; chunk < rows; chunk += 16) {
      const int64_t n = std::min<int64_t>(16, rows - chunk);
      for (int64_t i = chunk; i < chunk + n; ++i)
        std::memcpy(xw + i * GH, dir.bias.data(), size_t(GH) * sizeof(float));
      dir.w.multiply_add(x + chunk * input_, input_, n, xw + chunk * GH, GH);
    }
    const float* h0 = input_or_null(args, kRecurrentInitialH);
    const float* c0 = input_or_null(args, kRecurrentInitialC);
    if (h0)
      std::memcpy(h, h0 + d * N * H, size_t(N * H) * sizeof(float));
    else
      std::fill(h, h + N * H, 0.0f);
    if (c0)
      std::memcpy(c, c0 + d * N * H, size_t(N * H) * sizeof(float));
    else
      std::fill(c, c + N * H, 0.0f);
    float* y = output_or_null(args, kRecurrentY);
    const bool backwards = a_.reverse || d == 1;
    for (int64_t step = 0; step < seq_; ++step) {
      const int64_t t = backwards ? seq_ - 1 - step : step;
      float* g = xw + t * N * GH;
      if (a_.cell == RecurrentCell::kLstm)
        lstm_step(dir, g, h, c, t1);
      else if (a_.cell == RecurrentCell::kGru)
        gru_step(dir, g, h, t1, t2);
      else
        rnn_step(dir, g, h);
      if (y) std::memcpy(y + (t * a_.directions + d) * N * H, h, size_t(N * H) * sizeof(float));
    }
    if (float* y_h = output_or_null(args, kRecurrentYH))
      std::memcpy(y_h + d * N * H, h, size_t(N * H) * sizeof(float));
    if (a_.cell == RecurrentCell::kLstm)
      if (float* y_c = output_or_null(args, kRecurrentYC))
        std::memcpy(y_c + d * N * H, c, size_t(N * H) * sizeof(float));
  }

  // ONNX's gate order i, o, f, c; peepholes i, o, f.
  void lstm_step(const Direction& dir, float* g, float* h, float* c, float* tmp) const {
    const int64_t H = hidden_, GH = 4 * H;
    dir.r.multiply_add(h, H, batch_, g, GH);
    const float* p = dir.peepholes.empty() ? nullptr : dir.peepholes.data();
    for (int64_t n = 0; n < batch_; ++n) {
      float *i = g + n * GH, *o = i + H, *f = o + H, *cand = f + H;
      float *cn = c + n * H, *hn = h + n * H;
      if (p)
        for (int64_t j = 0; j < H; ++j) {
          i[j] += p[j] * cn[j];
          f[j] += p[2 * H + j] * cn[j];
        }
      sigmoid_in_place(i, H);
      sigmoid_in_place(f, H);
      tanh_in_place(cand, H);
      for (int64_t j = 0; j < H; ++j) cn[j] = f[j] * cn[j] + i[j] * cand[j];
      if (p)
        for (int64_t j = 0; j < H; ++j) o[j] += p[H + j] * cn[j];
      sigmoid_in_place(o, H);
      std::memcpy(tmp, cn, size_t(H) * sizeof(float));
      tanh_in_place(tmp, H);
      for (int64_t j = 0; j < H; ++j) hn[j] = o[j] * tmp[j];
    }
  }

  // ONNX's gate order z, r, h; linear_before_reset puts the reset after the candidate's product.
  void gru_step(const Direction& dir, float* g, float* h, float* rec, float* reset_h) const {
    const int64_t H = hidden_, GH = 3 * H, N = batch_;
    dir.r.multiply_add(h, H, N, g, GH);
    for (int64_t n = 0; n < N; ++n) sigmoid_in_place(g + n * GH, 2 * H);
    for (int64_t n = 0; n < N; ++n)
      std::memcpy(rec + n * H, dir.candidate_bias.data(), size_t(H) * sizeof(float));
    if (a_.linear_before_reset) {
      dir.r_candidate.multiply_add(h, H, N, rec, H);
      for (int64_t n = 0; n < N; ++n) {
        const float* r = g + n * GH + H;
        float* cand = g + n * GH + 2 * H;
        for (int64_t j = 0; j < H; ++j) cand[j] += r[j] * rec[n * H + j];
      }
    } else {
      for (int64_t n = 0; n < N; ++n)
        for (int64_t j = 0; j < H; ++j) reset_h[n * H + j] = g[n * GH + H + j] * h[n * H + j];
      dir.r_candidate.multiply_add(reset_h, H, N, rec, H);
      for (int64_t n = 0; n < N; ++n) add(g + n * GH + 2 * H, rec + n * H, H);
    }
    for (int64_t n = 0; n < N; ++n) {
      const float* z = g + n * GH;
      float* cand = g + n * GH + 2 * H;
      tanh_in_place(cand, H);
      float* hn = h + n * H;
      for (int64_t j = 0; j < H; ++j) hn[j] = (1 - z[j]) * cand[j] + z[j] * hn[j];
    }
  }

  void rnn_step(const Direction& dir, float* g, float* h) const {
    const int64_t H = hidden_;
    dir.r.multiply_add(h, H, batch_, g, H);
    for (int64_t n = 0; n < batch_; ++n) {
      float* v = g + n * H;
      if (function_ == RnnFunction::kTanh)
        tanh_in_place(v, H);
      else if (function_ == RnnFunction::kSigmoid)
        sigmoid_in_place(v, H);
      else
        for (int64_t j = 0; j < H; ++j) v[j] = std::max(v[j], 0.0f);
    }
    std::memcpy(h, g, size_t(batch_ * H) * sizeof(float));
  }

  ops::RecurrentAttributes a_;
  RnnFunction function_;
  int64_t seq_ = 0, batch_ = 0, input_ = 0, hidden_ = 0, gates_ = 1, per_direction_ = 0;
  int threads_ = 1;
  std::vector<Direction> directions_;
};

std::unique_ptr<Kernel> prepare(const NodeRequest& r) {
  return std::make_unique<RecurrentKernel>(r);
}

}  // namespace

KernelFamily rnn_family() {
  return {"cpu_recurrent", false, &serves, &supports, &prepare, false};
}

}  // namespace strata::kernels::cpu
