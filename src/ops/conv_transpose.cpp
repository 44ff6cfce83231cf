// ConvTranspose: the gradient of Conv with respect to its input, used as a learned upsampling.
// X is [N, C, D1..Dn], W is [C, M/group, k1..kn], B is [M]. Each input element scatters
// x * W[c, m, tap] to output position i*stride + tap*dilation - pad_begin.
// Cost: MACs = N * C * prod(input spatial) * (M/group) * prod(kernel); FLOPs = 2 * MACs plus one
// add per output element when B is present; param_bytes = bytes of W and B when constant.
#include "ops/conv_transpose.h"

#include <algorithm>

#include "core/checked.h"

namespace strata::ops {

namespace {

// Each input element scatters into (M/group) * prod(kernel) outputs, accumulated in double.
template <class T>
void conv_transpose_direct(const Tensor& x, const Tensor& w, const Tensor* b, const Window& window,
                           int64_t group, Tensor& y) {
  const std::vector<int64_t> in_dims = spatial_dims(x.shape());
  const std::vector<int64_t> out_dims = spatial_dims(y.shape());
  const int64_t in_plane = product(in_dims), out_plane = product(out_dims);
  const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = y.dim(1);
  const int64_t group_in = channels / group, group_out = out_channels / group;
  const int64_t taps = window.kernel_size();
  const int64_t step = window.strides.back();
  const std::vector<std::vector<MappedRow>> tap_rows = map_taps(window, in_dims, out_dims);

  std::vector<double> acc(static_cast<size_t>(out_plane));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t m = 0; m < out_channels; ++m) {
      std::fill(acc.begin(), acc.end(), b ? double(b->data<T>()[m]) : 0.0);
      const int64_t g = m / group_out, m_in_group = m % group_out;
      for (int64_t ic = 0; ic < group_in; ++ic) {
        const int64_t c = g * group_in + ic;
        const T* in = x.data<T>() + (n * channels + c) * in_plane;
        const T* weights = w.data<T>() + (c * group_out + m_in_group) * taps;
        for (int64_t t = 0; t < taps; ++t) {
          const double weight = double(weights[t]);
          for (const MappedRow& row : tap_rows[size_t(t)]) {
            double* out = acc.data() + row.q;
            const T* src = in + row.p;
            for (int64_t j = 0; j < row.count; ++j) out[j * step] += weight * double(src[j]);
          }
        }
      }
      T* out = y.data<T>() + (n * out_channels + m) * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) out[i] = T(acc[size_t(i)]);
    }
  }
}

class ConvTransposeOp final : public Op {
 public:
  explicit ConvTransposeOp(const NodeInfo& node)
      : attrs_(node),
        group_(node.attr_int("group", 1)),
        output_padding_(node.attr_ints("output_padding")),
        output_shape_(node.attr_ints("output_shape")) {
    if (group_ <= 0 || group_ > kMaxElements)
      fail("attribute 'group' must be in [1, {}], got {}", kMaxElements, group_);
    for (int64_t p : output_padding_)
      if (p < 0 || p > kMaxElements)
        fail("attribute 'output_padding' must be in [0, {}], got {}", kMaxElements, p);
    for (int64_t s : output_shape_)
      if (s < 0 || s > kMaxElements)
        fail("attribute 'output_shape' must be in [0, {}], got {}", kMaxElements, s);
  }

  void infer(InferContext& ctx) const override {
    check_conv_inputs(ctx);
    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    const Window window = resolve_conv_window(attrs_, x, w);
    if (x[1].is_static() && w[0].is_static() && x[1].value() != w[0].value())
      fail("X has {} channels but W has {} input channels", x[1].value(), w[0].value());
    if (w[0].is_static() && w[0].value() % group_ != 0)
      fail("W has {} input channels, not a multiple of group {}", w[0].value(), group_);
    const Dim out_channels = w[1] * Dim(group_);
    check_bias_size(ctx, out_channels);
    Shape out{x[0], out_channels};
    for (size_t d = 0; d < window.rank(); ++d)
      out.push_back(output_dim(window, d, x[int64_t(d) + 2]));
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    // Each input element feeds (M/group) * prod(kernel) = numel(W) / C products.
    const double channels = double(ctx.input(1).shape[0].value());
    const double macs = channels > 0 ? ctx.numel_in(0) * ctx.numel_in(1) / channels : 0;
    return conv_cost(ctx, macs);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    Tensor& y = ctx.output(0);
    const Window window = resolve_conv_window(attrs_, Shape::of(x.shape()), Shape::of(w.shape()));
    // Infer may have seen symbolic dims: check the concrete shapes before indexing with them.
    const int64_t out_channels = checked_mul(w.dim(1), group_);
    bool shape_ok = x.dim(1) == w.dim(0) && w.dim(0) % group_ == 0 && y.dim(0) == x.dim(0) &&
                    y.dim(1) == out_channels;
    for (size_t d = 0; d < window.rank(); ++d)
      shape_ok =
          shape_ok && output_dim(window, d, x.dim(int64_t(d) + 2)).value() == y.dim(int64_t(d) + 2);
    if (!shape_ok)
      fail("input shapes {} and {} do not fit the output", x.shape_str(), w.shape_str());
    if (b && b->numel() != out_channels)
      fail("bias B has {} values but there are {} output channels", b->numel(), out_channels);
    const Window applied = geometry(x.shape(), w.shape(), y.shape()).window;
    visit_float(x.dtype(),
                [&]<class T>(Type<T>) { conv_transpose_direct<T>(x, w, b, applied, group_, y); });
  }

