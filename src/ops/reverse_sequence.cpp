// ReverseSequence: for each batch entry b, the first sequence_lens[b] elements along time_axis are
// reversed; the rest are copied. batch_axis and time_axis are 0 and 1 (either way round).
// Data movement: 0 FLOPs.
#include <cstring>

#include "ops/indexing.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class ReverseSequenceOp final : public Op {
 public:
  explicit ReverseSequenceOp(const NodeInfo& node)
      : batch_axis_(node.attr_int("batch_axis", 1)), time_axis_(node.attr_int("time_axis", 0)) {
    if ((batch_axis_ != 0 && batch_axis_ != 1) || (time_axis_ != 0 && time_axis_ != 1) ||
        batch_axis_ == time_axis_)
      fail("attributes 'batch_axis' {} and 'time_axis' {} must be 0 and 1, one each", batch_axis_,
           time_axis_);
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& x = ctx.shape(0);
    if (x.rank() < 2) fail("input must have rank >= 2, got shape {}", x.str());
    if (ctx.dtype(1) != DType::kI64)
      fail("input 'sequence_lens' must be int64, not {}", dtype_name(ctx.dtype(1)));
    const Shape& lens = ctx.shape(1);
    if (lens.rank() != 1 || known_different(lens[0], x[batch_axis_]))
      fail("input 'sequence_lens' of shape {} must have one value per batch entry ({})", lens.str(),
           x[batch_axis_].str());
    ctx.set_output(0, ctx.dtype(0), x);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> lens = ctx.input(1).to_int64();
    const int64_t batch = x.dim(batch_axis_), time = x.dim(time_axis_);
    if (int64_t(lens.size()) != batch)
      fail("input 'sequence_lens' has {} values for {} batch entries", lens.size(), batch);
    const std::vector<int64_t> strides = row_major_strides(x.shape());
    const size_t elem = dtype_size(x.dtype());
    const size_t row = size_t(strides[1]) * elem;  // bytes of one [batch or time] entry's rest
    const auto* src = static_cast<const std::byte*>(x.raw());
    auto* dst = static_cast<std::byte*>(ctx.output(0).raw());
    for (int64_t b = 0; b < batch; ++b) {
      if (lens[size_t(b)] < 0 || lens[size_t(b)] > time)
        fail("sequence_lens[{}] = {} is outside [0, {}]", b, lens[size_t(b)], time);
      for (int64_t t = 0; t < time; ++t) {
        const int64_t from_t = t < lens[size_t(b)] ? lens[size_t(b)] - 1 - t : t;
        auto offset = [&](int64_t tt) {
          return size_t(batch_axis_ == 0 ? b * strides[0] + tt * strides[1]
                                         : tt * strides[0] + b * strides[1]) *
                 elem;
        };
        std::memcpy(dst + offset(t), src + offset(from_t), row);
      }
    }
  }

 private:
  int64_t batch_axis_;
  int64_t time_axis_;
};

}  // namespace

std::unique_ptr<Op> make_reverse_sequence(const NodeInfo& node) {
  return std::make_unique<ReverseSequenceOp>(node);
}

}  // namespace strata::ops
