// RNN, GRU and LSTM (opsets 7-22): reference kernels for every attribute of the spec.
// X is [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1); W [dirs, gates·H, input],
// R [dirs, gates·H, H], B [dirs, 2·gates·H] (input then recurrence biases), sequence_lens
// [batch], initial_h (and LSTM's initial_c) [dirs, batch, H] (layout 1: [batch, dirs, H]), LSTM's
// peepholes P [dirs, 3·H] (input, output, forget). Gate order in W, R, B: GRU z, r, h; LSTM i,
// o, f, c. Outputs Y [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H]), Y_h and LSTM's Y_c
// as initial_h. direction forward, reverse or bidirectional (forward first); activations (f, g,
// h per direction, with activation_alpha / activation_beta consumed in order where the function
// takes them); clip bounds every gate's pre-activation; GRU's linear_before_reset applies the
// reset gate after the recurrence product; LSTM's input_forget couples f = 1 - i. Steps at or past
// a batch item's sequence length are not run: Y holds zeros there and Y_h the last state. Sums in
// double.
// Cost per step, batch item and direction: 2·gates·H·(input + H) FLOPs for the products, plus
// the gates' element-wise work (about 4 per gate value).
#include "ops/recurrent.h"

#include <cmath>
#include <functional>
#include <string>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

using Cell = RecurrentCell;

using Function = std::function<double(double)>;

// An activation by name, with its alpha/beta when given (nullptr: the ONNX operator's default).
Function activation(const std::string& name, const float* alpha, const float* beta) {
  auto a = [&](double fallback) { return alpha ? double(*alpha) : fallback; };
  auto b = [&](double fallback) { return beta ? double(*beta) : fallback; };
  if (name == "Tanh") return [](double x) { return std::tanh(x); };
  if (name == "Sigmoid") return [](double x) { return 1 / (1 + std::exp(-x)); };
  if (name == "Relu") return [](double x) { return x > 0 ? x : 0; };
  if (name == "Affine") {
    const double s = a(1), t = b(0);
    return [=](double x) { return s * x + t; };
  }
  if (name == "LeakyRelu") {
    const double s = a(0.01);
    return [=](double x) { return x < 0 ? s * x : x; };
  }
  if (name == "ThresholdedRelu") {
    const double t = a(1);
    return [=](double x) { return x > t ? x : 0; };
  }
  if (name == "ScaledTanh") {
    const double s = a(1), t = b(1);
    return [=](double x) { return s * std::tanh(t * x); };
  }
  if (name == "HardSigmoid") {
    const double s = a(0.2), t = b(0.5);
    return [=](double x) { return std::max(0.0, std::min(1.0, s * x + t)); };
  }
  if (name == "Elu") {
    const double s = a(1);
    return [=](double x) { return x < 0 ? s * std::expm1(x) : x; };
  }
  if (name == "Softsign") return [](double x) { return x / (1 + std::abs(x)); };
  if (name == "Softplus") return [](double x) { return std::log1p(std::exp(x)); };
  fail("activation '{}' is not one of the recurrent ops' functions", name);
}

RecurrentAttributes parse(const NodeInfo& node) {
  RecurrentAttributes a;
  a.cell = node.op_type() == "RNN"   ? Cell::kRnn
           : node.op_type() == "GRU" ? Cell::kGru
                                     : Cell::kLstm;
  a.hidden_size = node.attr_int("hidden_size", 0);
  a.layout = node.attr_int("layout", 0);
  a.clip = node.attr_float("clip", 0);
  a.has_clip = node.has_attr("clip");
  a.linear_before_reset = node.attr_int("linear_before_reset", 0) != 0;
  a.input_forget = node.attr_int("input_forget", 0) != 0;
  const std::string direction = node.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    fail("attribute 'direction' must be forward, reverse or bidirectional, not '{}'", direction);
  a.reverse = direction == "reverse";
  a.directions = direction == "bidirectional" ? 2 : 1;
  if (a.layout != 0 && a.layout != 1) fail("attribute 'layout' must be 0 or 1, got {}", a.layout);
  if (a.has_clip && a.clip <= 0) fail("attribute 'clip' must be positive, got {}", a.clip);
  // Functions per direction: RNN f; GRU f, g; LSTM f, g, h.
  const size_t per = a.cell == Cell::kRnn ? 1 : a.cell == Cell::kGru ? 2 : 3;
  a.activations = node.attr_strings("activations");
  if (a.activations.empty()) {
    const std::vector<std::string> defaults =
        a.cell == Cell::kRnn   ? std::vector<std::string>{"Tanh"}
        : a.cell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                               : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int d = 0; d < a.directions; ++d)
      a.activations.insert(a.activations.end(), defaults.begin(), defaults.end());
  }
  if (a.activations.size() != per * size_t(a.directions))
    fail("attribute 'activations' has {} functions; {} are needed ({} per direction)",
         a.activations.size(), per * size_t(a.directions), per);
  a.activation_alpha = node.attr_floats("activation_alpha");
  a.activation_beta = node.attr_floats("activation_beta");
  for (const std::string& name : a.activations) activation(name, nullptr, nullptr);  // validates
  return a;
}

