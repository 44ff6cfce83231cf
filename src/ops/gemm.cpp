// Gemm: Y = alpha * op(A) * op(B) + beta * C, where op transposes when transA/transB is set and
// the optional C broadcasts (one way) to Y's shape [M, N].
#include "ops/gemm.h"

#include <algorithm>
#include <array>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

struct GemmShapes {
  Dim m, k, n;
};

template <class T>
void gemm_kernel(const Tensor& a, const Tensor& b, const Tensor* c, bool trans_a, bool trans_b,
                 double alpha, double beta, Tensor& y) {
  const int64_t m = trans_a ? a.dim(1) : a.dim(0);
  const int64_t k = trans_a ? a.dim(0) : a.dim(1);
  const int64_t n = trans_b ? b.dim(0) : b.dim(1);
  if (y.numel() != m * n) fail_internal("Gemm output size does not match");
  // Element strides that read op(A)[i, p] and op(B)[p, j] without copying a transpose.
  const int64_t a_row = trans_a ? 1 : k, a_col = trans_a ? m : 1;
  const int64_t b_row = trans_b ? 1 : n, b_col = trans_b ? k : 1;
  // C broadcasts one way to (M, N): a dim of size 1 (or a missing leading dim) is repeated.
  int64_t c_row = 0, c_col = 0;
  if (c && c->rank() == 2) {
    c_row = c->dim(0) == 1 ? 0 : c->dim(1);
    c_col = c->dim(1) == 1 ? 0 : 1;
  } else if (c && c->rank() == 1) {
    c_col = c->dim(0) == 1 ? 0 : 1;
  }
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* py = y.data<T>();
  // Rows are shared among the session's threads; a row's result does not depend on the count.
#pragma omp parallel for schedule(static) if (m > 1 && m * k * n > (1 << 16))
  for (int64_t i = 0; i < m; ++i) {
    acc_t<T> row[kColumnBlock];  // a block of one output row, on the stack: no allocation
    for (int64_t j0 = 0; j0 < n; j0 += kColumnBlock) {
      const int64_t width = std::min(kColumnBlock, n - j0);
      std::fill(row, row + width, acc_t<T>(0));
      for (int64_t p = 0; p < k; ++p) {  // i-k-j order: the inner loop runs along a row of op(B)
        const acc_t<T> a_ip = to_acc(pa[i * a_row + p * a_col]);
        for (int64_t j = 0; j < width; ++j)
          row[j] = wrap_add(row[j], wrap_mul(a_ip, to_acc(pb[p * b_row + (j0 + j) * b_col])));
      }
      for (int64_t jj = 0; jj < width; ++jj) {
        const int64_t j = j0 + jj;
        const acc_t<T> c_ij = c ? to_acc(c->data<T>()[i * c_row + j * c_col]) : 0;
        if constexpr (!is_float_like_v<T>) {
          if (alpha == 1 && beta == 1) {  // integers stay exact in the default case
            py[i * n + j] = from_acc<T>(wrap_add(row[jj], c_ij));
            continue;
          }
        }
        py[i * n + j] = saturate_cast<T>(alpha * double(row[jj]) + beta * double(c_ij));
      }
    }
  }
}

class GemmOp final : public Op {
 public:
  GemmAttributes attributes() const { return {trans_a_, trans_b_, float(alpha_), float(beta_)}; }

  explicit GemmOp(const NodeInfo& node)
      : trans_a_(node.attr_int("transA", 0) != 0),
        trans_b_(node.attr_int("transB", 0) != 0),
        alpha_(node.attr_float("alpha", 1.0f)),
        beta_(node.attr_float("beta", 1.0f)) {}

