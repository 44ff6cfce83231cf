// DFT (opsets 17-20) and STFT (opset 17), by the direct O(n²) sum in double.
//
// DFT: input [..., n, ..., 1 or 2] (real, or complex as (re, im) pairs in the last axis),
// transformed along `axis` (an attribute before opset 20, default 1; from opset 20 an optional
// scalar input, default -2; never the last axis). dft_length (optional input) zero-pads or
// truncates the signal; `inverse` computes x[j] = 1/N Σ X[k] e^{+2πijk/N}; `onesided` keeps the N/2
// + 1 first bins of a forward transform, and with `inverse` takes such a half spectrum (Hermitian
// symmetric) and returns the real signal of length dft_length (default 2·(bins - 1)) as [..., N,
// ..., 1]. Output: complex [..., bins, ..., 2] otherwise.
//
// STFT: signal [batch, length, 1 or 2], frame_step (scalar input), window (optional
// [frame_length]), frame_length (optional scalar input; else the window's length). Frame f is the
// signal from f · frame_step, times the window, transformed: output [batch, frames, bins, 2] with
// frames = (length - frame_length) / frame_step + 1 and bins = frame_length / 2 + 1 when
// onesided (default) else frame_length.
//
// Cost: 8 FLOPs per (input sample, output bin) pair (a complex multiply-add, the twiddle factor
// read from a table); STFT also 1 per windowed sample.
#include <cmath>
#include <numbers>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

// One complex line: out[k] = Σ_j in[j] · e^{sign · 2πi jk / n} for k < out.size(), j < in.size(),
// in and out as (re, im) pairs.
void dft_line(const std::vector<double>& in, int64_t n, bool inverse, std::vector<double>& out) {
  const int64_t bins = int64_t(out.size() / 2), samples = int64_t(in.size() / 2);
  const double sign = inverse ? 1 : -1;
  for (int64_t k = 0; k < bins; ++k) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < samples; ++j) {
      const double angle = sign * 2 * std::numbers::pi * double((j * k) % n) / double(n);
      const double c = std::cos(angle), s = std::sin(angle);
      re += in[size_t(2 * j)] * c - in[size_t(2 * j + 1)] * s;
      im += in[size_t(2 * j)] * s + in[size_t(2 * j + 1)] * c;
    }
    out[size_t(2 * k)] = inverse ? re / double(n) : re;
    out[size_t(2 * k + 1)] = inverse ? im / double(n) : im;
  }
}

int64_t scalar_int(const std::vector<int64_t>& v, const char* name) {
  if (v.size() != 1) fail("input '{}' must hold one value", name);
  return v[0];
}

class DftOp final : public Op {
 public:
  explicit DftOp(const NodeInfo& node)
      : opset_(node.opset()),
        inverse_(node.attr_int("inverse", 0) != 0),
        onesided_(node.attr_int("onesided", 0) != 0),
        axis_attr_(node.attr_int("axis", 1)) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    const int64_t rank = x.shape.rank();
    if (rank < 2)
      fail("input must have rank >= 2 (signal axes, then 1 or 2), got {}", x.shape.str());
    if (x.shape[rank - 1].is_static() && x.shape[rank - 1].value() != 1 &&
        x.shape[rank - 1].value() != 2)
      fail("input's last axis must be 1 (real) or 2 (complex), got shape {}", x.shape.str());
    const int64_t axis =
        resolve_axis(ctx.has_input(2) ? ctx.ints(2) : std::vector<int64_t>{}, rank);
    const std::vector<int64_t> length = ctx.has_input(1) ? ctx.ints(1) : std::vector<int64_t>{};
    const auto [n, bins] = lengths(length, x.shape[axis].value());
    (void)n;
    Shape out = x.shape;
    out[axis] = Dim(bins);
    out[rank - 1] = Dim(inverse_ && onesided_ ? 1 : 2);
    ctx.set_output(0, x.dtype, out);
  }

  // Each output bin sums over its line's input samples. The axis input, when given, must be a
  // constant for the figure; otherwise the default axis is assumed.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    const auto& in = ctx.input(0).shape;
    const int64_t rank = in.rank();
    std::vector<int64_t> axis_value;
    if (ctx.has_input(2) && ctx.input(2).value) axis_value = ctx.input(2).value->to_int64();
    const int64_t axis = resolve_axis(axis_value, rank);
    const double samples = ctx.numel_in(0) / double(in[rank - 1].value());
    Cost c = data_movement_cost(ctx);
    c.flops = 8 * samples * double(ctx.output(0).shape[axis].value());
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    const int64_t axis =
        resolve_axis(ctx.has_input(2) ? ctx.input(2).to_int64() : std::vector<int64_t>{}, rank);
    // Plain variables, not a structured binding: the lambdas below capture them (clang 14 cannot).
    const std::pair<int64_t, int64_t> lens =
        lengths(ctx.has_input(1) ? ctx.input(1).to_int64() : std::vector<int64_t>{}, x.dim(axis));
    const int64_t n = lens.first, bins = lens.second;
    const int64_t in_len = x.dim(axis), comps = x.dim(rank - 1);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis + 1; d < rank - 1; ++d) inner *= x.dim(d);
    Tensor& y = ctx.output(0);
    const int64_t out_comps = y.dim(rank - 1);
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      std::vector<double> line(size_t(2 * n)),
          result(size_t(2 * (inverse_ && onesided_ ? n : bins)));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          std::fill(line.begin(), line.end(), 0.0);
          auto read = [&](int64_t j, int64_t c) {
            return c < comps ? double(src[((o * in_len + j) * inner + i) * comps + c]) : 0.0;
          };
          if (inverse_ && onesided_) {  // rebuild the full Hermitian spectrum
            for (int64_t k = 0; k < n; ++k) {
              const int64_t from = k < in_len ? k : n - k;
              if (from < 0 || from >= in_len) continue;
              line[size_t(2 * k)] = read(from, 0);
              line[size_t(2 * k + 1)] = k < in_len ? read(from, 1) : -read(from, 1);
            }
          } else {
            for (int64_t j = 0; j < std::min(n, in_len); ++j) {
              line[size_t(2 * j)] = read(j, 0);
              line[size_t(2 * j + 1)] = read(j, 1);
            }
          }
          dft_line(line, n, inverse_, result);
          const int64_t out_len = int64_t(result.size() / 2);
          for (int64_t k = 0; k < out_len; ++k)
            for (int64_t c = 0; c < out_comps; ++c)
              dst[((o * out_len + k) * inner + i) * out_comps + c] =
                  from_acc<T>(result[size_t(2 * k + c)]);
        }
    });
  }

 private:
  int64_t resolve_axis(const std::vector<int64_t>& axis_input, int64_t rank) const {
    int64_t axis = opset_ >= 20 ? -2 : axis_attr_;
    if (opset_ >= 20 && !axis_input.empty()) axis = scalar_int(axis_input, "axis");
    if (axis < -rank || axis >= rank) fail("axis {} is out of range for rank {}", axis, rank);
    if (axis < 0) axis += rank;
    if (axis == rank - 1) fail("axis must not be the last axis (the real/imaginary one)");
    return axis;
  }

  // The transform length N and the output length along the axis.
  std::pair<int64_t, int64_t> lengths(const std::vector<int64_t>& dft_length,
                                      int64_t in_len) const {
    int64_t n = inverse_ && onesided_ ? 2 * (in_len - 1) : in_len;
    if (!dft_length.empty()) n = scalar_int(dft_length, "dft_length");
    if (n < 1) fail("dft_length must be >= 1, got {}", n);
    if (inverse_ && onesided_) return {n, n};
    return {n, onesided_ ? n / 2 + 1 : n};
  }

  int64_t opset_;
  bool inverse_, onesided_;
  int64_t axis_attr_;
};

