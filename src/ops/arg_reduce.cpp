// ArgMax and ArgMin: the int64 index of the largest / smallest element along one axis.
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

// Whether `v` replaces the current best `best`. NaN beats every number (like numpy's argmax and
// argmin); ties keep the first index unless select_last_index asks for the last.
template <class C>
bool replaces(C v, C best, bool find_max, bool select_last) {
  if (is_nan(v)) return !is_nan(best) || select_last;
  if (is_nan(best)) return false;
  if (v == best) return select_last;
  return find_max ? v > best : v < best;
}

template <class T>
void arg_reduce_kernel(const Tensor& in, int64_t axis, bool find_max, bool select_last,
                       Tensor& out) {
  const AxisSplit s = split_at(in.shape(), axis, axis + 1);
  if (out.numel() != s.outer * s.inner) fail_internal("ArgMax/ArgMin output size mismatch");
  if (s.n == 0 && out.numel() > 0) fail("cannot take the arg max/min of an empty axis");
  const T* x = in.data<T>();
  int64_t* y = out.data<int64_t>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      int64_t best_index = 0;
      cmp_t<T> best = cmp_t<T>(x[s.offset(o, 0, i)]);
      for (int64_t j = 1; j < s.n; ++j) {
        const cmp_t<T> v = cmp_t<T>(x[s.offset(o, j, i)]);
        if (replaces(v, best, find_max, select_last)) best = v, best_index = j;
      }
      y[o * s.inner + i] = best_index;
    }
  }
}

class ArgReduceOp final : public Op {
 public:
  explicit ArgReduceOp(const NodeInfo& node)
      : find_max_(node.op_type() == "ArgMax"),
        axis_(node.attr_int("axis", 0)),
        keepdims_(node.attr_int("keepdims", 1) != 0),
        select_last_(node.attr_int("select_last_index", 0) != 0) {}

  void infer(InferContext& ctx) const override {
    const Meta& data = ctx.input(0);
    if (!is_float(data.dtype) && !is_integer(data.dtype))
      fail("input does not support dtype {}", dtype_name(data.dtype));
    if (data.shape.rank() == 0) fail("input must have rank >= 1, got a scalar");
    const int64_t axis = normalize_axis(axis_, data.shape.rank());
    const Dim& reduced = data.shape[axis];
    if (reduced.is_static() && reduced.value() == 0)
      fail("cannot take the arg max/min of an empty axis {}", axis);
    Shape out;
    for (int64_t d = 0; d < data.shape.rank(); ++d) {
      if (d != axis)
        out.push_back(data.shape[d]);
      else if (keepdims_)
        out.push_back(1);
    }
    ctx.set_output(0, DType::kI64, std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    c.flops = ctx.numel_in(0);  // one comparison per element
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, in.rank());
    visit_numeric(in.dtype(), [&]<class T>(Type<T>) {
      arg_reduce_kernel<T>(in, axis, find_max_, select_last_, ctx.output(0));
    });
  }

 private:
  bool find_max_;
  int64_t axis_;
  bool keepdims_;
  bool select_last_;
};

}  // namespace

std::unique_ptr<Op> make_arg_reduce(const NodeInfo& node) {
  return std::make_unique<ArgReduceOp>(node);
}

}  // namespace strata::ops
