// Conv: N-D convolution (cross-correlation) with groups, strides, dilations, explicit or automatic
// pads and an optional bias. X is [N, C, D1..Dn], W is [M, C/group, k1..kn], B is [M].
// Cost: MACs = N * M * prod(output spatial) * (C/group) * prod(kernel); FLOPs = 2 * MACs plus one
// add per output element when B is present; param_bytes = bytes of W and B when constant.
#include "ops/conv.h"

#include <omp.h>

#include <algorithm>

#include "core/checked.h"

namespace strata::ops {

namespace {

// The direct loop: for each output channel, every (input channel, kernel tap) pair adds a shifted
// input plane times one weight into a double accumulator plane. Output planes are shared among
// the session's threads; each plane's result does not depend on the thread count.
template <class T>
void conv_direct(const Tensor& x, const Tensor& w, const Tensor* b, ConvPlan& plan, int64_t group,
                 Tensor& y) {
  const int64_t in_plane = product(plan.in_dims), out_plane = product(plan.out_dims);
  const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = y.dim(1);
  const int64_t group_in = channels / group, group_out = out_channels / group;
  const int64_t taps = plan.window.kernel_size();
  const int64_t step = plan.window.strides.back();

#pragma omp parallel for schedule(static) num_threads(plan.threads) if (plan.threads > 1)
  for (int64_t nm = 0; nm < batch * out_channels; ++nm) {
    const int64_t n = nm / out_channels, m = nm % out_channels;
    double* acc = plan.acc.data() + int64_t(omp_get_thread_num()) * out_plane;
    std::fill(acc, acc + out_plane, b ? double(b->data<T>()[m]) : 0.0);
    const int64_t first_channel = m / group_out * group_in;
    for (int64_t ic = 0; ic < group_in; ++ic) {
      const T* in = x.data<T>() + (n * channels + first_channel + ic) * in_plane;
      const T* weights = w.data<T>() + (m * group_in + ic) * taps;
      for (int64_t t = 0; t < taps; ++t) {
        const double weight = double(weights[t]);
        for (const MappedRow& row : plan.tap_rows[size_t(t)]) {
          double* out = acc + row.p;
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
    for (int64_t i = 0; i < out_plane; ++i) out[i] = T(acc[i]);
  }
}

class ConvOp final : public Op {
 public:
  explicit ConvOp(const NodeInfo& node) : attrs_(node), conv_(attrs_) {}
  const ConvAttributes& attributes() const { return attrs_; }

  void infer(InferContext& ctx) const override {
    check_conv_inputs(ctx);
    const Shape& w = ctx.shape(1);
    check_bias_size(ctx, w[0]);
    ctx.set_output(0, ctx.dtype(0), conv_.output_shape(ctx.shape(0), w));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    // Each output element takes (C/group) * prod(kernel) = numel(W) / M products.
    const double out_channels = double(ctx.input(1).shape[0].value());
    const double macs = out_channels > 0 ? ctx.numel_out(0) * ctx.numel_in(1) / out_channels : 0;
    return conv_cost(ctx, macs);
  }

  void run(KernelContext& ctx) const override {
    conv_.run(ctx.input(0), ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr,
              ctx.output(0));
  }

 private:
  ConvAttributes attrs_;
  mutable DirectConv conv_;  // holds a plan: the op runs on one thread of control at a time
};

}  // namespace

DirectConv::DirectConv(const ConvAttributes& attrs) : attrs_(&attrs) {}

Shape DirectConv::output_shape(const Shape& x, const Shape& w) const {
  return shape_of_output(resolve_conv_window(attrs_->window, x, w), x, w);
}

void DirectConv::run(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y) {
  ConvPlan& plan = plan_for(x, w, y);
  if (b && b->numel() != w.dim(0))
    fail("bias B has {} values but there are {} output channels", b->numel(), w.dim(0));
  visit_float(x.dtype(),
              [&]<class T>(Type<T>) { conv_direct<T>(x, w, b, plan, attrs_->group, y); });
}

// The plan for these shapes, rebuilt only when the shapes or the thread count change.
ConvPlan& DirectConv::plan_for(const Tensor& x, const Tensor& w, const Tensor& y) {
  const int threads = omp_get_max_threads();
  if (plan_.x_shape == x.shape() && plan_.w_shape == w.shape() && plan_.threads == threads)
    return plan_;
  const Shape x_shape = Shape::of(x.shape()), w_shape = Shape::of(w.shape());
  Window window = resolve_conv_window(attrs_->window, x_shape, w_shape);
  // Infer may have seen symbolic dims: check the concrete shapes before indexing with them.
  if (shape_of_output(window, x_shape, w_shape) != Shape::of(y.shape()))
    fail("output shape {} does not match the inputs", y.shape_str());
  ConvPlan plan;
  plan.x_shape = x.shape();
  plan.w_shape = w.shape();
  plan.threads = threads;
  plan.in_dims = spatial_dims(x.shape());
  plan.out_dims = spatial_dims(y.shape());
  plan.window = with_forward_pads(window, plan.in_dims);
  plan.tap_rows = map_taps(plan.window, plan.out_dims, plan.in_dims);
  plan.acc.resize(size_t(product(plan.out_dims) * threads));
  plan_ = std::move(plan);
  return plan_;
}

// [N, M, output spatial...], after checking X's channels against W's and the groups.
Shape DirectConv::shape_of_output(const Window& window, const Shape& x, const Shape& w) const {
  const int64_t group = attrs_->group;
  const Dim& channels = x[1];
  if (channels.is_static() && w[1].is_static() &&
      channels.value() != checked_mul(w[1].value(), group))
    fail("X has {} channels but W expects {} per group x {} groups", channels.value(), w[1].value(),
         group);
  if (w[0].is_static() && w[0].value() % group != 0)
    fail("W has {} output channels, not a multiple of group {}", w[0].value(), group);
  Shape out;
  out.reserve(2 + window.rank());
  out.push_back(x[0]);
  out.push_back(w[0]);
  for (size_t d = 0; d < window.rank(); ++d)
    out.push_back(window_output_dim(window, d, x[int64_t(d) + 2]));
  return out;
}

ConvAttributes::ConvAttributes(const NodeInfo& node)
    : window(node), group(node.attr_int("group", 1)) {
  if (group <= 0 || group > kMaxElements)
    fail("attribute 'group' must be in [1, {}], got {}", kMaxElements, group);
}

const ConvAttributes* conv_attributes(const Op& op) {
  const auto* conv = dynamic_cast<const ConvOp*>(&op);
  return conv ? &conv->attributes() : nullptr;
}

std::unique_ptr<Op> make_conv(const NodeInfo& node) {
  return std::make_unique<ConvOp>(node);
}

}  // namespace strata::ops
