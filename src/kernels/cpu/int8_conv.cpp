// QLinearConv with strata's exact int8 GEMM (int8_gemm.h) on CPUs without VNNI, where oneDNN's
// int8 convolution would not be exact (int8_conv_route in kernels/int8_products.h: its pairs of
// u8 × s8 products saturate 16 bits for weights with two large values of one sign in an output
// channel, and it halves the weights for int8 activations) or would refuse (weight zero points).
// Channels-last data: output pixel (n, oy, ox) is row n·OH·OW + oy·OW + ox of both the GEMM's A
// and its output, Y's channels its columns; the weights [M, C, kh, kw] are packed at prepare as
// B [kh·kw·C, M], tap-major like the rows of A. A 1×1 convolution with stride 1 and no padding
// reads X's rows as they are; any other window copies its input into rows of A (im2col) a block
// of rows at a time into scratch, taps outside the image holding X's zero point (they add 0). The
// int32 sums are requantized as the reference does it in the GEMM's registers
// (Int8Gemm::multiply_requantized: equal results).
// One or two spatial axes (a 1-D convolution is a 2-D one of height 1), group 1 (grouped and
// depthwise convolutions stay with oneDNN or the reference kernel).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_matmul_operands.h"
#include "kernels/int8_products.h"
#include "kernels/kernel.h"
#include "ops/conv.h"

