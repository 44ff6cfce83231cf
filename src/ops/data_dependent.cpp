// Ops whose output shapes depend on input values: NonZero, Compress, Unique. Their shape rules
// give the exact shape when the deciding input's value is known (a constant, or while running:
// the session infers dynamic steps again with their inputs' values) and a fresh symbolic dim
// otherwise, so the node is planned as dynamic and analysis states the dim as unknown.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "ops/layout_util.h"
#include "ops/op.h"
#include "ops/upper_bound.h"

namespace strata::ops {

namespace {

// Each element of `t` as a long double (exact for every integer and float dtype on x86-64).
std::vector<long double> keys_of(const Tensor& t) {
  std::vector<long double> keys(size_t(t.numel()));
  visit_all(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < keys.size(); ++i) {
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        keys[i] = static_cast<long double>(float(p[i]));
      else
        keys[i] = static_cast<long double>(p[i]);
    }
  });
  return keys;
}

// The flat positions of the non-zero elements of `t` (NaN is non-zero), in order. Read in the
// element type: SSD heads run a NonZero per class on every box's score, so a copy of each element
// as a long double (keys_of) cost more than the rest of the step.
std::vector<int64_t> nonzero_positions(const Tensor& t) {
  std::vector<int64_t> at;
  visit_all(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      bool nonzero;
      if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
        nonzero = float(p[i]) != 0.0f;
      else
        nonzero = static_cast<long double>(p[i]) != 0;
      if (nonzero) at.push_back(i);
    }
  });
  return at;
}

// Truth of each element (non-zero), for Compress's condition.
std::vector<bool> truths_of(const Tensor& t) {
  std::vector<bool> truth(size_t(t.numel()), false);
  for (int64_t i : nonzero_positions(t)) truth[size_t(i)] = true;
  return truth;
}

// Copies slices `picks` (indices along `axis`) of `src` into `dst`, in order.
void gather_slices(const Tensor& src, int64_t axis, const std::vector<int64_t>& picks,
                   Tensor& dst) {
  int64_t outer = 1, inner = int64_t(dtype_size(src.dtype()));
  for (int64_t d = 0; d < axis; ++d) outer *= src.dim(d);
  for (int64_t d = axis + 1; d < src.rank(); ++d) inner *= src.dim(d);
  const int64_t length = src.dim(axis);
  const auto* from = static_cast<const uint8_t*>(src.raw());
  auto* to = static_cast<uint8_t*>(dst.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < picks.size(); ++k)
      std::memcpy(to + (o * int64_t(picks.size()) + int64_t(k)) * inner,
                  from + (o * length + picks[k]) * inner, size_t(inner));
}

class NonZeroOp final : public Op {
 public:
  explicit NonZeroOp(const NodeInfo&) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Meta& x = ctx.input(0);
    const int64_t rank = std::max<int64_t>(x.shape.rank(), 1);  // a scalar counts as [1]
    Dim count;
    if (!x.value) {
      count = data_dependent(x.shape.numel(), "output count at most the input's elements");
    } else {
      count = int64_t(nonzero_positions(*x.value).size());
    }
    ctx.set_output(0, DType::kI64, Shape{rank, count});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> at = nonzero_positions(x);
    std::vector<int64_t> shape = x.shape();
    if (shape.empty()) shape = {1};
    Tensor& out = ctx.output(0);
    const int64_t count = out.dim(1);  // at.size(), from the same value
    int64_t* o = out.data<int64_t>();
    for (int64_t k = 0; k < std::min(count, int64_t(at.size()));
         ++k) {  // the coordinates of each position, last axis first
      int64_t rest = at[size_t(k)];
      for (size_t d = shape.size(); d-- > 0;) {
        o[int64_t(d) * count + k] = rest % shape[d];
        rest /= shape[d];
      }
    }
  }
};

class CompressOp final : public Op {
 public:
  explicit CompressOp(const NodeInfo& node)
      : has_axis_(node.has_attr("axis")), axis_(node.attr_int("axis", 0)) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& x = ctx.shape(0);
    const Meta& cond = ctx.input(1);
    if (cond.dtype != DType::kBool)
      fail("input 'condition' must be bool, not {}", dtype_name(cond.dtype));
    if (cond.shape.rank() != 1)
      fail("input 'condition' must be 1-D, not of shape {}", cond.shape.str());
    const Dim length = has_axis_ ? x[normalize_axis(axis_, x.rank())] : x.numel();
    if (length.is_static() && cond.shape[0].is_static() && cond.shape[0].value() > length.value())
      fail("input 'condition' has {} entries, more than the {} {} it selects from",
           cond.shape[0].value(), length.value(), has_axis_ ? "slices" : "elements");
    const Dim most = cond.shape[0].is_static() && length.is_static()
                         ? Dim(std::min(cond.shape[0].value(), length.value()))
                         : Dim::unknown();
    Dim count = cond.value ? Dim(int64_t(picks(*cond.value).size()))
                           : data_dependent(most, "output count at most the condition's entries");
    if (!has_axis_) return ctx.set_output(0, ctx.dtype(0), Shape{count});
    Shape out = x;
    out[normalize_axis(axis_, x.rank())] = count;
    ctx.set_output(0, ctx.dtype(0), out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> selected = picks(ctx.input(1));
    if (!has_axis_) {
      const Tensor flat = Tensor::view(x.dtype(), {x.numel()}, const_cast<void*>(x.raw()));
      return gather_slices(flat, 0, selected, ctx.output(0));
    }
    gather_slices(x, normalize_axis(axis_, x.rank()), selected, ctx.output(0));
  }

