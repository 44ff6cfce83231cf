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
// One or two spatial axes (a 1-D convolution is a 2-D one of height 1), group 1; other grouped
// convolutions than depthwise ones stay with oneDNN or the reference kernel.
//
// Depthwise convolutions (group = C = M: a channel multiplier of 1, two spatial axes) have a
// family of their own below, cpu_int8_depthwise_conv (kernel cpu:int8_depthwise_conv:avx2), in
// this file: it shares the operands' check, the window's geometry and the requantization's values
// with cpu_int8_conv.
#include <fmt/format.h>
#include <immintrin.h>
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

bool int8_conv_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "QLinearConv";
}

// The window in two spatial axes (a 1-D convolution is a 2-D one of height 1), with ONNX's
// auto_pad resolved.
struct Int8ConvGeometry {
  explicit Int8ConvGeometry(const NodeRequest& r);
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1, pad_top = 0, pad_left = 0;
  bool unpadded = true;
};

// The operands' zero points and the requantization's values, as the reference kernel has them.
struct Int8ConvQuantization {
  explicit Int8ConvQuantization(const NodeRequest& r);
  bool x_signed = false;
  int32_t x_zero = 0;
  std::vector<int32_t> w_zero;  // empty, one value, or one per output channel
  Int8RequantizationValues requantization;
};

// Why the constant zero point at input i is not one value, or "".
std::string int8_conv_zero_problem(const NodeRequest& r, size_t i, const char* name) {
  if (!r.has_input(i)) return "";
  if (!r.input(i).value) return fmt::format("{} is not constant", name);
  if (r.input(i).value->numel() != 1) return fmt::format("{} is not one value", name);
  return "";
}

// Why the two exact kernels cannot take this QLinearConv's operands (8-bit X and Y, constant
// int8 weights, positive finite constant scales, x's and y's per tensor, w's per tensor or per
// output channel, constant zero points likewise, a constant bias per output channel), or "" when
// they can. `w_zero`: set when the weights have a zero point other than 0. Which kernel takes the
// convolution is int8_conv_route's to say.
std::string int8_conv_operand_problem(const NodeRequest& r, bool* w_zero) {
  const ops::Meta& x = r.input(kInt8ConvX);
  if (!is_8_bit(x.dtype) || !is_8_bit(r.output(0).dtype)) return "X and Y must be uint8 or int8";
  const ops::Meta& w = r.input(kInt8ConvW);
  if (!w.value) return "the weights W are not constant (packed at prepare)";
  if (x.shape.rank() != w.value->rank()) return "X and W differ in rank";
  const int64_t m = w.value->rank() > 0 ? w.value->dim(0) : 0;
  for (size_t i : {kInt8ConvXScale, kInt8ConvWScale, kInt8ConvYScale}) {
    if (!r.input(i).value) return "a scale is not constant";
    for (double s : r.input(i).value->to_double())
      if (!(s > 0) || !std::isfinite(s))  // the reference kernel names the node and the scale
        return "a scale is not positive and finite";
  }
  if (!is_one_value(r.input(kInt8ConvXScale).shape) ||
      !is_one_value(r.input(kInt8ConvYScale).shape))
    return "x_scale and y_scale must be one value each";
  const int64_t w_scales = r.input(kInt8ConvWScale).value->numel();
  if (w_scales != 1 && w_scales != m)
    return "w_scale is neither one value nor one per output channel";
  for (const auto& [i, name] :
       {std::pair{kInt8ConvXZero, "x_zero_point"}, std::pair{kInt8ConvYZero, "y_zero_point"}})
    if (std::string why = int8_conv_zero_problem(r, i, name); !why.empty()) return why;
  *w_zero = false;
  if (r.has_input(kInt8ConvWZero)) {
    const ops::Meta& z = r.input(kInt8ConvWZero);
    if (!z.value) return "w_zero_point is not constant";
    if (z.value->numel() != 1 && z.value->numel() != m)
      return "w_zero_point is neither one value nor one per output channel";
    for (double v : z.value->to_double()) *w_zero |= v != 0;
  }
  if (r.has_input(kInt8ConvBias)) {
    if (!r.input(kInt8ConvBias).value) return "the bias B is not constant";
    if (r.input(kInt8ConvBias).value->numel() != m)
      return "the bias B is not one value per output channel";
  }
  return "";
}