namespace strata::kernels::cpu {

namespace {

enum Int8ConvInput : size_t {
  kInt8ConvX,
  kInt8ConvXScale,
  kInt8ConvXZero,
  kInt8ConvW,
  kInt8ConvWScale,
  kInt8ConvWZero,
  kInt8ConvYScale,
  kInt8ConvYZero,
  kInt8ConvBias,
};

// Rows of A per block: the GEMM keeps a pass's slice of every row of a block (up to 384 k-pairs,
// 4 bytes a pair) in L2 while each panel of weights reads it; 192 KB of Zen 3's 512 KB L2.
constexpr int64_t kInt8ConvSliceBytes = 192 << 10;
constexpr int64_t kInt8ConvMaxBlockRows = 384;
constexpr int64_t kInt8ConvGemmRows = 6;  // the GEMM's block height: blocks are multiples of it

bool int8_conv_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "QLinearConv";
}

// Why the constant zero point at input i is not one value, or "".
std::string int8_conv_zero_problem(const NodeRequest& r, size_t i, const char* name) {
  if (!r.has_input(i)) return "";
  if (!r.input(i).value) return fmt::format("{} is not constant", name);
  if (r.input(i).value->numel() != 1) return fmt::format("{} is not one value", name);
  return "";
}

Verdict int8_conv_supports(const NodeRequest& r) {
  const ops::ConvAttributes* attrs = ops::qlinear_conv_attributes(r.op);
  if (!attrs) return Verdict::no("the op is not a QLinearConv");
  const ops::Meta& x = r.input(kInt8ConvX);
  if (!is_8_bit(x.dtype) || !is_8_bit(r.output(0).dtype))
    return Verdict::no("X and Y must be uint8 or int8");
  const ops::Meta& w = r.input(kInt8ConvW);
  if (!w.value) return Verdict::no("the weights W are not constant (packed at prepare)");
  if (x.shape.rank() != w.value->rank()) return Verdict::no("X and W differ in rank");
  const int64_t m = w.value->rank() > 0 ? w.value->dim(0) : 0;
  for (size_t i : {kInt8ConvXScale, kInt8ConvWScale, kInt8ConvYScale}) {
    if (!r.input(i).value) return Verdict::no("a scale is not constant");
    for (double s : r.input(i).value->to_double())
      if (!(s > 0) || !std::isfinite(s))  // the reference kernel names the node and the scale
        return Verdict::no("a scale is not positive and finite");
  }
  if (!is_one_value(r.input(kInt8ConvXScale).shape) ||
      !is_one_value(r.input(kInt8ConvYScale).shape))
    return Verdict::no("x_scale and y_scale must be one value each");
  const int64_t w_scales = r.input(kInt8ConvWScale).value->numel();
  if (w_scales != 1 && w_scales != m)
    return Verdict::no("w_scale is neither one value nor one per output channel");
  for (const auto& [i, name] :
       {std::pair{kInt8ConvXZero, "x_zero_point"}, std::pair{kInt8ConvYZero, "y_zero_point"}})
    if (const std::string why = int8_conv_zero_problem(r, i, name); !why.empty())
      return Verdict::no(why);
  bool w_zero = false;
  if (r.has_input(kInt8ConvWZero)) {
    const ops::Meta& z = r.input(kInt8ConvWZero);
    if (!z.value) return Verdict::no("w_zero_point is not constant");
    if (z.value->numel() != 1 && z.value->numel() != m)
      return Verdict::no("w_zero_point is neither one value nor one per output channel");
    for (double v : z.value->to_double()) w_zero |= v != 0;
  }
  if (r.has_input(kInt8ConvBias)) {
    if (!r.input(kInt8ConvBias).value) return Verdict::no("the bias B is not constant");
    if (r.input(kInt8ConvBias).value->numel() != m)
      return Verdict::no("the bias B is not one value per output channel");
  }
  const Int8ConvRoute route = int8_conv_route(*w.value, attrs->group, x.dtype);
  if (route.kernel == Int8ConvKernel::kNone) return Verdict::no(route.reason);
  std::string inexact = route.reason;
  if (route.kernel == Int8ConvKernel::kOneDnn) {
    // oneDNN would be exact, but it takes no weight zero points: where the exact GEMM can.
    const std::string exact = exact_int8_conv_problem(*w.value, attrs->group);
    if (!w_zero || !exact.empty())
      return Verdict::no("oneDNN's int8 convolution is exact for these weights on this CPU");
    inexact = "oneDNN 2.6 takes no weight zero points";
  }
  return Verdict::yes("exact int8 convolution, im2col and GEMM in 16-bit pairs (vpmaddwd): " +
                      inexact);
}

// A constant input's values as doubles (empty when omitted).
std::vector<double> int8_conv_values(const NodeRequest& r, size_t i) {
  return r.has_input(i) ? r.input(i).value->to_double() : std::vector<double>{};
}

class ExactInt8ConvKernel final : public Kernel {
 public:
  explicit ExactInt8ConvKernel(const NodeRequest& r)
      : x_signed_(r.input(kInt8ConvX).dtype == DType::kI8), threads_(std::max(1, r.threads)) {
    name_ = "cpu:int8_conv:avx2";  // AVX2 code also where AVX-512 is there (no VNNI)
    const ops::ConvAttributes& attrs = *ops::qlinear_conv_attributes(r.op);
    const Shape& x_shape = r.input(kInt8ConvX).shape;
    const ops::Window window = ops::with_forward_pads(
        ops::resolve_conv_window(attrs.window, x_shape, r.input(kInt8ConvW).shape),
        ops::spatial_dims(x_shape.values()));
    const std::vector<int64_t> x = x_shape.values(), y = r.output(0).shape.values();
    const bool two_d = x.size() == 4;  // else one spatial axis: height 1
    const size_t last = window.rank() - 1;
    batch_ = x[0];
    channels_ = x[1];
    in_h_ = two_d ? x[2] : 1;
    in_w_ = x.back();
    out_h_ = two_d ? y[2] : 1;
    out_w_ = y.back();
    kernel_h_ = two_d ? window.kernel[0] : 1;
    kernel_w_ = window.kernel[last];
    stride_h_ = two_d ? window.strides[0] : 1;
    stride_w_ = window.strides[last];
    dilation_h_ = two_d ? window.dilations[0] : 1;
    dilation_w_ = window.dilations[last];
    pad_top_ = two_d ? window.pads_begin[0] : 0;
    pad_left_ = window.pads_begin[last];
    bool unpadded = true;
    for (size_t d = 0; d < window.rank(); ++d)
      unpadded &= window.pads_begin[d] == 0 && window.pads_end[d] == 0;
    direct_ = kernel_h_ == 1 && kernel_w_ == 1 && stride_h_ == 1 && stride_w_ == 1 && unpadded;
    rows_ = batch_ * out_h_ * out_w_;
    k_ = kernel_h_ * kernel_w_ * channels_;

    // B [kh·kw·C, M]: row (ky·kw + kx)·C + c holds W[m, c, ky, kx] in column m.
    const Tensor& w = *r.input(kInt8ConvW).value;
    const int64_t m = w.dim(0), taps = kernel_h_ * kernel_w_;
    std::vector<int8_t> b(size_t(k_ * m));
    const int8_t* wd = w.data<int8_t>();
    for (int64_t o = 0; o < m; ++o)
      for (int64_t c = 0; c < channels_; ++c)
        for (int64_t t = 0; t < taps; ++t)
          b[size_t((t * channels_ + c) * m + o)] = wd[(o * channels_ + c) * taps + t];
    std::vector<int32_t> w_zero;
    for (double v : int8_conv_values(r, kInt8ConvWZero)) w_zero.push_back(int32_t(v));
    gemm_ = Int8Gemm(b.data(), k_, m, w_zero);
    packed_bytes_ = gemm_.packed_bytes();
    const std::vector<double> x_zero = int8_conv_values(r, kInt8ConvXZero);
    x_zero_ = x_zero.empty() ? 0 : int32_t(x_zero[0]);

    // The reference's float32 multiplier x_scale · w_scale / y_scale per output channel.
    const float x_scale = float(r.input(kInt8ConvXScale).value->to_double()[0]);
    const float y_scale = float(r.input(kInt8ConvYScale).value->to_double()[0]);
    const std::vector<double> w_scale = r.input(kInt8ConvWScale).value->to_double();
    for (int64_t j = 0; j < m; ++j)
      multipliers_.push_back(x_scale * float(w_scale[w_scale.size() == 1 ? 0 : size_t(j)]) /
                             y_scale);
    bias_ = int8_conv_values(r, kInt8ConvBias);
    requantization_.multiplier = multipliers_.data();
    requantization_.bias = bias_.empty() ? nullptr : bias_.data();
    const std::vector<double> y_zero = int8_conv_values(r, kInt8ConvYZero);
    requantization_.zero_point = y_zero.empty() ? 0 : y_zero[0];
    requantization_.y_signed = r.output(0).dtype == DType::kI8;

    // Blocks of rows: sized for the caches, then evened out among the threads. Each thread takes
    // whole blocks when there are enough of them; else one block at a time shares its columns.
    const int64_t pair_bytes = 4 * std::min<int64_t>((k_ + 1) / 2, 384);
    int64_t block = std::clamp<int64_t>(kInt8ConvSliceBytes / pair_bytes, kInt8ConvGemmRows,
                                        kInt8ConvMaxBlockRows);
    int64_t blocks = std::max<int64_t>(1, (rows_ + block - 1) / block);
    workers_ = 1;
    // Each thread takes whole blocks when it gets two or more full ones; with fewer rows (the last
    // stages of a CNN, whose weights are the largest) the threads share each block's columns, so
    // that each reads half the weights rather than all of them (resnet50_qdq's layer4 at 2
    // threads).
    if (threads_ > 1 && rows_ >= threads_ * 2 * block) {
      workers_ = threads_;
      blocks = (std::max<int64_t>(blocks, workers_) + workers_ - 1) / workers_ * workers_;
    }
    block_rows_ = std::max<int64_t>(1, (rows_ + blocks - 1) / blocks);
    if (block_rows_ > kInt8ConvGemmRows)
      block_rows_ = (block_rows_ + kInt8ConvGemmRows - 1) / kInt8ConvGemmRows * kInt8ConvGemmRows;
    blocks_ = std::max<int64_t>(1, (rows_ + block_rows_ - 1) / block_rows_);

    // Each worker's scratch: its block of A (im2col), the block's int32 sums between the GEMM's
    // passes, the GEMM's own.
    const auto aligned = [](int64_t bytes) { return (bytes + 63) / 64 * 64; };
    const int gemm_threads = workers_ > 1 ? 1 : threads_;
    rows_at_ = 0;
    sums_at_ = direct_ ? 0 : aligned(block_rows_ * k_);
    gemm_at_ = sums_at_ + aligned(block_rows_ * m * int64_t(sizeof(int32_t)));
    worker_bytes_ = gemm_at_ + aligned(gemm_.scratch_bytes(block_rows_, gemm_threads));
    scratch_bytes_ = worker_bytes_ * workers_;

    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    input_layouts_[kInt8ConvX] = Layout::kChannelsLast;
    output_layouts_ = {Layout::kChannelsLast};
    note_ = direct_ ? "1×1: X's rows are the GEMM's"
                    : fmt::format("im2col in blocks of {} rows of {}", block_rows_, k_);
    if (workers_ > 1) note_ += fmt::format("; whole blocks shared among {} threads", workers_);
    if (r.output_needs_plain[0])
      note_ += "; the output is written channels-last and made plain after";
  }

