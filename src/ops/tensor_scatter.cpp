// TensorScatter (opset 24): a KV-cache update. present = past_cache with, for each batch entry b,
// update's slices along `axis` (default -2, the sequence axis) written from write_indices[b]
// (0 when absent) on; mode "circular" wraps the index modulo the cache length, "linear" requires
// it to fit. The update's shape is the cache's except along `axis`. Data movement: 0 FLOPs.
#include <cstring>

#include "ops/indexing.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class TensorScatterOp final : public Op {
 public:
  explicit TensorScatterOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", -2)),
        circular_(node.attr_string("mode", "linear") == "circular") {
    const std::string mode = node.attr_string("mode", "linear");
    if (mode != "linear" && mode != "circular")
      fail("attribute 'mode' must be 'linear' or 'circular', not '{}'", mode);
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& cache = ctx.shape(0);
    const Shape& update = ctx.shape(1);
    if (ctx.dtype(1) != ctx.dtype(0))
      fail("input 'update' is {}, but 'past_cache' is {}", dtype_name(ctx.dtype(1)),
           dtype_name(ctx.dtype(0)));
    const int64_t axis = normalize_axis(axis_, cache.rank());
    if (axis == 0) fail("attribute 'axis' must not be the batch axis 0");
    bool same = update.rank() == cache.rank();
    for (int64_t d = 0; same && d < cache.rank(); ++d)
      same = d == axis || !known_different(cache[d], update[d]);
    if (!same)
      fail("input 'update' of shape {} must match 'past_cache' {} except on axis {}", update.str(),
           cache.str(), axis);
    if (ctx.has_input(2)) {
      if (!is_integer(ctx.dtype(2)))
        fail("input 'write_indices' must be an integer, not {}", dtype_name(ctx.dtype(2)));
      const Shape& indices = ctx.shape(2);
      if (indices.rank() != 1 || known_different(indices[0], cache[0]))
        fail("input 'write_indices' of shape {} must have one value per batch entry",
             indices.str());
    }
    ctx.set_output(0, ctx.dtype(0), cache);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& cache = ctx.input(0);
    const Tensor& update = ctx.input(1);
    Tensor& out = ctx.output(0);
    const int64_t axis = normalize_axis(axis_, cache.rank());
    std::vector<int64_t> starts(size_t(cache.dim(0)), 0);
    if (ctx.has_input(2)) starts = ctx.input(2).to_int64();
    if (int64_t(starts.size()) != cache.dim(0))
      fail("input 'write_indices' has {} values for {} batch entries", starts.size(), cache.dim(0));
    if (cache.nbytes()) std::memcpy(out.raw(), cache.raw(), cache.nbytes());
    const int64_t max_len = cache.dim(axis), len = update.dim(axis);
    int64_t outer = 1, inner = 1;  // outer: dims before axis (batch first); inner: after it
    for (int64_t d = 0; d < axis; ++d) outer *= cache.dim(d);
    for (int64_t d = axis + 1; d < cache.rank(); ++d) inner *= cache.dim(d);
    const int64_t per_batch = cache.dim(0) ? outer / cache.dim(0) : 0;
    const size_t row = size_t(inner) * dtype_size(cache.dtype());
    const auto* src = static_cast<const std::byte*>(update.raw());
    auto* dst = static_cast<std::byte*>(out.raw());
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t start = starts[size_t(o / per_batch)];
      for (int64_t s = 0; s < len; ++s) {
        int64_t at = start + s;
        if (circular_ && max_len > 0) at = ((at % max_len) + max_len) % max_len;
        if (at < 0 || at >= max_len)
          fail("write index {} + {} is outside the cache length {}", start, s, max_len);
        std::memcpy(dst + size_t(o * max_len + at) * row, src + size_t(o * len + s) * row, row);
      }
    }
  }

 private:
  int64_t axis_;
  bool circular_;
};

}  // namespace

std::unique_ptr<Op> make_tensor_scatter(const NodeInfo& node) {
  return std::make_unique<TensorScatterOp>(node);
}

}  // namespace strata::ops