class StftOp final : public Op {
 public:
  explicit StftOp(const NodeInfo& node) : onesided_(node.attr_int("onesided", 1) != 0) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() != 3)
      fail("input 'signal' must be [batch, length, 1 or 2], got {}", x.shape.str());
    const int64_t step = scalar_int(ctx.ints(1), "frame_step");
    const int64_t frame = frame_length(ctx.has_input(2) ? &ctx.shape(2) : nullptr,
                                       ctx.has_input(3) ? ctx.ints(3) : std::vector<int64_t>{});
    const int64_t len = x.shape[1].value();
    if (step < 1) fail("input 'frame_step' must be >= 1, got {}", step);
    if (frame < 1 || frame > len)
      fail("frame length {} must be in [1, signal length {}]", frame, len);
    ctx.set_output(0, x.dtype,
                   Shape{x.shape[0], Dim((len - frame) / step + 1),
                         Dim(onesided_ ? frame / 2 + 1 : frame), Dim(2)});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const auto& out = ctx.output(0).shape;
    const double frames = double(out[0].value() * out[1].value()), bins = double(out[2].value());
    const double frame = ctx.has_input(2) ? ctx.numel_in(2) : 2 * (bins - 1);
    Cost c = data_movement_cost(ctx);
    c.flops = frames * (frame + 8 * frame * bins);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t batch = x.dim(0), len = x.dim(1), comps = x.dim(2);
    const int64_t step = scalar_int(ctx.input(1).to_int64(), "frame_step");
    const int64_t frames = y.dim(1), bins = y.dim(2);
    Shape window_shape;
    if (ctx.has_input(2)) window_shape = Shape::of(ctx.input(2).shape());
    const int64_t frame =
        frame_length(ctx.has_input(2) ? &window_shape : nullptr,
                     ctx.has_input(3) ? ctx.input(3).to_int64() : std::vector<int64_t>{});
    const std::vector<double> window =
        ctx.has_input(2) ? ctx.input(2).to_double() : std::vector<double>(size_t(frame), 1.0);
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      std::vector<double> line(size_t(2 * frame)), result(size_t(2 * bins));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t j = 0; j < frame; ++j)
            for (int64_t c = 0; c < 2; ++c)
              line[size_t(2 * j + c)] =
                  c < comps ? double(src[(b * len + f * step + j) * comps + c]) * window[size_t(j)]
                            : 0.0;
          dft_line(line, frame, false, result);
          for (int64_t k = 0; k < 2 * bins; ++k)
            dst[(b * frames + f) * bins * 2 + k] = from_acc<T>(result[size_t(k)]);
        }
    });
  }

 private:
  static int64_t frame_length(const Shape* window, const std::vector<int64_t>& given) {
    if (!given.empty()) {
      const int64_t n = scalar_int(given, "frame_length");
      if (window && (window->rank() != 1 || window->operator[](0).value() != n))
        fail("input 'window' of shape {} must have frame_length {} values", window->str(), n);
      return n;
    }
    if (!window) fail("one of the inputs 'window' and 'frame_length' is needed");
    if (window->rank() != 1) fail("input 'window' must be 1-D, got shape {}", window->str());
    return window->operator[](0).value();
  }

  bool onesided_;
};

}  // namespace

std::unique_ptr<Op> make_dft(const NodeInfo& node) {
  if (node.op_type() == "STFT") return std::make_unique<StftOp>(node);
  return std::make_unique<DftOp>(node);
}

}  // namespace strata::ops