  void run(const KernelArgs& args) override {
    const auto* x = static_cast<const uint8_t*>(args.inputs[kInt8ConvX]->raw());
    auto* y = static_cast<uint8_t*>(args.outputs[0]->raw());
    auto* scratch = static_cast<char*>(args.scratch);
    if (workers_ == 1) {
      for (int64_t b = 0; b < blocks_; ++b) run_block(x, y, b, scratch, threads_);
      return;
    }
#pragma omp parallel num_threads(workers_)
    {
      const int t = omp_get_thread_num(), count = omp_get_num_threads();
      for (int64_t b = t; b < blocks_; b += count)
        run_block(x, y, b, scratch + t * worker_bytes_, 1);
    }
  }

 private:
  void run_block(const uint8_t* x, uint8_t* y, int64_t block, char* scratch,
                 int gemm_threads) const {
    const int64_t first = block * block_rows_;
    const int64_t rows = std::min(block_rows_, rows_ - first);
    if (rows <= 0) return;
    const uint8_t* a = x + first * channels_;
    if (!direct_) {
      auto* rows_of_a = reinterpret_cast<uint8_t*>(scratch + rows_at_);
      im2col(x, first, rows, rows_of_a);
      a = rows_of_a;
    }
    gemm_.multiply_requantized(a, x_signed_, x_zero_, rows, requantization_, y + first * gemm_.n(),
                               scratch + sums_at_, scratch + gemm_at_, gemm_threads);
  }