  ConvTransposeGeometry geometry(const std::vector<int64_t>& x, const std::vector<int64_t>& w,
                                 const std::vector<int64_t>& y) const {
    const Window window = resolve_conv_window(attrs_, Shape::of(x), Shape::of(w));
    return {with_transpose_pads(window, spatial_dims(x), spatial_dims(y)), group_};
  }

 private:
  int64_t output_padding(size_t axis, size_t rank) const {
    if (output_padding_.empty()) return 0;
    if (output_padding_.size() != rank)
      fail("attribute 'output_padding' has {} values but the input has {} spatial axes",
           output_padding_.size(), rank);
    return output_padding_[axis];
  }

  // The output_shape attribute lists the spatial sizes, optionally preceded by N and C.
  int64_t requested_size(size_t axis, size_t rank) const {
    if (output_shape_.size() != rank && output_shape_.size() != rank + 2)
      fail("attribute 'output_shape' has {} values but the input has {} spatial axes",
           output_shape_.size(), rank);
    return output_shape_[output_shape_.size() - rank + axis];
  }

  // Output size along `axis`: output_shape when given, in * stride for auto_pad SAME, else
  // stride * (in - 1) + output_padding + kernel extent - pads.
  Dim output_dim(const Window& w, size_t axis, const Dim& in) const {
    const int64_t s = w.strides[axis];
    if (!output_shape_.empty()) return requested_size(axis, w.rank());
    if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) return in * s;
    const int64_t pads = w.auto_pad == AutoPad::kValid ? 0 : w.pads_begin[axis] + w.pads_end[axis];
    const int64_t grow = output_padding(axis, w.rank()) + w.extent(axis) - pads - s;
    const Dim out = add_const(in * s, grow);
    if (out.is_static() && out.value() < 0)
      fail("spatial axis {} would have a negative output size {}", axis, out.value());
    return out;
  }

  // The pads actually applied: when the output size is imposed (output_shape or auto_pad SAME),
  // the padding that trims the full result to it, the odd one at the end for SAME_UPPER and at the
  // beginning otherwise. A larger requested size pads nothing and leaves the rest at the bias.
  Window with_transpose_pads(const Window& window, const std::vector<int64_t>& in,
                             const std::vector<int64_t>& out) const {
    Window w = window;
    const bool imposed = !output_shape_.empty() || w.auto_pad == AutoPad::kSameUpper ||
                         w.auto_pad == AutoPad::kSameLower;
    for (size_t d = 0; d < w.rank(); ++d) {
      if (imposed) {
        const int64_t full = w.strides[d] * (in[d] - 1) + output_padding(d, w.rank()) + w.extent(d);
        const int64_t total = std::max<int64_t>(0, full - out[d]);
        w.pads_begin[d] = w.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      } else if (w.auto_pad == AutoPad::kValid) {
        w.pads_begin[d] = 0;
      }
    }
    return w;
  }

  WindowAttrs attrs_;
  int64_t group_;
  std::vector<int64_t> output_padding_;
  std::vector<int64_t> output_shape_;
};

}  // namespace

std::optional<ConvTransposeGeometry> conv_transpose_geometry(const Op& op,
                                                             const std::vector<int64_t>& x,
                                                             const std::vector<int64_t>& w,
                                                             const std::vector<int64_t>& y) {
  const auto* transpose = dynamic_cast<const ConvTransposeOp*>(&op);
  if (!transpose) return std::nullopt;
  return transpose->geometry(x, w, y);
}

std::unique_ptr<Op> make_conv_transpose(const NodeInfo& node) {
  return std::make_unique<ConvTransposeOp>(node);
}

}  // namespace strata::ops