// A constant input's values as doubles (empty when omitted).
std::vector<double> int8_conv_values(const NodeRequest& r, size_t i) {
  return r.has_input(i) ? r.input(i).value->to_double() : std::vector<double>{};
}

Int8ConvGeometry::Int8ConvGeometry(const NodeRequest& r) {
  const ops::ConvAttributes& attrs = *ops::qlinear_conv_attributes(r.op);
  const Shape& x_shape = r.input(kInt8ConvX).shape;
  const ops::Window window = ops::with_forward_pads(
      ops::resolve_conv_window(attrs.window, x_shape, r.input(kInt8ConvW).shape),
      ops::spatial_dims(x_shape.values()));
  const std::vector<int64_t> x = x_shape.values(), y = r.output(0).shape.values();
  const bool two_d = x.size() == 4;  // else one spatial axis: height 1
  const size_t last = window.rank() - 1;
  batch = x[0];
  channels = x[1];
  in_h = two_d ? x[2] : 1;
  in_w = x.back();
  out_h = two_d ? y[2] : 1;
  out_w = y.back();
  kernel_h = two_d ? window.kernel[0] : 1;
  kernel_w = window.kernel[last];
  stride_h = two_d ? window.strides[0] : 1;
  stride_w = window.strides[last];
  dilation_h = two_d ? window.dilations[0] : 1;
  dilation_w = window.dilations[last];
  pad_top = two_d ? window.pads_begin[0] : 0;
  pad_left = window.pads_begin[last];
  for (size_t d = 0; d < window.rank(); ++d)
    unpadded &= window.pads_begin[d] == 0 && window.pads_end[d] == 0;
}

Int8ConvQuantization::Int8ConvQuantization(const NodeRequest& r)
    : x_signed(r.input(kInt8ConvX).dtype == DType::kI8) {
  const std::vector<double> x_zeros = int8_conv_values(r, kInt8ConvXZero);
  x_zero = x_zeros.empty() ? 0 : int32_t(x_zeros[0]);
  for (double v : int8_conv_values(r, kInt8ConvWZero)) w_zero.push_back(int32_t(v));
  const int64_t m = r.input(kInt8ConvW).value->dim(0);
  const float x_scale = float(r.input(kInt8ConvXScale).value->to_double()[0]);
  const float y_scale = float(r.input(kInt8ConvYScale).value->to_double()[0]);
  std::vector<int32_t> bias;
  for (double v : int8_conv_values(r, kInt8ConvBias)) bias.push_back(int32_t(v));
  const std::vector<double> y_zero = int8_conv_values(r, kInt8ConvYZero);
  // Each sum: kh·kw·C products of 9-bit values (x and w less their zero points).
  const Shape& w = r.input(kInt8ConvW).shape;
  const double products = double(w.numel().value() / m);
  requantization = Int8RequantizationValues(
      int8_multipliers(x_scale, r.input(kInt8ConvWScale).value->to_double(), y_scale, m), bias,
      y_zero.empty() ? 0 : int32_t(y_zero[0]), r.output(0).dtype == DType::kI8,
      products * 255 * 255);
}

// Rows of A per block: the GEMM keeps a pass's slice of every row of a block (up to 384 k-pairs,
// 4 bytes a pair) in L2 while each panel of weights reads it; 192 KB of Zen 3's 512 KB L2.
constexpr int64_t kInt8ConvSliceBytes = 192 << 10;
constexpr int64_t kInt8ConvMaxBlockRows = 384;
// The GEMM's block heights (4 and 6 rows): blocks of rows are multiples of both.
constexpr int64_t kInt8ConvGemmRows = 12;
// The fewest rows a thread's block takes when the threads share a convolution's rows.
constexpr int64_t kInt8ConvMinWorkerRows = 48;
// Blocks of rows (output rows for the depthwise kernel) per thread when the threads share them:
// taken one at a time as each thread gets free (OpenMP's dynamic schedule), so that a thread on a
// slower or busier CPU takes fewer (the two CPUs of the shared hosts ran one thread's work 1.4×
// apart at times; with two fixed halves the faster waited for the slower).
constexpr int64_t kInt8ConvBlocksPerThread = 4;