class RecurrentOp final : public Op {
 public:
  explicit RecurrentOp(const NodeInfo& node) : a_(parse(node)) {
    for (size_t i = 0; i < a_.activations.size(); ++i)
      functions_.push_back(activation(
          a_.activations[i], i < a_.activation_alpha.size() ? &a_.activation_alpha[i] : nullptr,
          i < a_.activation_beta.size() ? &a_.activation_beta[i] : nullptr));
  }

  const RecurrentAttributes& attributes() const { return a_; }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("X has dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() != 3) fail("X must be 3-D, got {}", x.shape.str());
    if (!ctx.has_input(1) || !ctx.has_input(2)) fail("inputs 'W' and 'R' are required");
    const Dim seq = a_.layout ? x.shape[1] : x.shape[0],
              batch = a_.layout ? x.shape[0] : x.shape[1];
    const Meta& w = ctx.input(1);
    if (w.shape.rank() != 3) fail("W must be 3-D, got {}", w.shape.str());
    if (w.shape[0].is_static() && w.shape[0].value() != a_.directions)
      fail("W holds {} directions but the node runs {}", w.shape[0].value(), a_.directions);
    const int64_t hidden = hidden_size(w.shape);
    const DType t = x.dtype;
    const Dim dirs(a_.directions), h(hidden);
    if (ctx.num_outputs() > 0)
      ctx.set_output(0, t, a_.layout ? Shape{batch, seq, dirs, h} : Shape{seq, dirs, batch, h});
    for (size_t o = 1; o < ctx.num_outputs() && o <= (a_.cell == Cell::kLstm ? 2u : 1u); ++o)
      ctx.set_output(o, t, a_.layout ? Shape{batch, dirs, h} : Shape{dirs, batch, h});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const Shape& x = ctx.input(0).shape;
    if (!x.is_static()) return std::nullopt;
    const double steps = double(x[0].value() * x[1].value()) * a_.directions;
    const double hidden = double(hidden_size(ctx.input(1).shape)), input = double(x[2].value());
    const double gates = a_.gates();
    c.macs = steps * gates * hidden * (input + hidden);
    c.flops = 2 * c.macs + steps * gates * hidden * 4;
    c.param_bytes = constant_input_bytes(ctx);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x_tensor = ctx.input(0);
    const int64_t S = a_.layout ? x_tensor.dim(1) : x_tensor.dim(0);
    const int64_t N = a_.layout ? x_tensor.dim(0) : x_tensor.dim(1), I = x_tensor.dim(2);
    const int64_t H = hidden_size(Shape::of(ctx.input(1).shape()));
    const int64_t G = a_.gates();
    const std::vector<double> x = x_tensor.to_double(), w = ctx.input(1).to_double(),
                              r = ctx.input(2).to_double();
    if (int64_t(w.size()) != a_.directions * G * H * I ||
        int64_t(r.size()) != a_.directions * G * H * H)
      fail("W or R does not hold {} directions of {} gates of {}", a_.directions, G, H);
    const std::vector<double> bias = optional(ctx, 3, a_.directions * 2 * G * H);
    std::vector<int64_t> lengths(size_t(N), S);
    if (ctx.has_input(4)) {
      lengths = ctx.input(4).to_int64();
      if (int64_t(lengths.size()) != N)
        fail("sequence_lens holds {} values for a batch of {}", lengths.size(), N);
      for (int64_t l : lengths)
        if (l < 0 || l > S) fail("sequence_lens holds {}, outside [0, {}]", l, S);
    }
    const std::vector<double> h0 = optional(ctx, 5, a_.directions * N * H);
    const std::vector<double> c0 =
        a_.cell == Cell::kLstm ? optional(ctx, 6, a_.directions * N * H) : std::vector<double>{};
    const std::vector<double> p =
        a_.cell == Cell::kLstm ? optional(ctx, 7, a_.directions * 3 * H) : std::vector<double>{};
    std::vector<double> y(size_t(S * a_.directions * N * H), 0.0),
        y_h(size_t(a_.directions * N * H)), y_c(size_t(a_.directions * N * H));
    auto x_at = [&](int64_t t, int64_t n) {
      return x.data() + size_t((a_.layout ? n * S + t : t * N + n) * I);
    };
    // States are [dirs, batch, H] in layout 0 and [batch, dirs, H] in layout 1.
    auto state_index = [&](int64_t d, int64_t n) {
      return size_t(a_.layout ? (n * a_.directions + d) * H : (d * N + n) * H);
    };
    auto y_index = [&](int64_t t, int64_t d, int64_t n) {
      return size_t(a_.layout ? ((n * S + t) * a_.directions + d) * H
                              : ((t * a_.directions + d) * N + n) * H);
    };
    std::vector<double> gates(static_cast<size_t>(G * H)), hr(static_cast<size_t>(H));
    const size_t per = functions_.size() / size_t(a_.directions);
    for (int64_t d = 0; d < a_.directions; ++d) {
      const bool backwards = a_.reverse || d == 1;
      // data() + offset, not &v[i]: with an input or hidden size of 0 these vectors are empty.
      const double* wd = w.data() + size_t(d * G * H * I);
      const double* rd = r.data() + size_t(d * G * H * H);
      const double* wb = bias.data() + size_t(d * 2 * G * H);
      const double* rb = wb + G * H;
      const Function& f = functions_[size_t(d) * per];
      const Function& g = per > 1 ? functions_[size_t(d) * per + 1] : f;
      const Function& hf = per > 2 ? functions_[size_t(d) * per + 2] : f;
      for (int64_t n = 0; n < N; ++n) {
        const double* h_init = h0.data() + state_index(d, n);
        std::vector<double> h(h_init, h_init + H);
        std::vector<double> c = a_.cell == Cell::kLstm
                                    ? std::vector<double>(c0.data() + state_index(d, n),
                                                          c0.data() + state_index(d, n) + H)
                                    : std::vector<double>{};
        for (int64_t step = 0; step < lengths[size_t(n)]; ++step) {
          const int64_t t = backwards ? lengths[size_t(n)] - 1 - step : step;
          const double* xt = x_at(t, n);
          // gates = X·Wᵀ + Wb (+ H·Rᵀ + Rb, except GRU's h gate, done below)
          for (int64_t k = 0; k < G * H; ++k) {
            double v = wb[k];
            for (int64_t i = 0; i < I; ++i) v += xt[i] * wd[k * I + i];
            const bool gru_candidate = a_.cell == Cell::kGru && k >= 2 * H;
            if (!gru_candidate) {
              v += rb[k];
              for (int64_t j = 0; j < H; ++j) v += h[size_t(j)] * rd[k * H + j];
            }
            gates[size_t(k)] = v;
          }
          step_cell(gates, h, c, rd, rb, p.empty() ? nullptr : p.data() + size_t(d * 3 * H), f, g,
                    hf, H, hr);
          std::copy(h.begin(), h.end(), y.data() + y_index(t, d, n));
        }
        std::copy(h.begin(), h.end(), y_h.data() + state_index(d, n));
        if (a_.cell == Cell::kLstm) std::copy(c.begin(), c.end(), y_c.data() + state_index(d, n));
      }
    }
    store(ctx, 0, y);
    store(ctx, 1, y_h);
    if (a_.cell == Cell::kLstm) store(ctx, 2, y_c);
  }

