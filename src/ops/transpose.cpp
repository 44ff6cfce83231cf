// Transpose: permutes the axes; the default permutation reverses them.
#include "ops/transpose.h"

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class TransposeOp final : public Op {
 public:
  explicit TransposeOp(const NodeInfo& node) : perm_(optional_ints_attr(node, "perm")) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const std::vector<int64_t> perm = permutation(in.rank());
    Shape out;
    out.reserve(perm.size());
    for (int64_t axis : perm) out.push_back(in[axis]);
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  std::vector<int64_t> permutation(int64_t rank) const {
    if (!perm_) {
      std::vector<int64_t> reversed;
      for (int64_t axis = rank; axis-- > 0;) reversed.push_back(axis);
      return reversed;
    }
    if (int64_t(perm_->size()) != rank)
      fail("attribute 'perm' has {} entries for an input of rank {}", perm_->size(), rank);
    // Negative entries are not allowed in a permutation.
    for (int64_t axis : *perm_)
      if (axis < 0 || axis >= rank) fail("attribute 'perm' entry {} is out of range", axis);
    normalize_axes(*perm_, rank, "attribute 'perm' entry");  // rejects repeats
    return *perm_;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    const std::vector<int64_t> perm = permutation(src.rank());
    const std::vector<int64_t> src_strides = row_major_strides(src.shape());
    std::vector<int64_t> strides;
    for (int64_t axis : perm) strides.push_back(src_strides[size_t(axis)]);
    strided_copy(src.raw(), 0, strides, dst.shape(), dst.raw(), dtype_size(src.dtype()));
  }

 private:
  std::optional<std::vector<int64_t>> perm_;
};

}  // namespace

std::optional<std::vector<int64_t>> transpose_permutation(const Op& op, int64_t rank) {
  const auto* transpose = dynamic_cast<const TransposeOp*>(&op);
  if (!transpose) return std::nullopt;
  return transpose->permutation(rank);
}

std::unique_ptr<Op> make_transpose(const NodeInfo& node) {
  return std::make_unique<TransposeOp>(node);
}

}  // namespace strata::ops