Verdict int8_conv_supports(const NodeRequest& r) {
  const ops::ConvAttributes* attrs = ops::qlinear_conv_attributes(r.op);
  if (!attrs) return Verdict::no("the op is not a QLinearConv");
  bool w_zero = false;
  if (const std::string why = int8_conv_operand_problem(r, &w_zero); !why.empty())
    return Verdict::no(why);
  const ops::Meta& x = r.input(kInt8ConvX);
  const ops::Meta& w = r.input(kInt8ConvW);
  const Int8ConvRoute route = int8_conv_route(*w.value, attrs->group, x.dtype);
  if (route.kernel == Int8ConvKernel::kNone) return Verdict::no(route.reason);
  if (route.kernel == Int8ConvKernel::kExactDepthwise)
    return Verdict::no(
        "depthwise: strata's exact int8 depthwise convolution (cpu_int8_depthwise_conv) takes it");
  std::string inexact = route.reason;
  if (route.kernel == Int8ConvKernel::kOneDnn) {
    // oneDNN would be exact, but it takes no weight zero points: where the exact GEMM can.
    const std::string exact = exact_int8_conv_problem(*w.value, attrs->group);
    if (!w_zero || !exact.empty())
      return Verdict::no("oneDNN's int8 convolution is exact for these weights on this CPU");
    inexact = "oneDNN 2.6 takes no weight zero points";
  }
  return Verdict::yes(
      fmt::format("exact int8 convolution, im2col and GEMM ({}): {}", kInt8GemmMethod, inexact));
}

