// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMean, ReduceMin, ReduceProd,
// ReduceSum and ReduceSumSquare: reduce a tensor over a set of axes (all axes when none are given).
#include <cmath>
#include <limits>
#include <string>

#include "ops/layout_util.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

enum class ReduceKind { kL1, kL2, kLogSum, kLogSumExp, kMax, kMean, kMin, kProd, kSum, kSumSquare };

ReduceKind reduce_kind_of(const std::string& op_type) {
  if (op_type == "ReduceL1") return ReduceKind::kL1;
  if (op_type == "ReduceL2") return ReduceKind::kL2;
  if (op_type == "ReduceLogSum") return ReduceKind::kLogSum;
  if (op_type == "ReduceLogSumExp") return ReduceKind::kLogSumExp;
  if (op_type == "ReduceMax") return ReduceKind::kMax;
  if (op_type == "ReduceMean") return ReduceKind::kMean;
  if (op_type == "ReduceMin") return ReduceKind::kMin;
  if (op_type == "ReduceProd") return ReduceKind::kProd;
  if (op_type == "ReduceSum") return ReduceKind::kSum;
  if (op_type == "ReduceSumSquare") return ReduceKind::kSumSquare;
  fail_internal("unknown reduction {}", op_type);
}

// An odometer over some axes of a row-major tensor: f(offset) for every index of `dims`, where
// offset = sum(index[d] * strides[d]), in row-major order.
struct OffsetWalk {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

template <class F>
void for_each_offset(const OffsetWalk& walk, F&& f) {
  if (walk.count() == 0) return;
  std::vector<int64_t> index(walk.dims.size(), 0);
  int64_t offset = 0;
  for (;;) {
    f(offset);
    size_t d = walk.dims.size();
    for (;;) {
      if (d == 0) return;  // every index wrapped around: done
      --d;
      if (++index[d] < walk.dims[d]) {
        offset += walk.strides[d];
        break;
      }
      offset -= walk.strides[d] * (walk.dims[d] - 1);
      index[d] = 0;
    }
  }
}

template <class A>
A abs_acc(A a) {
  if constexpr (std::is_floating_point_v<A>)
    return std::abs(a);
  else if constexpr (std::is_signed_v<A>)
    return a < 0 ? wrap_sub(A(0), a) : a;
  else
    return a;
}

// Reduces the values that `each(f)` passes to f (`count` of them; none for an empty set).
template <class T, class Each>
T reduce_values(ReduceKind kind, Each&& each, int64_t count) {
  using A = acc_t<T>;
  using C = cmp_t<T>;
  A acc = kind == ReduceKind::kProd ? A(1) : A(0);
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kLogSum:
    case ReduceKind::kMean: each([&](T v) { acc = wrap_add(acc, to_acc(v)); }); break;
    case ReduceKind::kL1: each([&](T v) { acc = wrap_add(acc, abs_acc(to_acc(v))); }); break;
    case ReduceKind::kL2:
    case ReduceKind::kSumSquare:
      each([&](T v) { acc = wrap_add(acc, wrap_mul(to_acc(v), to_acc(v))); });
      break;
    case ReduceKind::kProd: each([&](T v) { acc = wrap_mul(acc, to_acc(v)); }); break;
    case ReduceKind::kMax:
    case ReduceKind::kMin: {
      // The empty set reduces to the identity of max/min: -inf/+inf, or the type's extremes.
      const bool max = kind == ReduceKind::kMax;
      C best;
      if constexpr (is_float_like_v<T>)
        best = max ? -INFINITY : INFINITY;
      else
        best = max ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
      each([&](T v) {
        const C c = C(v);
        if (is_nan(c) || (max ? c > best : c < best)) best = c;  // NaN sticks: no c beats it
      });
      return T(best);
    }
    case ReduceKind::kLogSumExp: {
      double top = -INFINITY;
      each([&](T v) { top = std::max(top, double(v)); });
      const double shift = std::isfinite(top) ? top : 0;  // subtract the max for stability
      double sum = 0;
      each([&](T v) { sum += std::exp(double(v) - shift); });
      return saturate_cast<T>(shift + std::log(sum));
    }
  }
  if (kind == ReduceKind::kL2) return saturate_cast<T>(std::sqrt(double(acc)));
  if (kind == ReduceKind::kLogSum) return saturate_cast<T>(std::log(double(acc)));
  if (kind == ReduceKind::kMean) {
    if constexpr (is_float_like_v<T>)
      return from_acc<T>(acc / double(count));  // empty: NaN
    else
      return count == 0 ? T(0) : from_acc<T>(acc / A(count));  // truncates like numpy's cast
  }
  return from_acc<T>(acc);
}

