// GroupNormalization (opsets 18 and 21): the channels of X [N, C, D...] are split into num_groups
// groups, each normalised over its channels and spatial positions:
//   y = (x - mean) / sqrt(var + epsilon) * scale + bias
// with scale and bias one value per channel [C] (opset 21) or per group [num_groups] (opset 18).
// Statistics in double. Cost per element: mean 1, variance 3, normalise 2, scale and shift 2.
#include "ops/group_norm.h"

#include <cmath>

namespace strata::ops {

namespace {

class GroupNormOp final : public Op {
 public:
  explicit GroupNormOp(const NodeInfo& node)
      : groups_(node.required_int("num_groups")),
        epsilon_(node.attr_float("epsilon", 1e-5f)),
        per_channel_(node.opset() >= 21) {
    if (groups_ <= 0) fail("attribute 'num_groups' must be positive, got {}", groups_);
  }

  GroupNormAttributes attributes() const { return {groups_, epsilon_, per_channel_}; }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() < 2) fail("X must have rank 2 or more, got {}", x.shape.str());
    const Dim& channels = x.shape[1];
    if (channels.is_static() && channels.value() % groups_)
      fail("{} channels do not divide into {} groups", channels.value(), groups_);
    const Dim want = per_channel_ ? channels : Dim(groups_);
    for (size_t i : {size_t(1), size_t(2)}) {
      const Meta& p = ctx.input(i);
      if (p.shape.rank() != 1 ||
          (p.shape[0].is_static() && want.is_static() && !(p.shape[0] == want)))
        fail("{} has shape {}; [{}] is needed", i == 1 ? "scale" : "bias", p.shape.str(),
             want.str());
    }
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 8);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t N = x.dim(0), C = x.dim(1);
    const int64_t spatial = C > 0 ? x.numel() / (N * C) : 0;
    const int64_t per_group = C / groups_;
    const std::vector<double> scale = ctx.input(1).to_double(), bias = ctx.input(2).to_double();
    const std::vector<double> in = x.to_double();
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      T* out = ctx.output(0).data<T>();
      for (int64_t n = 0; n < N; ++n)
        for (int64_t g = 0; g < groups_; ++g) {
          const int64_t begin = (n * C + g * per_group) * spatial, count = per_group * spatial;
          double sum = 0, squares = 0;
          for (int64_t i = 0; i < count; ++i) sum += in[size_t(begin + i)];
          const double mean = count > 0 ? sum / double(count) : 0;
          for (int64_t i = 0; i < count; ++i) {
            const double d = in[size_t(begin + i)] - mean;
            squares += d * d;
          }
          const double inv = 1 / std::sqrt((count > 0 ? squares / double(count) : 0) + epsilon_);
          for (int64_t i = 0; i < count; ++i) {
            const int64_t c = g * per_group + i / std::max<int64_t>(spatial, 1);
            const size_t p = size_t(per_channel_ ? c : g);
            out[begin + i] = T((in[size_t(begin + i)] - mean) * inv * scale[p] + bias[p]);
          }
        }
    });
  }

 private:
  int64_t groups_;
  float epsilon_;
  bool per_channel_;
};

}  // namespace

std::optional<GroupNormAttributes> group_norm_attributes(const Op& op) {
  const auto* norm = dynamic_cast<const GroupNormOp*>(&op);
  if (!norm) return std::nullopt;
  return norm->attributes();
}

std::unique_ptr<Op> make_group_norm(const NodeInfo& node) {
  return std::make_unique<GroupNormOp>(node);
}

}  // namespace strata::ops