class ExactInt8ConvKernel final : public Kernel {
 public:
  explicit ExactInt8ConvKernel(const NodeRequest& r)
      : x_signed_(r.input(kInt8ConvX).dtype == DType::kI8),
        threads_(std::max(1, r.threads)),
        quantization_(r) {
    name_ = "cpu:int8_conv:avx2";  // AVX2 code also where AVX-512 is there (no VNNI)
    const Int8ConvGeometry g(r);
    batch_ = g.batch;
    channels_ = g.channels;
    in_h_ = g.in_h;
    in_w_ = g.in_w;
    out_h_ = g.out_h;
    out_w_ = g.out_w;
    kernel_h_ = g.kernel_h;
    kernel_w_ = g.kernel_w;
    stride_h_ = g.stride_h;
    stride_w_ = g.stride_w;
    dilation_h_ = g.dilation_h;
    dilation_w_ = g.dilation_w;
    pad_top_ = g.pad_top;
    pad_left_ = g.pad_left;
    const bool unpadded = g.unpadded;
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
    gemm_ = Int8Gemm(b.data(), k_, m, quantization_.w_zero);
    packed_bytes_ = gemm_.packed_bytes();
    x_zero_ = quantization_.x_zero;

    // Blocks of rows: sized for the caches, then evened out among the threads. Each thread takes
    // whole blocks when there are enough of them; else one block at a time shares its columns.
    const int64_t pair_bytes = 4 * std::min<int64_t>((k_ + 1) / 2, 384);
    int64_t block = std::clamp<int64_t>(kInt8ConvSliceBytes / pair_bytes, kInt8ConvGemmRows,
                                        kInt8ConvMaxBlockRows);
    int64_t blocks = std::max<int64_t>(1, (rows_ + block - 1) / block);
    workers_ = 1;
    // Each thread takes whole blocks when it gets two or more full ones, or when the rows
    // outnumber the columns (A then outweighs the weights, which each thread reads whole): about
    // kInt8ConvBlocksPerThread blocks each (taken as the threads get free), smaller than the
    // caches need (mobilenet_v2_qdq's 28×28 layers, 784 rows of 192 or 32 columns, had run on one
    // thread: each block too small to share its columns). With fewer
    // rows (the last stages of a CNN, whose weights are the largest) the threads share each
    // block's columns, so that each reads half the weights rather than all of them
    // (resnet50_qdq's layer4 at 2 threads).
    if (threads_ > 1 && (rows_ >= threads_ * 2 * block ||
                         (rows_ >= m && rows_ >= threads_ * 2 * kInt8ConvMinWorkerRows))) {
      workers_ = threads_;
      const int64_t share = kInt8ConvBlocksPerThread * threads_;
      block = std::min(block, std::max(kInt8ConvMinWorkerRows, (rows_ + share - 1) / share));
      blocks = std::max<int64_t>(1, (rows_ + block - 1) / block);
    }
    block_rows_ = std::max<int64_t>(1, (rows_ + blocks - 1) / blocks);
    if (block_rows_ > kInt8ConvGemmRows)
      block_rows_ = (block_rows_ + kInt8ConvGemmRows - 1) / kInt8ConvGemmRows * kInt8ConvGemmRows;
    blocks_ = std::max<int64_t>(1, (rows_ + block_rows_ - 1) / block_rows_);

    // Each worker's scratch: its block of A (im2col), the block's int32 sums between the GEMM's
    // passes, the GEMM's own.
    const int gemm_threads = workers_ > 1 ? 1 : threads_;
    rows_at_ = 0;
    sums_at_ = direct_ ? 0 : scratch_aligned(block_rows_ * k_);
    gemm_at_ = sums_at_ + scratch_aligned(block_rows_ * m * int64_t(sizeof(int32_t)));
    worker_bytes_ = gemm_at_ + scratch_aligned(gemm_.scratch_bytes(block_rows_, gemm_threads));
    scratch_bytes_ = worker_bytes_ * workers_;

    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    input_layouts_[kInt8ConvX] = Layout::kChannelsLast;
    output_layouts_ = {Layout::kChannelsLast};
    note_ = direct_ ? "1×1: X's rows are the GEMM's"
                    : fmt::format("im2col in blocks of {} rows of {}", block_rows_, k_);
    note_ += "; " + gemm_.method();
    if (workers_ > 1)
      note_ += fmt::format("; {} blocks shared among {} threads, each taking the next", blocks_,
                           workers_);
    if (r.output_needs_plain[0])
      note_ += "; the output is written channels-last and made plain after";
  }

  std::string run_note() const override { return calls_.note(); }

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
      char* mine = scratch + omp_get_thread_num() * worker_bytes_;
#pragma omp for schedule(dynamic, 1)
      for (int64_t b = 0; b < blocks_; ++b) run_block(x, y, b, mine, 1);
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
    calls_.count(gemm_.multiply_requantized(
        a, x_signed_, x_zero_, rows, quantization_.requantization.get(), y + first * gemm_.n(),
        scratch + sums_at_, scratch + gemm_at_, gemm_threads));
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
  Int8ConvQuantization quantization_;  // the requantization's values
  mutable Int8GemmCalls calls_;        // counted by run_block, on any worker thread
  int64_t block_rows_ = 1, blocks_ = 1;
  int workers_ = 1;  // threads that take whole blocks (1: the GEMM shares each block's columns)
  // Bytes into a worker's scratch.
  int64_t rows_at_ = 0, sums_at_ = 0, gemm_at_ = 0, worker_bytes_ = 0;
};

std::unique_ptr<Kernel> int8_conv_prepare(const NodeRequest& r) {
  return std::make_unique<ExactInt8ConvKernel>(r);
}

// cpu_int8_depthwise_conv: depthwise QLinearConv (group = C = M, channel multiplier 1) exactly on
// CPUs without VNNI, where oneDNN's int8 convolution would not be exact (int8_conv_route in
// kernels/int8_products.h) or would refuse (weight zero points). Channels-last data: per output
// pixel (two at a time) and 16 channels at a time, the window's taps are summed two at a time: x
// and the weights less their zero points, both widened to int16, interleaved tap by tap and
// multiplied with vpmaddwd, whose pairs of products sum exactly in int32; the sums start from
// −x_zero · Σ w' per channel, which stands for x's zero point. Taps outside the image read a row
// of X's zero point (that start cancels them), so every pixel runs the same loop. The weights are
// packed at prepare, already interleaved in pairs of taps, 16 channels a block (zero past C and
// past the last tap). A row of output pixels' int32 sums is requantized as the reference does it
// (int8_requantize: equal results). Output rows are shared among the threads.