  // Rows first .. first + rows of A: each the window of one output pixel, tap by tap, C bytes a
  // tap; taps outside the image hold X's zero point.
  void im2col(const uint8_t* x, int64_t first, int64_t rows, uint8_t* a) const {
    const int64_t c = channels_, span = kernel_w_ * c;
    const auto fill = static_cast<uint8_t>(x_zero_);  // the zero point's byte, int8 or uint8
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t row = first + i;
      const int64_t ox = row % out_w_, oy = row / out_w_ % out_h_, n = row / (out_w_ * out_h_);
      uint8_t* dst = a + i * k_;
      const int64_t x0 = ox * stride_w_ - pad_left_;
      // The whole row of taps inside the image: kw·C bytes in a row of X.
      const bool inside = dilation_w_ == 1 && x0 >= 0 && x0 + kernel_w_ <= in_w_;
      for (int64_t ky = 0; ky < kernel_h_; ++ky, dst += span) {
        const int64_t iy = oy * stride_h_ - pad_top_ + ky * dilation_h_;
        if (iy < 0 || iy >= in_h_) {
          std::memset(dst, fill, size_t(span));
          continue;
        }
        const uint8_t* line = x + (n * in_h_ + iy) * in_w_ * c;
        if (inside) {
          std::memcpy(dst, line + x0 * c, size_t(span));
          continue;
        }
        for (int64_t kx = 0; kx < kernel_w_; ++kx) {
          const int64_t ix = x0 + kx * dilation_w_;
          if (ix < 0 || ix >= in_w_)
            std::memset(dst + kx * c, fill, size_t(c));
          else
            std::memcpy(dst + kx * c, line + ix * c, size_t(c));
        }
      }
    }
  }

  bool x_signed_;
  int threads_;
  int64_t batch_ = 0, channels_ = 0, in_h_ = 0, in_w_ = 0, out_h_ = 0, out_w_ = 0;
  int64_t kernel_h_ = 1, kernel_w_ = 1, stride_h_ = 1, stride_w_ = 1;
  int64_t dilation_h_ = 1, dilation_w_ = 1, pad_top_ = 0, pad_left_ = 0;
  bool direct_ = false;  // 1×1, stride 1, no padding: X's rows are A's
  int64_t rows_ = 0, k_ = 0;
  int32_t x_zero_ = 0;
  Int8Gemm gemm_;
  // The reference's float32 multipliers and the int32 bias, as doubles.
  std::vector<double> multipliers_, bias_;
  Int8Requantization requantization_;
  int64_t block_rows_ = 1, blocks_ = 1;
  int workers_ = 1;  // threads that take whole blocks (1: the GEMM shares each block's columns)
  // Bytes into a worker's scratch.
  int64_t rows_at_ = 0, sums_at_ = 0, gemm_at_ = 0, worker_bytes_ = 0;
};

std::unique_ptr<Kernel> int8_conv_prepare(const NodeRequest& r) {
  return std::make_unique<ExactInt8ConvKernel>(r);
}

}  // namespace

KernelFamily int8_conv_family() {
  return {"cpu_int8_conv", true, &int8_conv_serves, &int8_conv_supports, &int8_conv_prepare, false};
}

}  // namespace strata::kernels::cpu