  void infer(InferContext& ctx) const override {
    if (ctx.num_inputs() > 3) fail("takes 3 inputs (A, B and C), got {}", ctx.num_inputs());
    const DType dtype = ctx.dtype(0);
    if (!is_float(dtype) && !is_integer(dtype))
      fail("input does not support dtype {}", dtype_name(dtype));
    for (size_t i = 1; i < 3; ++i)
      if (ctx.has_input(i) && ctx.dtype(i) != dtype)
        fail("inputs must have the same dtype, got {} and {}", dtype_name(dtype),
             dtype_name(ctx.dtype(i)));
    const GemmShapes s = shapes(ctx.shape(0), ctx.shape(1));
    if (ctx.has_input(2)) check_bias(ctx.shape(2), s);
    ctx.set_output(0, dtype, Shape{s.m, s.n});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const GemmShapes s = shapes(ctx.input(0).shape, ctx.input(1).shape);
    const double mn = double(s.m.value()) * double(s.n.value());
    Cost c = data_movement_cost(ctx);
    c.macs = mn * double(s.k.value());
    c.flops = 2 * c.macs;
    if (alpha_ != 1) c.flops += mn;                             // alpha * AB
    if (ctx.has_input(2)) c.flops += beta_ != 1 ? 2 * mn : mn;  // (beta *) C, add
    c.param_bytes = constant_input_bytes(ctx);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    // Cheap re-check on concrete shapes (infer may have passed with symbolic dims), without
    // building Shapes: the run loop does not allocate.
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) fail("inputs A and B must be 2-D");
    const int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t n = trans_b_ ? b.dim(0) : b.dim(1), b_k = trans_b_ ? b.dim(1) : b.dim(0);
    if (k != b_k) fail("the inner dimensions of A and B differ ({} and {})", k, b_k);
    if (ctx.output(0).numel() != m * n) fail_internal("Gemm output size does not match");
    if (c) {
      bool ok = c->rank() <= 2;
      const int64_t want[2] = {m, n};
      for (int64_t d = 0; ok && d < c->rank(); ++d) {
        const int64_t cd = c->dim(d), od = want[2 - c->rank() + d];
        ok = cd == 1 || cd == od;
      }
      if (!ok) fail("input C of shape {} does not broadcast to [{},{}]", c->shape_str(), m, n);
    }
    visit_numeric(ctx.input(0).dtype(), [&]<class T>(Type<T>) {
      gemm_kernel<T>(ctx.input(0), ctx.input(1), c, trans_a_, trans_b_, alpha_, beta_,
                     ctx.output(0));
    });
  }

 private:
  GemmShapes shapes(const Shape& a, const Shape& b) const {
    if (a.rank() != 2) fail("input A must be 2-D, got shape {}", a.str());
    if (b.rank() != 2) fail("input B must be 2-D, got shape {}", b.str());
    GemmShapes s{trans_a_ ? a[1] : a[0], trans_a_ ? a[0] : a[1], trans_b_ ? b[0] : b[1]};
    require_equal_dims(s.k, trans_b_ ? b[1] : b[0], "the inner dimensions of A and B");
    return s;
  }

  // C must broadcast to [M, N] without growing: each of its dims is 1 or equal to Y's.
  static void check_bias(const Shape& c, const GemmShapes& s) {
    if (c.rank() > 2) fail("input C must have rank <= 2, got shape {}", c.str());
    const Dim target[2] = {s.m, s.n};
    for (int64_t d = 0; d < c.rank(); ++d) {
      const Dim& want = target[2 - c.rank() + d];
      if (c[d] == want || (c[d].is_static() && c[d].value() == 1)) continue;
      if (c[d].is_static() && want.is_static())
        fail("input C of shape {} does not broadcast to [{},{}]", c.str(), s.m.str(), s.n.str());
      throw NotStatic{};
    }
  }

  bool trans_a_;
  bool trans_b_;
  double alpha_;
  double beta_;
};

}  // namespace

std::optional<GemmAttributes> gemm_attributes(const Op& op) {
  const auto* gemm = dynamic_cast<const GemmOp*>(&op);
  if (!gemm) return std::nullopt;
  return gemm->attributes();
}

std::unique_ptr<Op> make_gemm(const NodeInfo& node) {
  return std::make_unique<GemmOp>(node);
}

}  // namespace strata::ops