constexpr int64_t kDepthwiseChannels = 16;  // channels a block: 16 int16 of x, two int32 sums

Verdict int8_depthwise_conv_supports(const NodeRequest& r) {
  const ops::ConvAttributes* attrs = ops::qlinear_conv_attributes(r.op);
  if (!attrs) return Verdict::no("the op is not a QLinearConv");
  bool w_zero = false;
  if (const std::string why = int8_conv_operand_problem(r, &w_zero); !why.empty())
    return Verdict::no(why);
  const Tensor& w = *r.input(kInt8ConvW).value;
  const Int8ConvRoute route = int8_conv_route(w, attrs->group, r.input(kInt8ConvX).dtype);
  if (route.kernel == Int8ConvKernel::kNone) return Verdict::no(route.reason);
  if (route.kernel == Int8ConvKernel::kExactGemm)
    return Verdict::no("group 1: strata's exact int8 convolution (cpu_int8_conv) takes it");
  std::string inexact = route.reason;
  if (route.kernel == Int8ConvKernel::kOneDnn) {
    // oneDNN would be exact, but it takes no weight zero points: where this kernel can.
    if (!w_zero || !exact_int8_depthwise_conv_problem(w, attrs->group).empty())
      return Verdict::no("oneDNN's int8 convolution is exact for these weights on this CPU");
    inexact = "oneDNN 2.6 takes no weight zero points";
  }
  return Verdict::yes("exact int8 depthwise convolution, taps in 16-bit pairs (vpmaddwd): " +
                      inexact);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define STRATA_INT8_DEPTHWISE __attribute__((target("avx2")))

// 16 bytes of X at `at` (the first `count` of them when count < 16: the last block of channels,
// which must not read past the tensor) as int16.
template <bool kSigned>
STRATA_INT8_DEPTHWISE inline __m256i int8_depthwise_load(const uint8_t* at, int64_t count) {
  __m128i v;
  if (count >= kDepthwiseChannels) {
    v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  } else {
    alignas(16) uint8_t staged[16] = {};
    std::memcpy(staged, at, size_t(count));
    v = _mm_load_si128(reinterpret_cast<const __m128i*>(staged));
  }
  return kSigned ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v);
}