template <class T>
void reduce_kernel(ReduceKind kind, const Tensor& in, const std::vector<bool>& reduced_mask,
                   Tensor& out) {
  OffsetWalk kept, reduced;
  int64_t stride = 1;
  for (int64_t d = in.rank() - 1; d >= 0; --d) {
    OffsetWalk& walk = reduced_mask[size_t(d)] ? reduced : kept;
    walk.dims.insert(walk.dims.begin(), in.dim(d));
    walk.strides.insert(walk.strides.begin(), stride);
    stride *= in.dim(d);
  }
  if (kept.count() != out.numel()) fail_internal("reduction output size does not match its shape");
  const T* x = in.data<T>();
  T* y = out.data<T>();
  const int64_t count = reduced.count();
  int64_t o = 0;
  for_each_offset(kept, [&](int64_t base) {
    auto each = [&](auto&& f) { for_each_offset(reduced, [&](int64_t r) { f(x[base + r]); }); };
    y[o++] = reduce_values<T>(kind, each, count);
  });
}

class ReduceOp final : public Op {
 public:
  explicit ReduceOp(const NodeInfo& node) : kind_(reduce_kind_of(node.op_type())) {
    keepdims_ = node.attr_int("keepdims", 1) != 0;
    // axes moved from an attribute to an optional input: ReduceSum in opset 13, the rest in 18.
    const int64_t axes_input_since = kind_ == ReduceKind::kSum ? 13 : 18;
    axes_from_input_ = node.opset() >= axes_input_since;
    if (axes_from_input_ && node.has_attr("axes"))
      fail("attribute 'axes' is not allowed from opset {}; axes is the second input",
           axes_input_since);
    if (!axes_from_input_) axes_attr_ = node.attr_ints("axes");
    noop_with_empty_axes_ = axes_from_input_ && node.attr_int("noop_with_empty_axes", 0) != 0;
  }

  void infer(InferContext& ctx) const override {
    const Meta& data = ctx.input(0);
    check_dtype(data.dtype);
    const std::vector<int64_t> axes =
        axes_from_input_ && ctx.has_input(1) ? ctx.ints(1) : axes_attr_;
    const std::vector<bool> mask = reduced_mask(axes, data.shape.rank());
    Shape out;
    out.reserve(size_t(data.shape.rank()));
    for (int64_t d = 0; d < data.shape.rank(); ++d) {
      if (!mask[size_t(d)])
        out.push_back(data.shape[d]);
      else if (keepdims_)
        out.push_back(1);
    }
    ctx.set_output(0, data.dtype, std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    double per_input = 1, per_output = 0;
    switch (kind_) {
      case ReduceKind::kL1:
      case ReduceKind::kSumSquare: per_input = 2; break;           // abs/square, add
      case ReduceKind::kL2: per_input = 2, per_output = 1; break;  // square, add; sqrt
      case ReduceKind::kLogSum: per_output = 1; break;             // add; log
      case ReduceKind::kMean: per_output = 1; break;               // add; divide
      case ReduceKind::kLogSumExp:
        per_input = 4, per_output = 2;
        break;         // max, sub, exp, add; log, add
      default: break;  // one add/mul/compare
    }
    Cost c = data_movement_cost(ctx);
    c.flops = per_input * ctx.numel_in(0) + per_output * ctx.numel_out(0);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const std::vector<int64_t> axes =
        axes_from_input_ && ctx.has_input(1) ? ctx.input(1).to_int64() : axes_attr_;
    const std::vector<bool> mask = reduced_mask(axes, in.rank());
    visit_all(in.dtype(),
              [&]<class T>(Type<T>) { reduce_kernel<T>(kind_, in, mask, ctx.output(0)); });
  }

 private:
  void check_dtype(DType dtype) const {
    const bool max_or_min = kind_ == ReduceKind::kMax || kind_ == ReduceKind::kMin;
    if (!is_float(dtype) && !is_integer(dtype) && !(max_or_min && dtype == DType::kBool))
      fail("input does not support dtype {}", dtype_name(dtype));
  }

  // Which axes are reduced. No axes means all of them, or none with noop_with_empty_axes (then
  // each output element "reduces" the single input element at its place).
  std::vector<bool> reduced_mask(const std::vector<int64_t>& axes, int64_t rank) const {
    if (axes.empty()) return std::vector<bool>(size_t(rank), !noop_with_empty_axes_);
    std::vector<bool> mask(size_t(rank), false);
    for (int64_t axis : normalize_axes(axes, rank, "axes value")) mask[size_t(axis)] = true;
    return mask;
  }

  ReduceKind kind_;
  bool keepdims_ = true;
  bool axes_from_input_ = false;
  bool noop_with_empty_axes_ = false;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

std::unique_ptr<Op> make_reduce(const NodeInfo& node) {
  return std::make_unique<ReduceOp>(node);
}

}  // namespace strata::ops
