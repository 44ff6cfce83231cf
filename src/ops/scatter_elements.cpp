// ScatterElements: a copy of `data` where, for each element of `updates`, the element addressed
// like GatherElements is replaced (or combined by `reduction`). Also defines the reduction
// handling that ScatterND shares.
#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>

#include "ops/indexing.h"
#include "ops/layout_util.h"

namespace strata::ops {

// The `reduction` attribute (opset 16: none/add/mul, opset 18: max/min).
std::string parse_scatter_reduction(const NodeInfo& node) {
  std::string reduction = node.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    fail("attribute 'reduction' must be none, add, mul, max or min, not '{}'", reduction);
  return reduction;
}

void check_scatter_dtypes(const InferContext& ctx, const std::string& reduction) {
  require_fixed_size(ctx.dtype(0));
  require_index_dtype(ctx.dtype(1), "indices");
  if (ctx.dtype(2) != ctx.dtype(0))
    fail("input 'updates' is {}, but 'data' is {}", dtype_name(ctx.dtype(2)),
         dtype_name(ctx.dtype(0)));
  if (reduction != "none" && !visit_numeric(ctx.dtype(0), [](auto) {}))
    fail("reduction '{}' does not support dtype {}", reduction, dtype_name(ctx.dtype(0)));
}

// Data movement, plus one operation per update element when it is combined with a reduction.
Cost scatter_cost(const CostContext& ctx, const std::string& reduction) {
  Cost cost = data_movement_cost(ctx);
  if (reduction != "none") cost.flops = ctx.numel_in(2);
  return cost;
}

namespace {

template <class T>
void reduce_into(const std::string& reduction, const T* updates, std::span<const int64_t> offsets,
                 T* out) {
  // float16 and bfloat16 combine in float.
  using Compute = std::conditional_t<std::is_same_v<T, f16> || std::is_same_v<T, bf16>, float, T>;
  for (size_t i = 0; i < offsets.size(); ++i) {
    const Compute a = Compute(out[offsets[i]]), b = Compute(updates[i]);
    Compute r;
    if (reduction == "add") {
      r = Compute(a + b);
    } else if (reduction == "mul") {
      r = Compute(a * b);
    } else if (reduction == "max") {
      r = std::max(a, b);
    } else {
      r = std::min(a, b);
    }
    out[offsets[i]] = T(r);
  }
}

}  // namespace

// out = data, then update i goes to element offsets[i] of out, in order (later ones win).
void scatter_from_offsets(const std::string& reduction, const Tensor& data, const Tensor& updates,
                          std::span<const int64_t> offsets, Tensor& out) {
  if (int64_t(offsets.size()) != updates.numel())
    fail_internal("scatter of {} offsets for {} updates", offsets.size(), updates.numel());
  if (out.raw() != data.raw() && data.nbytes()) std::memcpy(out.raw(), data.raw(), data.nbytes());
  if (reduction == "none") {
    const size_t elem = dtype_size(data.dtype());
    const auto* from = static_cast<const std::byte*>(updates.raw());
    auto* to = static_cast<std::byte*>(out.raw());
    for (size_t i = 0; i < offsets.size(); ++i)
      std::memcpy(to + size_t(offsets[i]) * elem, from + i * elem, elem);
    return;
  }
  visit_numeric(data.dtype(), [&]<class T>(Type<T>) {
    reduce_into<T>(reduction, updates.data<T>(), offsets, out.data<T>());
  });
}

namespace {

class ScatterElementsOp final : public Op {
 public:
  explicit ScatterElementsOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", 0)), reduction_(parse_scatter_reduction(node)) {}

  ScatterElementsAttributes attributes() const { return {axis_, reduction_}; }

  void infer(InferContext& ctx) const override {
    check_scatter_dtypes(ctx, reduction_);
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    const Shape& updates = ctx.shape(2);
    if (data.rank() == 0) fail("input 'data' must have rank >= 1");
    check_element_indices_shape(data, indices, normalize_axis(axis_, data.rank()));
    check_same_shape(indices, updates);
    ctx.set_output(0, ctx.dtype(0), data);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return scatter_cost(ctx, reduction_);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& updates = ctx.input(2);
    check_same_shape(Shape::of(ctx.input(1).shape()), Shape::of(updates.shape()));
    const int64_t axis = normalize_axis(axis_, data.rank());
    scatter_from_offsets(reduction_, data, updates,
                         element_offsets(data.shape(), ctx.input(1), axis), ctx.output(0));
  }

 private:
  static void check_same_shape(const Shape& indices, const Shape& updates) {
    bool same = indices.rank() == updates.rank();
    for (int64_t d = 0; same && d < indices.rank(); ++d)
      same = !known_different(indices[d], updates[d]);
    if (!same)
      fail("input 'updates' of shape {} must have the shape of 'indices' {}", updates.str(),
           indices.str());
  }

  int64_t axis_;
  std::string reduction_;
};

}  // namespace

std::optional<ScatterElementsAttributes> scatter_elements_attributes(const Op& op) {
  const auto* scatter = dynamic_cast<const ScatterElementsOp*>(&op);
  if (!scatter) return std::nullopt;
  return scatter->attributes();
}

std::unique_ptr<Op> make_scatter_elements(const NodeInfo& node) {
  return std::make_unique<ScatterElementsOp>(node);
}

}  // namespace strata::ops