// One output pixel's int32 sums for every channel into sums[0 .. C). taps[0 .. pairs·2): each tap's
// C bytes of X (or the zero row). Σ (x − x_zero) · w' is computed as Σ x · w' − x_zero · Σ w': the
// second term, per channel, starts the sums (`start`, interleaved as the sums are), so x is not
// shifted tap by tap. Taps outside the image read x_zero, whose products that term cancels. The
// int32 sums wrap alike in both terms, so the result is exact wherever Σ (x − x_zero) · w' fits
// int32 (route: kh·kw ≤ 33025). kPixels output pixels at a time (their products independent, the
// weights loaded once): pixel i's taps at taps + i · 2·pairs, its sums at sums + i · C.
template <bool kSigned, int kPixels>
STRATA_INT8_DEPTHWISE void int8_depthwise_pixel(const uint8_t* const* taps, int64_t pairs,
                                                int64_t channels, const int16_t* packed,
                                                const int32_t* start, int32_t* sums) {
  for (int64_t c = 0; c < channels; c += kDepthwiseChannels) {
    const int64_t count = std::min(kDepthwiseChannels, channels - c);
    // Channels c..c+3 and c+8..c+11 in lo, c+4..c+7 and c+12..c+15 in hi (vpunpck* work within
    // 128-bit lanes); the packed weights are interleaved alike.
    const int32_t* s = start + c;
    __m256i lo[kPixels], hi[kPixels];
    for (int i = 0; i < kPixels; ++i) {
      lo[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
      hi[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 8));
    }
    const int16_t* w = packed + c / kDepthwiseChannels * pairs * 2 * kDepthwiseChannels;
    for (int64_t p = 0; p < pairs; ++p, w += 2 * kDepthwiseChannels) {
      const __m256i w_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      const __m256i w_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16));
      for (int i = 0; i < kPixels; ++i) {
        const uint8_t* const* t = taps + i * 2 * pairs;
        const __m256i x0 = int8_depthwise_load<kSigned>(t[2 * p] + c, count);
        const __m256i x1 = int8_depthwise_load<kSigned>(t[2 * p + 1] + c, count);
        lo[i] = _mm256_add_epi32(lo[i], _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), w_lo));
        hi[i] = _mm256_add_epi32(hi[i], _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), w_hi));
      }
    }
    for (int i = 0; i < kPixels; ++i) {
      // The last block of channels only `count` sums: the next pixel's follow (already stored).
      alignas(32) int32_t staged[kDepthwiseChannels];
      int32_t* out = count == kDepthwiseChannels ? sums + i * channels + c : staged;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                          _mm256_permute2x128_si256(lo[i], hi[i], 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8),
                          _mm256_permute2x128_si256(lo[i], hi[i], 0x31));
      if (out == staged)
        std::memcpy(sums + i * channels + c, staged, size_t(count) * sizeof(int32_t));
    }
  }
}

// Pairs of taps' weights (int16, less their zero points) interleaved as int8_depthwise_pixel
// multiplies them: w0 and w1 are two taps' 16 channels.
STRATA_INT8_DEPTHWISE void int8_depthwise_interleave(const int16_t* w0, const int16_t* w1,
                                                     int16_t* dst) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w0));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w1));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_unpacklo_epi16(a, b));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 16), _mm256_unpackhi_epi16(a, b));
}

#pragma GCC diagnostic pop

