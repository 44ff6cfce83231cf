// Helpers shared by the conv/pool/norm family. Mostly sliding-window geometry for Conv,
// ConvTranspose, AveragePool and MaxPool: kernel shape, strides, dilations and pads (explicit or
// auto_pad), output sizes, and the position mapping between two spatial planes that their
// direct-loop kernels walk; also the mean/variance step of InstanceNorm and LayerNorm.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// A window resolved for a number of spatial axes: each vector has one entry per axis.
struct Window {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;  // as written; auto_pad SAME/VALID replace them per input size
  std::vector<int64_t> pads_end;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;

  size_t rank() const { return kernel.size(); }
  // Span of the dilated kernel along one axis.
  int64_t extent(size_t axis) const { return (kernel[axis] - 1) * dilations[axis] + 1; }
  int64_t kernel_size() const;  // product of the kernel dims
};

// The window attributes as written on a node. The kernel may only be known from W (Conv), so
// resolving for a spatial rank happens in infer and run.
class WindowAttrs {
 public:
  // Parses kernel_shape, strides, dilations, pads, auto_pad and ceil_mode.
  explicit WindowAttrs(const NodeInfo& node);

  bool has_kernel_shape() const { return !kernel_shape_.empty(); }
  // The window for `rank` spatial axes; fails when an attribute's length does not match. The
  // kernel is `weight_kernel` (W's spatial dims) when given, else the kernel_shape attribute.
  Window resolve(size_t rank, const std::vector<int64_t>& weight_kernel = {}) const;

 private:
  std::vector<int64_t> kernel_shape_, strides_, dilations_, pads_;
  AutoPad auto_pad_ = AutoPad::kNotSet;
  bool ceil_mode_ = false;
};

// `d + c`, written so that symbolic results read "(H-2)" rather than "(H+-2)".
Dim add_const(const Dim& d, int64_t c);

// Forward windows (Conv, pools): the output size along `axis` for input size `in`; symbolic when
// `in` is, except in ceil_mode (which needs the number).
Dim window_output_dim(const Window& window, size_t axis, const Dim& in);

// The window with the pads actually applied to an input of spatial sizes `in` (auto_pad SAME
// splits the padding that keeps ceil(in / stride) outputs; VALID pads nothing).
Window with_forward_pads(const Window& window, const std::vector<int64_t>& in);

// A window's spatial axes taken from a full NC... shape: dims [2, rank).
std::vector<int64_t> spatial_dims(const std::vector<int64_t>& shape);

// Checks that an input has a batch and a channel axis and at least `min_spatial` spatial axes.
void require_rank(const Shape& shape, int64_t min_spatial, const char* what);

// Conv and ConvTranspose: the window for input X and weight W, whose spatial dims are the kernel
// (the kernel_shape attribute stands in for symbolic ones).
Window resolve_conv_window(const WindowAttrs& attrs, const Shape& x, const Shape& w);

// Conv and ConvTranspose: X is a float type with spatial axes, W (and B when present) have X's
// dtype, W has X's rank and B is one-dimensional.
void check_conv_inputs(const InferContext& ctx);
// Conv and ConvTranspose: B, when present, has one value per output channel.
void check_bias_size(const InferContext& ctx, const Dim& out_channels);

// Conv and ConvTranspose: read/written bytes, param_bytes for constant W and B, and the FLOPs of
// `macs` multiply-accumulates plus one bias add per output element.
Cost conv_cost(const CostContext& ctx, double macs);

// The coordinates of flat row-major index `flat` within `dims`.
std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims);

// Product of dims.
int64_t product(const std::vector<int64_t>& dims);

// A run along the last axis: flat offsets p, p+1, ..., p+count-1 of a plane P pair with flat
// offsets q, q+step, q+2*step, ... of a plane Q, where step is the window's last stride.
struct MappedRow {
  int64_t p = 0;
  int64_t q = 0;
  int64_t count = 0;
};

// For each kernel tap (row-major over the kernel, as W stores them), the rows of positions p of
// plane P (dims p_dims) whose position q = p*stride + tap*dilation - pad_begin, axis by axis, lies
// inside plane Q (dims q_dims). This is the whole loop nest of the direct kernels: Conv and the
// pools read input q into output p, ConvTranspose scatters input p into output q.
std::vector<std::vector<MappedRow>> map_taps(const Window& window,
                                             const std::vector<int64_t>& p_dims,
                                             const std::vector<int64_t>& q_dims);

// Mean and 1/sqrt(variance + epsilon) of n values (population variance, two passes in double),
// as InstanceNormalization and LayerNormalization normalise.
struct Moments {
  double mean = 0;
  double inv_std_dev = 0;
};
template <class T>
Moments moments(const T* values, int64_t n, double epsilon) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += double(values[i]);
  const double mean = n > 0 ? sum / double(n) : 0;
  double squares = 0;
  for (int64_t i = 0; i < n; ++i)
    squares += (double(values[i]) - mean) * (double(values[i]) - mean);
  const double variance = n > 0 ? squares / double(n) : 0;
  return {mean, 1 / std::sqrt(variance + epsilon)};
}

}  // namespace strata::ops
