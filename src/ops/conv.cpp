// Conv: N-D convolution (cross-correlation) with groups, strides, dilations, explicit or automatic
// pads and an optional bias. X is [N, C, D1..Dn], W is [M, C/group, k1..kn], B is [M].
// Cost: MACs = N * M * prod(output spatial) * (C/group) * prod(kernel); FLOPs = 2 * MACs plus one
// add per output element when B is present; param_bytes = bytes of W and B when constant.
#include <algorithm>

#include "core/checked.h"
#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

// The direct loop: for each output channel, every (input channel, kernel tap) pair adds a shifted
// input plane times one weight into a double accumulator plane.
template <class T>
void conv_direct(const Tensor& x, const Tensor& w, const Tensor* b, const Window& window,
                 int64_t group, Tensor& y) {
  const std::vector<int64_t> in_dims = spatial_dims(x.shape());
  const std::vector<int64_t> out_dims = spatial_dims(y.shape());
  const int64_t in_plane = product(in_dims), out_plane = product(out_dims);
  const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = y.dim(1);
  const int64_t group_in = channels / group, group_out = out_channels / group;
  const int64_t taps = window.kernel_size();
  const int64_t step = window.strides.back();
  const std::vector<std::vector<MappedRow>> tap_rows = map_taps(window, out_dims, in_dims);

  std::vector<double> acc(static_cast<size_t>(out_plane));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t m = 0; m < out_channels; ++m) {
      std::fill(acc.begin(), acc.end(), b ? double(b->data<T>()[m]) : 0.0);
      const int64_t first_channel = m / group_out * group_in;
      for (int64_t ic = 0; ic < group_in; ++ic) {
        const T* in = x.data<T>() + (n * channels + first_channel + ic) * in_plane;
        const T* weights = w.data<T>() + (m * group_in + ic) * taps;
        for (int64_t t = 0; t < taps; ++t) {
          const double weight = double(weights[t]);
          for (const MappedRow& row : tap_rows[size_t(t)]) {
            double* out = acc.data() + row.p;
            const T* src = in + row.q;
            if (step == 1) {  // the common case, kept separate so the compiler vectorises it
              for (int64_t j = 0; j < row.count; ++j) out[j] += weight * double(src[j]);
            } else {
              for (int64_t j = 0; j < row.count; ++j) out[j] += weight * double(src[j * step]);
            }
          }
        }
      }
      T* out = y.data<T>() + (n * out_channels + m) * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) out[i] = T(acc[size_t(i)]);
    }
  }
}

class ConvOp final : public Op {
 public:
  explicit ConvOp(const NodeInfo& node) : attrs_(node), group_(node.attr_int("group", 1)) {
    if (group_ <= 0 || group_ > kMaxElements)
      fail("attribute 'group' must be in [1, {}], got {}", kMaxElements, group_);
  }

  void infer(InferContext& ctx) const override {
    check_conv_inputs(ctx);
    const Shape& w = ctx.shape(1);
    check_bias_size(ctx, w[0]);
    const Window window = resolve_conv_window(attrs_, ctx.shape(0), w);
    ctx.set_output(0, ctx.dtype(0), output_shape(window, ctx.shape(0), w));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    // Each output element takes (C/group) * prod(kernel) = numel(W) / M products.
    const double out_channels = double(ctx.input(1).shape[0].value());
    const double macs = out_channels > 0 ? ctx.numel_out(0) * ctx.numel_in(1) / out_channels : 0;
    return conv_cost(ctx, macs);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    Tensor& y = ctx.output(0);
    const Shape x_shape = Shape::of(x.shape()), w_shape = Shape::of(w.shape());
    Window window = resolve_conv_window(attrs_, x_shape, w_shape);
    // Infer may have seen symbolic dims: check the concrete shapes before indexing with them.
    if (output_shape(window, x_shape, w_shape) != Shape::of(y.shape()))
      fail("output shape {} does not match the inputs", y.shape_str());
    if (b && b->numel() != w.dim(0))
      fail("bias B has {} values but there are {} output channels", b->numel(), w.dim(0));
    window = with_forward_pads(window, spatial_dims(x.shape()));
    visit_float(x.dtype(), [&]<class T>(Type<T>) { conv_direct<T>(x, w, b, window, group_, y); });
  }

 private:
  // [N, M, output spatial...], after checking X's channels against W's and the groups.
  Shape output_shape(const Window& window, const Shape& x, const Shape& w) const {
    const Dim& channels = x[1];
    if (channels.is_static() && w[1].is_static() &&
        channels.value() != checked_mul(w[1].value(), group_))
      fail("X has {} channels but W expects {} per group x {} groups", channels.value(),
           w[1].value(), group_);
    if (w[0].is_static() && w[0].value() % group_ != 0)
      fail("W has {} output channels, not a multiple of group {}", w[0].value(), group_);
    Shape out{x[0], w[0]};
    for (size_t d = 0; d < window.rank(); ++d)
      out.push_back(window_output_dim(window, d, x[int64_t(d) + 2]));
    return out;
  }

  WindowAttrs attrs_;
  int64_t group_;
};

}  // namespace

std::unique_ptr<Op> make_conv(const NodeInfo& node) {
  return std::make_unique<ConvOp>(node);
}

}  // namespace strata::ops
