#include "ops/conv_geometry.h"

#include <algorithm>

#include "core/checked.h"

namespace strata::ops {

namespace {

AutoPad parse_auto_pad(const std::string& text) {
  if (text.empty() || text == "NOTSET") return AutoPad::kNotSet;
  if (text == "SAME_UPPER") return AutoPad::kSameUpper;
  if (text == "SAME_LOWER") return AutoPad::kSameLower;
  if (text == "VALID") return AutoPad::kValid;
  fail("attribute 'auto_pad' has unknown value '{}'", text);
}

// An attribute with one entry per spatial axis, or `fallback` for each axis when absent.
std::vector<int64_t> per_axis(const std::vector<int64_t>& given, size_t rank, int64_t fallback,
                              const char* name) {
  if (given.empty()) return std::vector<int64_t>(rank, fallback);
  if (given.size() != rank)
    fail("attribute '{}' has {} values but the input has {} spatial axes", name, given.size(),
         rank);
  return given;
}

// Sizes beyond kMaxElements are absurd, and bounding them keeps the window arithmetic exact.
void require_in_range(const std::vector<int64_t>& values, int64_t min, const char* name) {
  for (int64_t v : values)
    if (v < min || v > kMaxElements)
      fail("attribute '{}' must be in [{}, {}], got {}", name, min, kMaxElements, v);
}

}  // namespace

int64_t Window::kernel_size() const {
  int64_t n = 1;
  for (int64_t k : kernel) n = checked_mul(n, k);  // a pooling kernel_shape comes from the file
  return n;
}

WindowAttrs::WindowAttrs(const NodeInfo& node)
    : kernel_shape_(node.attr_ints("kernel_shape")),
      strides_(node.attr_ints("strides")),
      dilations_(node.attr_ints("dilations")),
      pads_(node.attr_ints("pads")),
      auto_pad_(parse_auto_pad(node.attr_string("auto_pad", "NOTSET"))),
      ceil_mode_(node.attr_int("ceil_mode", 0) != 0) {
  require_in_range(kernel_shape_, 1, "kernel_shape");
  require_in_range(strides_, 1, "strides");
  require_in_range(dilations_, 1, "dilations");
  require_in_range(pads_, 0, "pads");
}

Window WindowAttrs::resolve(size_t rank, const std::vector<int64_t>& weight_kernel) const {
  Window w;
  if (weight_kernel.empty()) {
    if (kernel_shape_.empty()) fail("required attribute 'kernel_shape' is missing");
    w.kernel = per_axis(kernel_shape_, rank, 1, "kernel_shape");
  } else {
    w.kernel = weight_kernel;
    for (int64_t k : w.kernel)
      if (k <= 0) fail("the weight's spatial dims must be positive, got {}", k);
    if (has_kernel_shape() && kernel_shape_ != weight_kernel)
      fail("attribute 'kernel_shape' does not match the weight's spatial shape");
  }
  w.strides = per_axis(strides_, rank, 1, "strides");
  w.dilations = per_axis(dilations_, rank, 1, "dilations");
  if (!pads_.empty() && pads_.size() != 2 * rank)
    fail("attribute 'pads' has {} values but needs 2 per spatial axis ({})", pads_.size(),
         2 * rank);
  w.pads_begin.assign(rank, 0);
  w.pads_end.assign(rank, 0);
  if (!pads_.empty() && auto_pad_ == AutoPad::kNotSet) {
    w.pads_begin.assign(pads_.begin(), pads_.begin() + long(rank));
    w.pads_end.assign(pads_.begin() + long(rank), pads_.end());
  }
  w.auto_pad = auto_pad_;
  w.ceil_mode = ceil_mode_;
  for (size_t d = 0; d < rank; ++d) checked_mul(w.kernel[d] - 1, w.dilations[d]);  // extent fits
  return w;
}

Dim add_const(const Dim& d, int64_t c) {
  return c < 0 ? d - Dim(-c) : d + Dim(c);
}

Dim window_output_dim(const Window& w, size_t axis, const Dim& in) {
  const int64_t s = w.strides[axis];
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower)
    return ceil_div(in, s);
  const bool padded = w.auto_pad == AutoPad::kNotSet;
  const int64_t pad_begin = padded ? w.pads_begin[axis] : 0;
  const int64_t pad_end = padded ? w.pads_end[axis] : 0;
  // The window's first element can start anywhere in [0, in + pads - extent].
  const int64_t reach = pad_begin + pad_end - w.extent(axis);
  if (!in.is_static()) {
    if (w.ceil_mode) throw NotStatic{};
    return s == 1 ? add_const(in, reach + 1) : floor_div(add_const(in, reach), s) + 1;
  }
  const int64_t span = in.value() + reach;
  if (span < 0)
    fail("spatial axis {} of size {} is smaller than the kernel's extent {} (with padding {})",
         axis, in.value(), w.extent(axis), pad_begin + pad_end);
  int64_t out = (w.ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // In ceil mode the last window must still start inside the input or its leading padding.
  if (w.ceil_mode && (out - 1) * s >= in.value() + pad_begin) --out;
  return out;
}

Window with_forward_pads(const Window& window, const std::vector<int64_t>& in) {
  Window w = window;
  for (size_t d = 0; d < w.rank(); ++d) {
    if (w.auto_pad == AutoPad::kValid) {
      w.pads_begin[d] = w.pads_end[d] = 0;
    } else if (w.auto_pad != AutoPad::kNotSet) {
      const int64_t out = (in[d] + w.strides[d] - 1) / w.strides[d];
      const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[d] + w.extent(d) - in[d]);
      // SAME_UPPER puts the odd extra pad at the end, SAME_LOWER at the beginning.
      w.pads_begin[d] = w.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      w.pads_end[d] = total - w.pads_begin[d];
    }
  }
  return w;
}

