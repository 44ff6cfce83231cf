// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins] matrix that maps a onesided
// magnitude spectrum to mel bands: triangular filters whose edges are num_mel_bins + 2 points
// spaced on the mel scale (mel = 2595 log10(1 + hz / 700)) from lower_edge_hertz by a step of
// (mel(upper_edge_hertz) - mel(lower_edge_hertz)) / (num_mel_bins + 2) (the step of ONNX's
// reference, so the last point falls short of the upper edge), each point rounded down to a spectrogram bin (floor((dft_length + 1) · hz /
// sample_rate)). Filter i rises from 0 at point i to 1 at point i + 1 and falls to 0 at point
// i + 2. Inputs are scalars; the output type is output_datatype (float by default).
// Cost: 2 FLOPs per output element (a subtract and a divide where the filter is non-zero).
#include <cmath>

#include "ops/op.h"

namespace strata::ops {

namespace {

double hz_to_mel(double hz) {
  return 2595 * std::log10(1 + hz / 700);
}
double mel_to_hz(double mel) {
  return 700 * (std::pow(10.0, mel / 2595) - 1);
}

class MelWeightMatrixOp final : public Op {
 public:
  explicit MelWeightMatrixOp(const NodeInfo& node) {
    const int64_t type = node.attr_int("output_datatype", 1);
    if (!dtype_from_onnx(int(type), &dtype_) || (!is_float(dtype_) && !is_integer(dtype_)))
      fail("attribute 'output_datatype' {} is not a numeric type strata supports", type);
  }

  void infer(InferContext& ctx) const override {
    const Params p = params(ctx.ints(0), ctx.ints(1), ctx.ints(2), ctx.doubles(3), ctx.doubles(4));
    ctx.set_output(0, dtype_, Shape{p.dft_length / 2 + 1, p.mel_bins});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 2);
  }

  void run(KernelContext& ctx) const override {
    const Params p =
        params(ctx.input(0).to_int64(), ctx.input(1).to_int64(), ctx.input(2).to_int64(),
               ctx.input(3).to_double(), ctx.input(4).to_double());
    const int64_t spectrum_bins = p.dft_length / 2 + 1;
    std::vector<int64_t> points(size_t(p.mel_bins + 2));
    const double low = hz_to_mel(p.lower_hz), high = hz_to_mel(p.upper_hz);
    const double step = (high - low) / double(p.mel_bins + 2);  // as ONNX's reference computes it
    for (size_t i = 0; i < points.size(); ++i)
      points[i] = int64_t(std::floor(double(p.dft_length + 1) * mel_to_hz(low + double(i) * step) /
                                     double(p.sample_rate)));
    std::vector<double> w(size_t(spectrum_bins * p.mel_bins), 0.0);
    auto set = [&](int64_t bin, int64_t band, double v) {
      if (bin >= 0 && bin < spectrum_bins) w[size_t(bin * p.mel_bins + band)] = v;
    };
    for (int64_t i = 0; i < p.mel_bins; ++i) {
      const int64_t lo = points[size_t(i)], center = points[size_t(i + 1)],
                    hi = points[size_t(i + 2)];
      if (center == lo) {
        set(center, i, 1);
      } else {
        for (int64_t j = lo; j <= center; ++j) set(j, i, double(j - lo) / double(center - lo));
      }
      for (int64_t j = center; j < hi; ++j) set(j, i, double(hi - j) / double(hi - center));
    }
    Tensor& y = ctx.output(0);
    visit_numeric(y.dtype(), [&]<class T>(Type<T>) {
      for (size_t i = 0; i < w.size(); ++i) y.data<T>()[i] = T(float(w[i]));
    });
  }

 private:
  struct Params {
    int64_t mel_bins, dft_length, sample_rate;
    double lower_hz, upper_hz;
  };

  static double one(const std::vector<double>& v, const char* name) {
    if (v.size() != 1) fail("input '{}' must be a scalar", name);
    return v[0];
  }
  static int64_t one(const std::vector<int64_t>& v, const char* name) {
    if (v.size() != 1) fail("input '{}' must be a scalar", name);
    return v[0];
  }

  static Params params(const std::vector<int64_t>& mel_bins, const std::vector<int64_t>& dft_length,
                       const std::vector<int64_t>& sample_rate, const std::vector<double>& lower,
                       const std::vector<double>& upper) {
    Params p{one(mel_bins, "num_mel_bins"), one(dft_length, "dft_length"),
             one(sample_rate, "sample_rate"), one(lower, "lower_edge_hertz"),
             one(upper, "upper_edge_hertz")};
    if (p.mel_bins < 1 || p.dft_length < 1 || p.sample_rate < 1)
      fail("num_mel_bins, dft_length and sample_rate must be positive");
    if (p.lower_hz < 0 || p.upper_hz <= p.lower_hz)
      fail("edges must satisfy 0 <= lower_edge_hertz {} < upper_edge_hertz {}", p.lower_hz,
           p.upper_hz);
    return p;
  }

  DType dtype_ = DType::kF32;
};

}  // namespace

std::unique_ptr<Op> make_mel_weight_matrix(const NodeInfo& node) {
  return std::make_unique<MelWeightMatrixOp>(node);
}

}  // namespace strata::ops
