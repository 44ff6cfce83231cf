// GatherElements: out[i][j][k] = data[index][j][k] (for axis 0), index = indices[i][j][k].
// Also defines the element addressing that ScatterElements shares.
#include <span>

#include "ops/broadcast.h"
#include "ops/layout_util.h"

#include "ops/indexing.h"

namespace strata::ops {

// Checks that `indices` (same rank as data) addresses `data` along `axis`: on every other axis it
// may not be larger than data, since its own position is the coordinate there.
void check_element_indices_shape(const Shape& data, const Shape& indices, int64_t axis) {
  if (indices.rank() != data.rank())
    fail("input 'indices' has rank {}, but 'data' has rank {}", indices.rank(), data.rank());
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != axis && indices[d].is_static() && data[d].is_static() &&
        indices[d].value() > data[d].value())
      fail("input 'indices' of shape {} is larger than 'data' of shape {} on axis {}",
           indices.str(), data.str(), d);
}

// The element offset into a contiguous `data` for each element of `indices`, in order.
std::vector<int64_t> element_offsets(const std::vector<int64_t>& data_shape, const Tensor& indices,
                                     int64_t axis) {
  check_element_indices_shape(Shape::of(data_shape), Shape::of(indices.shape()), axis);
  std::vector<int64_t> strides = row_major_strides(data_shape);
  const int64_t axis_stride = strides[size_t(axis)];
  strides[size_t(axis)] = 0;  // the axis coordinate comes from the index value instead
  const std::vector<int64_t> values = indices.to_int64();
  std::vector<int64_t> offsets(values.size());
  for_each_broadcast<1>(indices.shape(), {strides}, [&](int64_t i, const auto& base) {
    const int64_t index = resolve_index(values[size_t(i)], data_shape[size_t(axis)], axis);
    offsets[size_t(i)] = base[0] + index * axis_stride;
  });
  return offsets;
}

namespace {

class GatherElementsOp final : public Op {
 public:
  explicit GatherElementsOp(const NodeInfo& node) : axis_(node.attr_int("axis", 0)) {}

  void infer(InferContext& ctx) const override {
    const Shape& data = ctx.shape(0);
    require_fixed_size(ctx.dtype(0));
    require_index_dtype(ctx.dtype(1), "indices");
    if (data.rank() == 0) fail("input 'data' must have rank >= 1");
    check_element_indices_shape(data, ctx.shape(1), normalize_axis(axis_, data.rank()));
    ctx.set_output(0, ctx.dtype(0), ctx.shape(1));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, data.rank());
    copy_from_offsets(data, element_offsets(data.shape(), ctx.input(1), axis), ctx.output(0));
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> make_gather_elements(const NodeInfo& node) {
  return std::make_unique<GatherElementsOp>(node);
}

}  // namespace strata::ops
