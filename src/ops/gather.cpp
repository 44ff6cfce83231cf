// Gather: picks slices of `data` along `axis` by index. Also home of the helpers the indexing ops
// share (gather_elements.cpp, gather_nd.cpp, scatter_elements.cpp, scatter_nd.cpp declare them).
#include "ops/gather.h"

#include <cstring>
#include <span>

#include "ops/layout_util.h"

namespace strata::ops {

// --- Shared by the indexing ops ---------------------------------------------------------------

// The index into a dimension of size `dim`, negative values counting from the end; fails naming
// the value and the axis when it is out of range, so no kernel ever reads or writes outside.
int64_t resolve_index(int64_t index, int64_t dim, int64_t axis) {
  if (index < -dim || index >= dim)
    fail("index {} is out of range for axis {} of size {}", index, axis, dim);
  return index < 0 ? index + dim : index;
}

void require_index_dtype(DType dtype, const char* input) {
  if (dtype != DType::kI32 && dtype != DType::kI64)
    fail("input '{}' must be int32 or int64, not {}", input, dtype_name(dtype));
}

// True when both dims are known and differ (symbolic dims are checked again at run time).
bool known_different(const Dim& a, const Dim& b) {
  return a.is_static() && b.is_static() && a.value() != b.value();
}

// dst[i] = src[offsets[i]] for every element of dst, copied by element size (any dtype).
void copy_from_offsets(const Tensor& src, std::span<const int64_t> offsets, Tensor& dst) {
  if (int64_t(offsets.size()) != dst.numel())
    fail_internal("gather of {} elements into an output of {}", offsets.size(), dst.numel());
  const size_t elem = dtype_size(src.dtype());
  const auto* from = static_cast<const std::byte*>(src.raw());
  auto* to = static_cast<std::byte*>(dst.raw());
  for (size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(to + i * elem, from + size_t(offsets[i]) * elem, elem);
}

// --- Gather ------------------------------------------------------------------------------------

namespace {

class GatherOp final : public Op {
 public:
  explicit GatherOp(const NodeInfo& node) : axis_(node.attr_int("axis", 0)) {}

  // Output shape: data.shape[:axis] + indices.shape + data.shape[axis+1:].
  void infer(InferContext& ctx) const override {
    const Shape& data = ctx.shape(0);
    require_fixed_size(ctx.dtype(0));
    require_index_dtype(ctx.dtype(1), "indices");
    if (data.rank() == 0) fail("input 'data' must have rank >= 1");
    const int64_t axis = normalize_axis(axis_, data.rank());
    Shape out;
    out.reserve(size_t(data.rank() - 1 + ctx.shape(1).rank()));
    for (int64_t d = 0; d < axis; ++d) out.push_back(data[d]);
    for (const Dim& d : ctx.shape(1).dims()) out.push_back(d);
    for (int64_t d = axis + 1; d < data.rank(); ++d) out.push_back(data[d]);
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, data.rank());
    const int64_t axis_dim = data.dim(axis);
    std::vector<int64_t> indices = ctx.input(1).to_int64();
    for (int64_t& index : indices) index = resolve_index(index, axis_dim, axis);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= data.dim(d);
    for (int64_t d = axis + 1; d < data.rank(); ++d) inner *= data.dim(d);

    std::vector<int64_t> offsets;
    offsets.reserve(size_t(outer) * indices.size() * size_t(inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t index : indices)
        for (int64_t i = 0; i < inner; ++i) offsets.push_back((o * axis_dim + index) * inner + i);
    copy_from_offsets(data, offsets, ctx.output(0));
  }

  int64_t axis() const { return axis_; }

 private:
  int64_t axis_;
};

}  // namespace

std::optional<int64_t> gather_axis(const Op& op) {
  const auto* gather = dynamic_cast<const GatherOp*>(&op);
  if (!gather) return std::nullopt;
  return gather->axis();
}

std::unique_ptr<Op> make_gather(const NodeInfo& node) {
  return std::make_unique<GatherOp>(node);
}

}  // namespace strata::ops