 private:
  int64_t hidden_size(const Shape& w) const {
    const int64_t gates = a_.gates();
    if (a_.hidden_size > 0) return a_.hidden_size;
    if (!w[1].is_static()) fail("hidden_size is not set and W's rows are not known");
    return w[1].value() / gates;
  }

  double clipped(double v) const {
    return a_.has_clip ? std::max(-double(a_.clip), std::min(double(a_.clip), v)) : v;
  }

  // One step of the cell from the gates' pre-activations (all but GRU's candidate with H·Rᵀ).
  void step_cell(std::vector<double>& gates, std::vector<double>& h, std::vector<double>& c,
                 const double* rd, const double* rb, const double* peep, const Function& f,
                 const Function& g, const Function& hf, int64_t H, std::vector<double>& hr) const {
    if (a_.cell == Cell::kRnn) {
      for (int64_t j = 0; j < H; ++j) h[size_t(j)] = f(clipped(gates[size_t(j)]));
      return;
    }
    if (a_.cell == Cell::kGru) {
      std::vector<double> z(static_cast<size_t>(H)), rg(static_cast<size_t>(H));
      for (int64_t j = 0; j < H; ++j) {
        z[size_t(j)] = f(clipped(gates[size_t(j)]));
        rg[size_t(j)] = f(clipped(gates[size_t(H + j)]));
      }
      for (int64_t j = 0; j < H; ++j) {  // the candidate's recurrence, before or after the reset
        double v = 0;
        if (a_.linear_before_reset) {
          for (int64_t k = 0; k < H; ++k) v += h[size_t(k)] * rd[(2 * H + j) * H + k];
          v = rg[size_t(j)] * (v + rb[2 * H + j]);
        } else {
          for (int64_t k = 0; k < H; ++k)
            v += rg[size_t(k)] * h[size_t(k)] * rd[(2 * H + j) * H + k];
          v += rb[2 * H + j];
        }
        hr[size_t(j)] = g(clipped(gates[size_t(2 * H + j)] + v));
      }
      for (int64_t j = 0; j < H; ++j)
        h[size_t(j)] = (1 - z[size_t(j)]) * hr[size_t(j)] + z[size_t(j)] * h[size_t(j)];
      return;
    }
    for (int64_t j = 0; j < H; ++j) {  // LSTM: i, o, f, c
      const double ci = peep ? peep[j] : 0, co = peep ? peep[H + j] : 0,
                   cf = peep ? peep[2 * H + j] : 0;
      const double i = f(clipped(gates[size_t(j)] + ci * c[size_t(j)]));
      const double fg =
          a_.input_forget ? 1 - i : f(clipped(gates[size_t(2 * H + j)] + cf * c[size_t(j)]));
      const double cand = g(clipped(gates[size_t(3 * H + j)]));
      c[size_t(j)] = fg * c[size_t(j)] + i * cand;
      const double o = f(clipped(gates[size_t(H + j)] + co * c[size_t(j)]));
      h[size_t(j)] = o * hf(c[size_t(j)]);
    }
  }

  static std::vector<double> optional(const KernelContext& ctx, size_t i, int64_t count) {
    if (!ctx.has_input(i)) return std::vector<double>(size_t(count), 0.0);
    std::vector<double> v = ctx.input(i).to_double();
    if (int64_t(v.size()) != count)
      fail("input {} holds {} values; {} are needed", i, v.size(), count);
    return v;
  }

  static void store(KernelContext& ctx, size_t o, const std::vector<double>& values) {
    if (o >= ctx.num_outputs() || !ctx.output(o).defined()) return;
    Tensor& out = ctx.output(o);
    visit_float(out.dtype(), [&]<class T>(Type<T>) {
      for (size_t i = 0; i < values.size(); ++i) out.data<T>()[i] = T(float(values[i]));
    });
  }

  RecurrentAttributes a_;
  std::vector<Function> functions_;
};

}  // namespace

std::optional<RecurrentAttributes> recurrent_attributes(const Op& op) {
  const auto* recurrent = dynamic_cast<const RecurrentOp*>(&op);
  if (!recurrent) return std::nullopt;
  return recurrent->attributes();
}

std::unique_ptr<Op> make_recurrent(const NodeInfo& node) {
  return std::make_unique<RecurrentOp>(node);
}

}  // namespace strata::ops