class ExactInt8DepthwiseConvKernel final : public Kernel {
 public:
  explicit ExactInt8DepthwiseConvKernel(const NodeRequest& r)
      : geometry_(r), quantization_(r), threads_(std::max(1, r.threads)) {
    name_ = "cpu:int8_depthwise_conv:avx2";  // AVX2 code also where AVX-512 is there (no VNNI)
    const Int8ConvGeometry& g = geometry_;
    taps_ = g.kernel_h * g.kernel_w;
    pairs_ = (taps_ + 1) / 2;
    blocks_ = (g.channels + kDepthwiseChannels - 1) / kDepthwiseChannels;

    // Per block of 16 channels, per pair of taps: 32 int16 (two registers) interleaved; zero past
    // C and past the last tap (it reads the zero row).
    const Tensor& w = *r.input(kInt8ConvW).value;
    const int8_t* wd = w.data<int8_t>();
    const std::vector<int32_t>& w_zero = quantization_.w_zero;
    const int64_t width = blocks_ * kDepthwiseChannels;
    std::vector<int16_t> by_tap(size_t(2 * pairs_ * width), 0);  // [tap][channel]
    for (int64_t c = 0; c < g.channels; ++c) {
      const int32_t z = w_zero.empty() ? 0 : w_zero[w_zero.size() == 1 ? 0 : size_t(c)];
      for (int64_t t = 0; t < taps_; ++t)
        by_tap[size_t(t * width + c)] = int16_t(int32_t(wd[c * taps_ + t]) - z);
    }
    packed_.assign(size_t(blocks_ * pairs_ * 2 * kDepthwiseChannels), 0);
    for (int64_t b = 0; b < blocks_; ++b)
      for (int64_t p = 0; p < pairs_; ++p)
        int8_depthwise_interleave(&by_tap[size_t(2 * p * width + b * kDepthwiseChannels)],
                                  &by_tap[size_t((2 * p + 1) * width + b * kDepthwiseChannels)],
                                  &packed_[size_t((b * pairs_ + p) * 2 * kDepthwiseChannels)]);
    // −x_zero · Σ w' per channel, in the sums' order: channels c..c+3, c+8..c+11 (lo), then
    // c+4..c+7, c+12..c+15 (hi), 16 int32 a block (see int8_depthwise_pixel).
    start_.assign(size_t(width), 0);
    for (int64_t c = 0; c < g.channels; ++c) {
      int64_t total = 0;
      for (int64_t t = 0; t < taps_; ++t) total += by_tap[size_t(t * width + c)];
      const int64_t i = c % kDepthwiseChannels, lane = i / 8, quarter = i % 8 / 4;
      start_[size_t(c - i + quarter * 8 + lane * 4 + i % 4)] =
          int32_t(uint32_t(-int64_t(quantization_.x_zero) * total));
    }
    // The taps' offsets from the window's first byte in X, for windows inside the image.
    for (int64_t ky = 0; ky < g.kernel_h; ++ky)
      for (int64_t kx = 0; kx < g.kernel_w; ++kx)
        offsets_.push_back((ky * g.dilation_h * g.in_w + kx * g.dilation_w) * g.channels);
    packed_bytes_ = int64_t((packed_.size() * sizeof(int16_t)) + start_.size() * sizeof(int32_t));
    zero_row_.assign(size_t(width), static_cast<uint8_t>(quantization_.x_zero));

    // Each thread's scratch: a row of output pixels' sums (and room for the last block's 16), the
    // taps' pointers of one pixel.
    rows_ = g.batch * g.out_h;
    workers_ = int(std::clamp<int64_t>(threads_, 1, std::max<int64_t>(1, rows_)));
    parts_ = std::min<int64_t>(rows_, kInt8ConvBlocksPerThread * workers_);
    taps_at_ =
        scratch_aligned((g.out_w * g.channels + kDepthwiseChannels) * int64_t(sizeof(int32_t)));
    worker_bytes_ = taps_at_ + scratch_aligned(4 * pairs_ * int64_t(sizeof(const uint8_t*)));
    scratch_bytes_ = worker_bytes_ * workers_;

    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    input_layouts_[kInt8ConvX] = Layout::kChannelsLast;
    output_layouts_ = {Layout::kChannelsLast};
    note_ = fmt::format("{}×{} taps in {} pairs, {} blocks of 16 channels", g.kernel_h, g.kernel_w,
                        pairs_, blocks_);
    if (workers_ > 1)
      note_ +=
          fmt::format("; output rows shared among {} threads in {} parts, each taking the next",
                      workers_, parts_);
    if (r.output_needs_plain[0])
      note_ += "; the output is written channels-last and made plain after";
  }

  void run(const KernelArgs& args) override {
    const auto* x = static_cast<const uint8_t*>(args.inputs[kInt8ConvX]->raw());
    auto* y = static_cast<uint8_t*>(args.outputs[0]->raw());
    auto* scratch = static_cast<char*>(args.scratch);
    if (workers_ == 1) {
      run_rows(x, y, 0, rows_, scratch);
      return;
    }
#pragma omp parallel num_threads(workers_)
    {
      char* mine = scratch + omp_get_thread_num() * worker_bytes_;
#pragma omp for schedule(dynamic, 1)
      for (int64_t i = 0; i < parts_; ++i)
        run_rows(x, y, rows_ * i / parts_, rows_ * (i + 1) / parts_, mine);
    }
  }

