// TopK: the k largest (or smallest) elements along an axis and their int64 indices. k is an
// attribute before opset 10 and the second input from then on. Equal values keep the lower index
// first; NaN counts as larger than every number.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

// A total order: NaN above every number, so sorting never sees an inconsistent comparison.
template <class C>
bool greater(C a, C b) {
  if (is_nan(a)) return !is_nan(b);
  if (is_nan(b)) return false;
  return a > b;
}

template <class T>
void topk_kernel(const Tensor& in, int64_t axis, bool largest, Tensor& values, Tensor& indices) {
  const AxisSplit s = split_at(in.shape(), axis, axis + 1);
  const int64_t k = values.dim(axis);
  if (k > s.n) fail("k = {} is larger than the axis size {}", k, s.n);
  const T* x = in.data<T>();
  T* out_values = values.data<T>();
  int64_t* out_indices = indices.data<int64_t>();
  std::vector<cmp_t<T>> line(size_t(s.n));
  std::vector<int64_t> order(size_t(s.n));
  auto before = [&](int64_t a, int64_t b) {
    const cmp_t<T> va = line[size_t(a)], vb = line[size_t(b)];
    if (largest ? greater(va, vb) : greater(vb, va)) return true;
    if (largest ? greater(vb, va) : greater(va, vb)) return false;
    return a < b;  // ties: lower index first
  };
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      for (int64_t j = 0; j < s.n; ++j) line[size_t(j)] = cmp_t<T>(x[s.offset(o, j, i)]);
      std::iota(order.begin(), order.end(), int64_t(0));
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t at = (o * k + j) * s.inner + i;
        out_values[at] = x[s.offset(o, order[size_t(j)], i)];
        out_indices[at] = order[size_t(j)];
      }
    }
  }
}

class TopKOp final : public Op {
 public:
  explicit TopKOp(const NodeInfo& node)
      : k_from_input_(node.opset() >= 10),
        axis_(node.attr_int("axis", -1)),
        largest_(node.attr_int("largest", 1) != 0) {
    if (!k_from_input_) k_attr_ = node.required_int("k");
    // 'sorted' = 0 leaves the order unspecified; the sorted order is one valid answer.
  }

  void infer(InferContext& ctx) const override {
    const Meta& data = ctx.input(0);
    if (!is_float(data.dtype) && !is_integer(data.dtype))
      fail("input does not support dtype {}", dtype_name(data.dtype));
    if (data.shape.rank() == 0) fail("input must have rank >= 1, got a scalar");
    const int64_t axis = normalize_axis(axis_, data.shape.rank());
    const int64_t k = k_from_input_ ? k_input(ctx) : k_attr_;
    if (k < 0) fail("k must be non-negative, got {}", k);
    const Dim& n = data.shape[axis];
    if (n.is_static() && k > n.value())
      fail("k = {} is larger than the axis size {}", k, n.value());
    Shape out = data.shape;
    out[axis] = k;
    ctx.set_output(0, data.dtype, out);
    ctx.set_output(1, DType::kI64, out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const int64_t axis = normalize_axis(axis_, ctx.input(0).shape.rank());
    const double k = double(ctx.output(0).shape[axis].value());
    c.flops = ctx.numel_in(0) * std::max(1.0, std::log2(k));  // comparisons of a partial sort
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, in.rank());
    Tensor& values = ctx.output(0);
    Tensor unused_indices;  // both outputs are required by the spec; tolerate a missing one
    if (ctx.num_outputs() < 2) unused_indices = Tensor::zeros(DType::kI64, values.shape());
    Tensor& indices = ctx.num_outputs() < 2 ? unused_indices : ctx.output(1);
    visit_numeric(in.dtype(),
                  [&]<class T>(Type<T>) { topk_kernel<T>(in, axis, largest_, values, indices); });
  }

 private:
  static int64_t k_input(const InferContext& ctx) {
    if (!is_integer(ctx.dtype(1))) fail("input 'K' must be an integer tensor");
    const std::vector<int64_t> k = ctx.ints(1);
    if (k.size() != 1) fail("input 'K' must hold one value, got {}", k.size());
    return k[0];
  }

  bool k_from_input_;
  int64_t axis_;
  bool largest_;
  int64_t k_attr_ = 0;
};

}  // namespace

std::unique_ptr<Op> make_topk(const NodeInfo& node) {
  return std::make_unique<TopKOp>(node);
}

}  // namespace strata::ops
