// OneHot: out has a new axis of size `depth` holding values[1] (on) at each index and values[0]
// (off) elsewhere. Indices outside [-depth, depth-1] give an all-off row, as the spec says.
#include <cmath>
#include <cstring>

#include "core/checked.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class OneHotOp final : public Op {
 public:
  explicit OneHotOp(const NodeInfo& node) : axis_(node.attr_int("axis", -1)) {}

  void infer(InferContext& ctx) const override {
    const Shape& indices = ctx.shape(0);
    require_numeric(ctx.dtype(0), "indices");
    require_numeric(ctx.dtype(1), "depth");
    if (ctx.shape(2).rank() != 1 || known_not(ctx.shape(2)[0], 2))
      fail("input 'values' must be [off_value, on_value], not of shape {}", ctx.shape(2).str());
    require_fixed_size(ctx.dtype(2));
    const int64_t axis = normalize_axis(axis_, indices.rank() + 1);
    const int64_t depth = depth_of(ctx.value(1));
    Shape out = indices;
    out.insert(size_t(axis), Dim(depth));
    ctx.set_output(0, ctx.dtype(2), out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(2);
    Tensor& out = ctx.output(0);
    const int64_t axis = normalize_axis(axis_, indices.rank() + 1);
    const int64_t depth = depth_of(ctx.input(1));
    if (values.numel() != 2) fail("input 'values' must hold 2 elements, not {}", values.numel());
    const size_t elem = dtype_size(values.dtype());
    const auto* off = static_cast<const std::byte*>(values.raw());
    const auto* on = off + elem;
    auto* to = static_cast<std::byte*>(out.raw());
    out.fill_with(off);

    int64_t inner = 1;
    for (int64_t d = axis; d < indices.rank(); ++d) inner *= indices.dim(d);
    const std::vector<double> index_values = indices.to_double();
    for (size_t p = 0; p < index_values.size(); ++p) {
      const double index = std::trunc(index_values[p]);  // float indices are cast to integers
      if (!(index >= double(-depth) && index < double(depth))) continue;  // also skips NaN
      const int64_t hot = index < 0 ? int64_t(index) + depth : int64_t(index);
      const int64_t outer = int64_t(p) / inner, in = int64_t(p) % inner;
      std::memcpy(to + size_t((outer * depth + hot) * inner + in) * elem, on, elem);
    }
  }

 private:
  static void require_numeric(DType dtype, const char* input) {
    if (!visit_numeric(dtype, [](auto) {}))
      fail("input '{}' must be numeric, not {}", input, dtype_name(dtype));
  }
  static bool known_not(const Dim& d, int64_t value) { return d.is_static() && d.value() != value; }

  static int64_t depth_of(const Tensor& depth) {
    if (depth.numel() != 1) fail("input 'depth' must hold one value, not {}", depth.numel());
    const double value = depth.to_double()[0];
    if (!(value >= 0 && value <= double(kMaxElements)))
      fail("input 'depth' {} must be a non-negative size", value);
    return int64_t(value);
  }

  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> make_one_hot(const NodeInfo& node) {
  return std::make_unique<OneHotOp>(node);
}

}  // namespace strata::ops
