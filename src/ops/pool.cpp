// AveragePool, MaxPool and LpPool over the spatial axes of [N, C, D1..Dn], with strides, dilations,
// explicit or automatic pads and ceil_mode. AveragePool divides by the number of window elements
// inside the input (count_include_pad=0) or inside the padded input (count_include_pad=1); the part
// of a ceil_mode window past the end padding never counts (as in ONNX 1.17+ and PyTorch; the ONNX
// 1.16 reference divided by the whole kernel size there).
// MaxPool ignores padding and can also output Indices: the flat position of each maximum in X,
// over its spatial axes in row-major (storage_order=0) or column-major (storage_order=1) order,
// plus the offset of its (n, c) plane. LpPool: (sum of |x|^p over the window's elements inside the
// input)^(1/p), p from attribute p (default 2).
// Cost: one FLOP per window element per output (prod(kernel) * numel(Y)); bytes read and written.
#include "ops/pool.h"

#include <algorithm>
#include <cmath>

#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

// Flat index of `position` (row-major within dims) re-expressed in column-major order.
int64_t column_major(int64_t position, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> index = unravel(position, dims);
  int64_t flat = 0, stride = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    flat += index[d] * stride;
    stride *= dims[d];
  }
  return flat;
}

// The number of elements each output averages over, the same for every (n, c) plane.
std::vector<double> average_divisors(const Window& window, const std::vector<int64_t>& in_dims,
                                     const std::vector<int64_t>& out_dims, bool count_include_pad) {
  std::vector<double> divisor(size_t(product(out_dims)), 0.0);
  // With pads counted, the window's reach is the padded input: shift the pads into the plane.
  Window counted = window;
  std::vector<int64_t> counted_dims = in_dims;
  if (count_include_pad) {
    for (size_t d = 0; d < window.rank(); ++d) {
      counted_dims[d] += window.pads_begin[d] + window.pads_end[d];
      counted.pads_begin[d] = 0;
    }
  }
  for (const std::vector<MappedRow>& rows : map_taps(counted, out_dims, counted_dims))
    for (const MappedRow& row : rows)
      for (int64_t j = 0; j < row.count; ++j) divisor[size_t(row.p + j)] += 1;
  return divisor;
}

// What a pooling run needs for one set of shapes, kept between runs.
struct PoolPlan {
  std::vector<int64_t> x_shape, y_shape, in_dims, out_dims;
  Window window;
  std::vector<std::vector<MappedRow>> tap_rows;
  std::vector<double> divisor;         // AveragePool: elements counted per output
  mutable std::vector<double> values;  // per output element: running sum or maximum
  mutable std::vector<int64_t> where;  // MaxPool: position of the maximum
};

class PoolOp final : public Op {
 public:
  bool is_lp() const { return lp_ > 0; }
  PoolAttributes attributes() const {
    return {is_max_, &attrs_, count_include_pad_, want_indices_};
  }

  explicit PoolOp(const NodeInfo& node)
      : is_max_(node.op_type() == "MaxPool"),
        lp_(node.op_type() == "LpPool" ? node.attr_int("p", 2) : 0),
        attrs_(node),
        count_include_pad_(node.attr_int("count_include_pad", 0) != 0),
        column_major_(node.attr_int("storage_order", 0) != 0),
        want_indices_(node.has_output(1)) {
    if (!attrs_.has_kernel_shape()) fail("required attribute 'kernel_shape' is missing");
    if (node.op_type() == "LpPool" && lp_ <= 0) fail("attribute 'p' must be positive, got {}", lp_);
    const int64_t storage_order = node.attr_int("storage_order", 0);
    if (storage_order != 0 && storage_order != 1)
      fail("attribute 'storage_order' must be 0 or 1, got {}", storage_order);
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const bool small_int = x.dtype == DType::kI8 || x.dtype == DType::kU8;
    if (!is_float(x.dtype) && !(is_max_ && small_int))
      fail("does not support dtype {}", dtype_name(x.dtype));
    require_rank(x.shape, 1, "X");
    const Window window = attrs_.resolve(size_t(x.shape.rank() - 2));
    Shape out{x.shape[0], x.shape[1]};
    for (size_t d = 0; d < window.rank(); ++d)
      out.push_back(window_output_dim(window, d, x.shape[int64_t(d) + 2]));
    ctx.set_output(0, x.dtype, out);
    if (is_max_) ctx.set_output(1, DType::kI64, out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const Window window = attrs_.resolve(size_t(ctx.input(0).shape.rank() - 2));
    return elementwise_cost(ctx, double(window.kernel_size()));
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const PoolPlan& plan = plan_for(x, ctx.output(0));
    if (is_max_) {
      visit_numeric(x.dtype(), [&]<class T>(Type<T>) { max_pool<T>(ctx, plan); });
    } else if (lp_ > 0) {
      visit_float(x.dtype(), [&]<class T>(Type<T>) { lp_pool<T>(ctx, plan); });
    } else {
      visit_float(x.dtype(), [&]<class T>(Type<T>) { average_pool<T>(ctx, plan); });
    }
  }

 private:
  // The plan for these shapes, rebuilt only when they change (the first run builds it, so later
  // runs allocate nothing).
  const PoolPlan& plan_for(const Tensor& x, const Tensor& y) const {
    if (plan_.x_shape == x.shape() && plan_.y_shape == y.shape()) return plan_;
    Window window = attrs_.resolve(size_t(x.rank() - 2));
    const std::vector<int64_t> in_dims = spatial_dims(x.shape());
    const std::vector<int64_t> out_dims = spatial_dims(y.shape());
    // Infer may have seen symbolic dims: check the concrete shapes before indexing with them.
    bool shape_ok = y.rank() == x.rank() && y.dim(0) == x.dim(0) && y.dim(1) == x.dim(1);
    for (size_t d = 0; shape_ok && d < window.rank(); ++d)
      shape_ok = window_output_dim(window, d, in_dims[d]).value() == out_dims[d];
    if (!shape_ok) fail("input shape {} does not fit the output {}", x.shape_str(), y.shape_str());
    PoolPlan plan;
    plan.window = with_forward_pads(window, in_dims);
    plan.tap_rows = map_taps(plan.window, out_dims, in_dims);
    if (!is_max_ && lp_ == 0)
      plan.divisor = average_divisors(plan.window, in_dims, out_dims, count_include_pad_);
    plan.values.resize(size_t(product(out_dims)));
    plan.where.resize(size_t(product(out_dims)));
    plan.x_shape = x.shape();
    plan.y_shape = y.shape();
    plan.in_dims = in_dims;
    plan.out_dims = out_dims;
    plan_ = std::move(plan);
    return plan_;
  }

  template <class T>
  void average_pool(KernelContext& ctx, const PoolPlan& plan) const {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t in_plane = product(plan.in_dims), out_plane = product(plan.out_dims);
    const int64_t step = plan.window.strides.back();
    const auto& tap_rows = plan.tap_rows;
    const std::vector<double>& divisor = plan.divisor;
    std::vector<double>& sum = plan.values;
    for (int64_t plane = 0; plane < x.dim(0) * x.dim(1); ++plane) {
      const T* in = x.data<T>() + plane * in_plane;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (const std::vector<MappedRow>& rows : tap_rows)
        for (const MappedRow& row : rows)
          for (int64_t j = 0; j < row.count; ++j)
            sum[size_t(row.p + j)] += double(in[row.q + j * step]);
      T* out = y.data<T>() + plane * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) out[i] = T(sum[size_t(i)] / divisor[size_t(i)]);
    }
  }

