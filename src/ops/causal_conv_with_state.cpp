// CausalConvWithState (opset 27): a causal depthwise 1-D convolution that carries its left
// context between calls, as in Mamba-style and linear-attention models.
//   input [B, C, L], weight [C, 1, K], bias [C] (optional), past_state [B, C, K-1] (optional,
//   zeros when absent); padded = concat(past_state, input) along the time axis;
//   output [B, C, L] = depthwise valid convolution of padded (+ bias), then the activation
//   ("none", or "silu"/"swish": x·sigmoid(x)); present_state = the last K-1 steps of padded.
// Cost: K multiply-adds per output element (2 FLOPs each), plus 1 for the bias and 4 for silu.
#include <cmath>

#include "ops/indexing.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

class CausalConvWithStateOp final : public Op {
 public:
  explicit CausalConvWithStateOp(const NodeInfo& node) {
    const std::string activation = node.attr_string("activation", "none");
    if (activation == "silu" || activation == "swish") {
      silu_ = true;
    } else if (activation != "none") {
      fail("attribute 'activation' must be 'none', 'silu' or 'swish', not '{}'", activation);
    }
  }

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.dtype(0);
    if (!is_float(dtype)) fail("does not support dtype {}", dtype_name(dtype));
    const Shape& x = ctx.shape(0);
    const Shape& w = ctx.shape(1);
    if (x.rank() != 3) fail("input must be [batch, channels, length], got shape {}", x.str());
    if (w.rank() != 3 || known_different(w[0], x[1]) || known_different(w[1], Dim(1)))
      fail("input 'weight' of shape {} must be [channels, 1, kernel] with channels {}", w.str(),
           x[1].str());
    for (size_t i = 1; i < 4; ++i)
      if (ctx.has_input(i) && ctx.dtype(i) != dtype)
        fail("input {} is {}, but the input is {}", i, dtype_name(ctx.dtype(i)), dtype_name(dtype));
    if (ctx.has_input(2) && (ctx.shape(2).rank() != 1 || known_different(ctx.shape(2)[0], x[1])))
      fail("input 'bias' of shape {} must be [channels]", ctx.shape(2).str());
    const Dim state_len = w[2] - Dim(1);
    if (ctx.has_input(3)) {
      const Shape& past = ctx.shape(3);
      if (past.rank() != 3 || known_different(past[0], x[0]) || known_different(past[1], x[1]) ||
          known_different(past[2], state_len))
        fail("input 'past_state' of shape {} must be [batch, channels, kernel - 1]", past.str());
    }
    ctx.set_output(0, dtype, x);
    if (ctx.num_outputs() > 1) ctx.set_output(1, dtype, Shape{x[0], x[1], state_len});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const double k = double(ctx.input(1).shape[2].value());
    Cost c = elementwise_cost(ctx, 2 * k + (ctx.has_input(2) ? 1 : 0) + (silu_ ? 4 : 0));
    c.macs = ctx.numel_out(0) * k;
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t batch = x.dim(0), channels = x.dim(1), len = x.dim(2);
    const int64_t k = ctx.input(1).dim(2), state = k - 1;
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* in = x.data<T>();
      const T* w = ctx.input(1).data<T>();
      const T* bias = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
      const T* past = ctx.has_input(3) ? ctx.input(3).data<T>() : nullptr;
      T* out = ctx.output(0).data<T>();
      T* present = ctx.num_outputs() > 1 ? ctx.output(1).data<T>() : nullptr;
      std::vector<double> padded(size_t(state + len));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t line = b * channels + c;
          for (int64_t t = 0; t < state; ++t)
            padded[size_t(t)] = past ? double(past[line * state + t]) : 0.0;
          for (int64_t t = 0; t < len; ++t) padded[size_t(state + t)] = double(in[line * len + t]);
          for (int64_t t = 0; t < len; ++t) {
            double acc = bias ? double(bias[c]) : 0.0;
            for (int64_t j = 0; j < k; ++j) acc += double(w[c * k + j]) * padded[size_t(t + j)];
            if (silu_) acc = acc / (1 + std::exp(-acc));
            out[line * len + t] = from_acc<T>(acc);
          }
          if (present)
            for (int64_t t = 0; t < state; ++t)
              present[line * state + t] = from_acc<T>(padded[size_t(len + t)]);
        }
    });
  }

 private:
  bool silu_ = false;
};

}  // namespace

std::unique_ptr<Op> make_causal_conv_with_state(const NodeInfo& node) {
  return std::make_unique<CausalConvWithStateOp>(node);
}

}  // namespace strata::ops