 private:
  static std::vector<int64_t> picks(const Tensor& cond) {
    std::vector<int64_t> out;
    const std::vector<bool> truth = truths_of(cond);
    for (size_t i = 0; i < truth.size(); ++i)
      if (truth[i]) out.push_back(int64_t(i));
    return out;
  }
  bool has_axis_;
  int64_t axis_;
};

// NaN-aware order on keys: NaNs after every number and equal to each other (so sorting is valid).
bool key_less(long double a, long double b) {
  if (std::isnan(b)) return !std::isnan(a);
  return a < b;
}
bool key_equal(long double a, long double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

class UniqueOp final : public Op {
 public:
  explicit UniqueOp(const NodeInfo& node)
      : sorted_(node.attr_int("sorted", 1) != 0),
        has_axis_(node.has_attr("axis")),
        axis_(node.attr_int("axis", 0)) {}

  // The distinct slices of x (elements without an axis): first occurrence, inverse, counts.
  struct Result {
    std::vector<int64_t> first;    // per unique slice, in output order
    std::vector<int64_t> inverse;  // per input slice
    std::vector<int64_t> counts;   // per unique slice
  };

  Result unique(const Tensor& x) const {
    const int64_t axis = has_axis_ ? normalize_axis(axis_, x.rank()) : 0;
    const std::vector<long double> keys = keys_of(x);
    int64_t outer = 1, inner = 1, length = x.numel();
    if (has_axis_) {
      length = x.dim(axis);
      for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
      for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    }
    auto element = [&](int64_t slice, int64_t j) {  // j-th element of a slice
      return keys[size_t(((j / inner) * length + slice) * inner + j % inner)];
    };
    const int64_t size = outer * inner;
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t j = 0; j < size; ++j) {
        const long double ka = element(a, j), kb = element(b, j);
        if (!key_equal(ka, kb)) return key_less(ka, kb);
      }
      return false;
    };
    auto equal = [&](int64_t a, int64_t b) {
      for (int64_t j = 0; j < size; ++j)
        if (!key_equal(element(a, j), element(b, j))) return false;
      return true;
    };
    // Slices in sorted order (stable: equal slices keep their order, the first one leads).
    std::vector<int64_t> order(static_cast<size_t>(length));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), less);
    Result r;
    std::vector<int64_t> group(static_cast<size_t>(length));  // sorted group of each slice
    std::vector<int64_t> group_first, group_count;
    for (size_t k = 0; k < order.size(); ++k) {
      if (k == 0 || !equal(order[k - 1], order[k])) {
        group_first.push_back(order[k]);
        group_count.push_back(0);
      }
      group[size_t(order[k])] = int64_t(group_first.size()) - 1;
      group_count.back()++;
    }
    // Output order: sorted groups, or groups by first occurrence.
    std::vector<int64_t> rank(group_first.size());
    std::vector<int64_t> groups(group_first.size());
    std::iota(groups.begin(), groups.end(), 0);
    if (!sorted_)
      std::sort(groups.begin(), groups.end(), [&](int64_t a, int64_t b) {
        return group_first[size_t(a)] < group_first[size_t(b)];
      });
    for (size_t k = 0; k < groups.size(); ++k) {
      rank[size_t(groups[k])] = int64_t(k);
      r.first.push_back(group_first[size_t(groups[k])]);
      r.counts.push_back(group_count[size_t(groups[k])]);
    }
    for (int64_t s = 0; s < length; ++s) r.inverse.push_back(rank[size_t(group[size_t(s)])]);
    return r;
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Meta& x = ctx.input(0);
    // normalize_axis lets a scalar have axis 0 (as a [1]); Unique would read its missing dim.
    if (has_axis_ && x.shape.rank() == 0)
      fail("input 'X' is a scalar: it has no axis {} to take slices along", axis_);
    if (has_axis_) normalize_axis(axis_, x.shape.rank());
    Dim length = x.shape.numel();
    if (has_axis_) length = x.shape[normalize_axis(axis_, x.shape.rank())];
    const Dim count = x.value ? Dim(int64_t(unique(*x.value).first.size()))
                              : data_dependent(length, "output count at most the input's items");
    Shape y{count};
    if (has_axis_) {
      const int64_t axis = normalize_axis(axis_, x.shape.rank());
      y = x.shape;
      y[axis] = count;
    }
    ctx.set_output(0, x.dtype, y);
    if (ctx.num_outputs() > 1) ctx.set_output(1, DType::kI64, Shape{count});
    if (ctx.num_outputs() > 2) ctx.set_output(2, DType::kI64, Shape{length});
    if (ctx.num_outputs() > 3) ctx.set_output(3, DType::kI64, Shape{count});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Result r = unique(x);
    if (has_axis_) {
      gather_slices(x, normalize_axis(axis_, x.rank()), r.first, ctx.output(0));
    } else {
      const Tensor flat = Tensor::view(x.dtype(), {x.numel()}, const_cast<void*>(x.raw()));
      gather_slices(flat, 0, r.first, ctx.output(0));
    }
    const std::vector<int64_t>* lists[] = {&r.first, &r.inverse, &r.counts};
    for (size_t j = 1; j < ctx.num_outputs() && j < 4; ++j)
      std::copy(lists[j - 1]->begin(), lists[j - 1]->end(), ctx.output(j).data<int64_t>());
  }

 private:
  bool sorted_, has_axis_;
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> make_data_dependent(const NodeInfo& node) {
  if (node.op_type() == "NonZero") return std::make_unique<NonZeroOp>(node);
  if (node.op_type() == "Compress") return std::make_unique<CompressOp>(node);
  return std::make_unique<UniqueOp>(node);
}

}  // namespace strata::ops