  // LpPool: (sum of |x|^p over the window's elements inside the input)^(1/p).
  template <class T>
  void lp_pool(KernelContext& ctx, const PoolPlan& plan) const {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t in_plane = product(plan.in_dims), out_plane = product(plan.out_dims);
    const int64_t step = plan.window.strides.back();
    std::vector<double>& sum = plan.values;
    const double p = double(lp_);
    for (int64_t plane = 0; plane < x.dim(0) * x.dim(1); ++plane) {
      const T* in = x.data<T>() + plane * in_plane;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (const std::vector<MappedRow>& rows : plan.tap_rows)
        for (const MappedRow& row : rows)
          for (int64_t j = 0; j < row.count; ++j)
            sum[size_t(row.p + j)] += std::pow(std::abs(double(in[row.q + j * step])), p);
      T* out = y.data<T>() + plane * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) out[i] = T(std::pow(sum[size_t(i)], 1 / p));
    }
  }

  // The first maximum in window order wins ties; a window with no element inside the input
  // (possible with large dilations) yields 0 and index -1.
  template <class T>
  void max_pool(KernelContext& ctx, const PoolPlan& plan) const {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    Tensor* indices = want_indices_ && ctx.num_outputs() > 1 ? &ctx.output(1) : nullptr;
    const std::vector<int64_t>& in_dims = plan.in_dims;
    const int64_t in_plane = product(in_dims), out_plane = product(plan.out_dims);
    const int64_t step = plan.window.strides.back();
    const auto& tap_rows = plan.tap_rows;
    std::vector<double>& best = plan.values;
    std::vector<int64_t>& where = plan.where;  // flat position in the input plane
    for (int64_t plane = 0; plane < x.dim(0) * x.dim(1); ++plane) {
      const T* in = x.data<T>() + plane * in_plane;
      std::fill(best.begin(), best.end(), 0.0);
      std::fill(where.begin(), where.end(), -1);
      for (const std::vector<MappedRow>& rows : tap_rows) {
        for (const MappedRow& row : rows) {
          for (int64_t j = 0; j < row.count; ++j) {
            const size_t p = size_t(row.p + j);
            const int64_t q = row.q + j * step;
            const double value = double(in[q]);
            if (where[p] < 0 || value > best[p]) {
              best[p] = value;
              where[p] = q;
            }
          }
        }
      }
      T* out = y.data<T>() + plane * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) out[i] = T(best[size_t(i)]);
      if (!indices) continue;
      int64_t* index = indices->data<int64_t>() + plane * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) {
        const int64_t q = where[size_t(i)];
        if (q < 0) {
          index[i] = -1;
        } else {
          index[i] = plane * in_plane + (column_major_ ? column_major(q, in_dims) : q);
        }
      }
    }
  }

  bool is_max_;
  int64_t lp_;  // LpPool's p; 0 for the other pools
  WindowAttrs attrs_;
  bool count_include_pad_;
  bool column_major_;
  bool want_indices_;
  mutable PoolPlan plan_;  // a cache: the op runs on one thread of control at a time
};

}  // namespace

std::optional<PoolAttributes> pool_attributes(const Op& op) {
  const auto* pool = dynamic_cast<const PoolOp*>(&op);
  if (!pool || pool->is_lp()) return std::nullopt;
  return pool->attributes();
}

std::unique_ptr<Op> make_pool(const NodeInfo& node) {
  return std::make_unique<PoolOp>(node);
}

}  // namespace strata::ops
