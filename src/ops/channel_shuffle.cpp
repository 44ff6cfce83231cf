// ChannelShuffle's shape rule, cost and reference kernel (see channel_shuffle.h): one copy of each
// channel's plane, from the channel it reads.
#include "ops/channel_shuffle.h"

#include <algorithm>
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class ChannelShuffleOp final : public Op {
 public:
  explicit ChannelShuffleOp(const NodeInfo& node) : group_(node.required_int("group")) {
    if (group_ < 1) fail("attribute 'group' is {}; at least 1 is needed", group_);
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& x = ctx.shape(0);
    if (x.rank() < 2) fail("input has rank {}; N, C and any other axes are needed", x.rank());
    if (x[1].is_static() && x[1].value() % group_ != 0)
      fail("{} channels do not split into {} groups", x[1].value(), group_);
    ctx.set_output(0, ctx.dtype(0), x);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t batch = x.dim(0), channels = x.dim(1);
    if (channels % group_ != 0) fail("{} channels do not split into {} groups", channels, group_);
    const size_t plane =
        size_t(x.numel() / std::max<int64_t>(batch * channels, 1)) * dtype_size(x.dtype());
    const auto* from = static_cast<const std::byte*>(x.raw());
    auto* to = static_cast<std::byte*>(y.raw());
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < channels; ++c)
        std::memcpy(
            to + size_t(n * channels + c) * plane,
            from + size_t(n * channels + shuffled_channel_source(c, channels, group_)) * plane,
            plane);
  }

  int64_t group() const { return group_; }

 private:
  int64_t group_;
};

}  // namespace

std::optional<int64_t> channel_shuffle_group(const Op& op) {
  const auto* shuffle = dynamic_cast<const ChannelShuffleOp*>(&op);
  return shuffle ? std::optional<int64_t>(shuffle->group()) : std::nullopt;
}

std::unique_ptr<Op> make_channel_shuffle(const NodeInfo& node) {
  return std::make_unique<ChannelShuffleOp>(node);
}

}  // namespace strata::ops
