// GatherND: each innermost row of `indices` (length k) addresses a slice data[i0, ..., ik-1, ...],
// after `batch_dims` leading dims that data and indices share. Also defines the slice addressing
// that ScatterND shares (with batch_dims 0).
#include <algorithm>
#include <span>

#include "ops/indexing.h"
#include "ops/layout_util.h"

namespace strata::ops {

// Validates data and indices shapes and returns k, the length of an index row.
int64_t check_nd_indices_shape(const Shape& data, const Shape& indices, int64_t batch_dims) {
  const int64_t r = data.rank(), q = indices.rank();
  if (r < 1) fail("input 'data' must have rank >= 1");
  if (q < 1) fail("input 'indices' must have rank >= 1");
  if (batch_dims < 0 || batch_dims >= std::min(q, r))
    fail("attribute 'batch_dims' {} must be in [0, {})", batch_dims, std::min(q, r));
  for (int64_t d = 0; d < batch_dims; ++d)
    if (known_different(data[d], indices[d]))
      fail("batch dim {} of 'indices' {} differs from 'data' {}", d, indices.str(), data.str());
  const int64_t k = indices[q - 1].value();  // the output rank depends on it
  if (k > r - batch_dims)
    fail("index rows of length {} are too long for 'data' of rank {} with {} batch dims", k, r,
         batch_dims);
  return k;
}

// The element offsets in `data` of the slices the index rows address (data.shape[batch_dims + k:]
// each), slice after slice: the data elements of the GatherND output in order.
std::vector<int64_t> nd_element_offsets(const std::vector<int64_t>& data_shape,
                                        const Tensor& indices, int64_t batch_dims) {
  const int64_t k =
      check_nd_indices_shape(Shape::of(data_shape), Shape::of(indices.shape()), batch_dims);
  const std::vector<int64_t> strides = row_major_strides(data_shape);
  const std::vector<int64_t> values = indices.to_int64();
  int64_t batches = 1, rows = 1;
  for (int64_t d = 0; d < batch_dims; ++d) batches *= data_shape[size_t(d)];
  for (int64_t d = batch_dims; d < indices.rank() - 1; ++d) rows *= indices.dim(d);
  const int64_t batch_stride = batch_dims > 0 ? strides[size_t(batch_dims - 1)] : 0;
  int64_t slice_size = 1;
  for (size_t d = size_t(batch_dims + k); d < data_shape.size(); ++d) slice_size *= data_shape[d];

  std::vector<int64_t> offsets;
  offsets.reserve(size_t(batches * rows * slice_size));
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t* index = values.data() + (b * rows + row) * k;
      int64_t offset = b * batch_stride;
      for (int64_t j = 0; j < k; ++j) {
        const size_t axis = size_t(batch_dims + j);
        offset += resolve_index(index[j], data_shape[axis], int64_t(axis)) * strides[axis];
      }
      for (int64_t i = 0; i < slice_size; ++i) offsets.push_back(offset + i);
    }
  return offsets;
}

namespace {

class GatherNdOp final : public Op {
 public:
  explicit GatherNdOp(const NodeInfo& node) : batch_dims_(node.attr_int("batch_dims", 0)) {}

  // Output shape: indices.shape[:-1] + data.shape[batch_dims + k:].
  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    require_index_dtype(ctx.dtype(1), "indices");
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    const int64_t k = check_nd_indices_shape(data, indices, batch_dims_);
    Shape out;
    for (int64_t d = 0; d + 1 < indices.rank(); ++d) out.push_back(indices[d]);
    for (int64_t d = batch_dims_ + k; d < data.rank(); ++d) out.push_back(data[d]);
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    copy_from_offsets(data, nd_element_offsets(data.shape(), ctx.input(1), batch_dims_),
                      ctx.output(0));
  }

 private:
  int64_t batch_dims_;
};

}  // namespace

std::unique_ptr<Op> make_gather_nd(const NodeInfo& node) {
  return std::make_unique<GatherNdOp>(node);
}

}  // namespace strata::ops
