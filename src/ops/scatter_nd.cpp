// ScatterND: a copy of `data` where each slice addressed like GatherND (index rows of length k)
// is replaced by, or combined by `reduction` with, the matching slice of `updates`.
#include <span>
#include <string>

#include "ops/op.h"

#include "ops/indexing.h"

namespace strata::ops {

namespace {

// updates.shape must be indices.shape[:-1] + data.shape[k:].
void check_updates_shape(const Shape& data, const Shape& indices, const Shape& updates) {
  const int64_t k = check_nd_indices_shape(data, indices, 0);
  Shape expected;
  for (int64_t d = 0; d + 1 < indices.rank(); ++d) expected.push_back(indices[d]);
  for (int64_t d = k; d < data.rank(); ++d) expected.push_back(data[d]);
  bool same = expected.rank() == updates.rank();
  for (int64_t d = 0; same && d < updates.rank(); ++d)
    same = !known_different(expected[d], updates[d]);
  if (!same)
    fail("input 'updates' has shape {}, expected {} from 'indices' and 'data'", updates.str(),
         expected.str());
}

class ScatterNdOp final : public Op {
 public:
  explicit ScatterNdOp(const NodeInfo& node) : reduction_(parse_scatter_reduction(node)) {}

  void infer(InferContext& ctx) const override {
    check_scatter_dtypes(ctx, reduction_);
    check_updates_shape(ctx.shape(0), ctx.shape(1), ctx.shape(2));
    ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return scatter_cost(ctx, reduction_);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    check_updates_shape(Shape::of(data.shape()), Shape::of(indices.shape()),
                        Shape::of(updates.shape()));
    scatter_from_offsets(reduction_, data, updates, nd_element_offsets(data.shape(), indices, 0),
                         ctx.output(0));
  }

 private:
  std::string reduction_;
};

}  // namespace

std::unique_ptr<Op> make_scatter_nd(const NodeInfo& node) {
  return std::make_unique<ScatterNdOp>(node);
}

}  // namespace strata::ops