 private:
  // Output rows first .. last (row n·OH + oy).
  void run_rows(const uint8_t* x, uint8_t* y, int64_t first, int64_t last, char* scratch) const {
    const Int8ConvGeometry& g = geometry_;
    auto* sums = reinterpret_cast<int32_t*>(scratch);
    auto* taps = reinterpret_cast<const uint8_t**>(scratch + taps_at_);
    const int64_t c = g.channels;
    const int64_t stride = 2 * pairs_;  // two pixels' taps: see int8_depthwise_pixel
    for (int64_t i = taps_; i < stride; ++i) taps[i] = taps[stride + i] = zero_row_.data();
    for (int64_t row = first; row < last; ++row) {
      const int64_t n = row / g.out_h, oy = row % g.out_h;
      const int64_t y0 = oy * g.stride_h - g.pad_top;
      const bool rows_inside = y0 >= 0 && y0 + (g.kernel_h - 1) * g.dilation_h < g.in_h;
      for (int64_t ox = 0; ox < g.out_w; ox += 2) {
        const int pixels = ox + 1 < g.out_w ? 2 : 1;
        for (int i = 0; i < pixels; ++i) {
          const int64_t x0 = (ox + i) * g.stride_w - g.pad_left;
          const uint8_t** pixel_taps = taps + i * stride;
          if (rows_inside && x0 >= 0 && x0 + (g.kernel_w - 1) * g.dilation_w < g.in_w) {
            const uint8_t* window = x + ((n * g.in_h + y0) * g.in_w + x0) * c;
            for (int64_t t = 0; t < taps_; ++t) pixel_taps[t] = window + offsets_[size_t(t)];
          } else {
            fill_border_taps(x, n, y0, x0, pixel_taps);
          }
        }
        int32_t* at = sums + ox * c;
        const int16_t* w = packed_.data();
        const int32_t* s = start_.data();
        if (quantization_.x_signed) {
          if (pixels == 2)
            int8_depthwise_pixel<true, 2>(taps, pairs_, c, w, s, at);
          else
            int8_depthwise_pixel<true, 1>(taps, pairs_, c, w, s, at);
        } else {
          if (pixels == 2)
            int8_depthwise_pixel<false, 2>(taps, pairs_, c, w, s, at);
          else
            int8_depthwise_pixel<false, 1>(taps, pairs_, c, w, s, at);
        }
      }
      int8_requantize(sums, g.out_w, c, quantization_.requantization.get(), y + row * g.out_w * c);
    }
  }

  // The taps of a window that reaches past the image: those outside read the zero row.
  void fill_border_taps(const uint8_t* x, int64_t n, int64_t y0, int64_t x0,
                        const uint8_t** taps) const {
    const Int8ConvGeometry& g = geometry_;
    const int64_t c = g.channels;
    for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
      const int64_t iy = y0 + ky * g.dilation_h;
      const uint8_t** tap = taps + ky * g.kernel_w;
      if (iy < 0 || iy >= g.in_h) {
        std::fill(tap, tap + g.kernel_w, zero_row_.data());
        continue;
      }
      const uint8_t* line = x + (n * g.in_h + iy) * g.in_w * c;
      for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
        const int64_t ix = x0 + kx * g.dilation_w;
        tap[kx] = ix >= 0 && ix < g.in_w ? line + ix * c : zero_row_.data();
      }
    }
  }

  Int8ConvGeometry geometry_;
  Int8ConvQuantization quantization_;
  int threads_;
  int64_t taps_ = 1, pairs_ = 1, blocks_ = 1, rows_ = 0;
  std::vector<int16_t> packed_;    // [block][pair][32]: see int8_depthwise_pixel
  std::vector<int32_t> start_;     // the sums' start: −x_zero · Σ w' per channel, interleaved
  std::vector<int64_t> offsets_;   // each tap's offset in X from its window's first byte
  std::vector<uint8_t> zero_row_;  // X's zero point: the taps outside the image
  int workers_ = 1;
  int64_t parts_ = 1;                       // the output rows' parts the workers take one at a time
  int64_t taps_at_ = 0, worker_bytes_ = 0;  // bytes into a worker's scratch
};

std::unique_ptr<Kernel> int8_depthwise_conv_prepare(const NodeRequest& r) {
  return std::make_unique<ExactInt8DepthwiseConvKernel>(r);
}

}  // namespace

KernelFamily int8_conv_family() {
  return {"cpu_int8_conv", true, &int8_conv_serves, &int8_conv_supports, &int8_conv_prepare, false};
}

KernelFamily int8_depthwise_conv_family() {
  return {"cpu_int8_depthwise_conv",    true, &int8_conv_serves, &int8_depthwise_conv_supports,
          &int8_depthwise_conv_prepare, false};
}

}  // namespace strata::kernels::cpu