std::vector<int64_t> spatial_dims(const std::vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin() + 2, shape.end());
}

void require_rank(const Shape& shape, int64_t min_spatial, const char* what) {
  if (shape.rank() < 2 + min_spatial)
    fail("input '{}' must have rank at least {} (N, C and {} spatial), got shape {}", what,
         2 + min_spatial, min_spatial, shape.str());
}

Window resolve_conv_window(const WindowAttrs& attrs, const Shape& x, const Shape& w) {
  const size_t rank = size_t(x.rank() - 2);
  std::vector<int64_t> kernel;
  kernel.reserve(rank);
  bool kernel_static = true;
  for (int64_t d = 2; d < w.rank(); ++d) {
    kernel_static = kernel_static && w[d].is_static();
    if (w[d].is_static()) kernel.push_back(w[d].value());
  }
  if (!kernel_static) {
    if (!attrs.has_kernel_shape()) throw NotStatic{};
    return attrs.resolve(rank);
  }
  return attrs.resolve(rank, kernel);
}

void check_conv_inputs(const InferContext& ctx) {
  const Meta& x = ctx.input(0);
  const Meta& w = ctx.input(1);
  if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
  if (w.dtype != x.dtype)
    fail("weight W has dtype {} but X has {}", dtype_name(w.dtype), dtype_name(x.dtype));
  require_rank(x.shape, 1, "X");
  if (w.shape.rank() != x.shape.rank())
    fail("weight W has shape {} but needs the rank of X {}", w.shape.str(), x.shape.str());
  if (!ctx.has_input(2)) return;
  const Meta& b = ctx.input(2);
  if (b.dtype != x.dtype)
    fail("bias B has dtype {} but X has {}", dtype_name(b.dtype), dtype_name(x.dtype));
  if (b.shape.rank() != 1) fail("bias B has shape {} but must be one-dimensional", b.shape.str());
}

void check_bias_size(const InferContext& ctx, const Dim& out_channels) {
  if (!ctx.has_input(2)) return;
  const Dim& size = ctx.shape(2)[0];
  if (size.is_static() && out_channels.is_static() && size.value() != out_channels.value())
    fail("bias B has {} values but there are {} output channels", size.value(),
         out_channels.value());
}

Cost conv_cost(const CostContext& ctx, double macs) {
  Cost c;
  c.macs = macs;
  c.flops = 2 * macs + (ctx.has_input(2) ? ctx.numel_out(0) : 0);
  c.bytes_read = ctx.all_input_bytes();
  c.bytes_written = ctx.all_output_bytes();
  for (size_t i = 1; i < 3; ++i)
    if (ctx.is_constant_input(i)) c.param_bytes += ctx.bytes_in(i);
  return c;
}

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = flat % dims[d];
    flat /= dims[d];
  }
  return index;
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<std::vector<MappedRow>> map_taps(const Window& w, const std::vector<int64_t>& p_dims,
                                             const std::vector<int64_t>& q_dims) {
  const size_t rank = w.rank();
  std::vector<std::vector<MappedRow>> taps(size_t(w.kernel_size()));
  if (rank == 0) {
    taps[0].push_back({0, 0, 1});
    return taps;
  }
  std::vector<int64_t> p_stride(rank, 1), q_stride(rank, 1);
  for (size_t d = rank - 1; d-- > 0;) {
    p_stride[d] = p_stride[d + 1] * p_dims[d + 1];
    q_stride[d] = q_stride[d + 1] * q_dims[d + 1];
  }
  for (size_t t = 0; t < taps.size(); ++t) {
    const std::vector<int64_t> k = unravel(int64_t(t), w.kernel);
    // Along each axis the valid p form [lo, hi): 0 <= p*stride + offset < q_dims.
    std::vector<int64_t> offset(rank), lo(rank), hi(rank);
    bool empty = false;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t s = w.strides[d];
      offset[d] = k[d] * w.dilations[d] - w.pads_begin[d];
      const int64_t last = q_dims[d] - 1 - offset[d];  // largest p*stride allowed
      lo[d] = offset[d] >= 0 ? 0 : (-offset[d] + s - 1) / s;
      hi[d] = last < 0 ? 0 : std::min(p_dims[d], last / s + 1);
      empty = empty || hi[d] <= lo[d];
    }
    if (empty) continue;
    std::vector<int64_t> index = lo;  // odometer over every axis but the last
    const size_t inner = rank - 1;
    while (true) {
      MappedRow row{0, 0, hi[inner] - lo[inner]};
      for (size_t d = 0; d < rank; ++d) {
        row.p += index[d] * p_stride[d];
        row.q += (index[d] * w.strides[d] + offset[d]) * q_stride[d];
      }
      taps[t].push_back(row);
      size_t d = inner;
      while (d > 0 && ++index[d - 1] == hi[d - 1]) {
        index[d - 1] = lo[d - 1];
        --d;
      }
      if (d == 0) break;
    }
  }
  return taps;
}

}  // namespace strata::ops
