// MatMul, MatMulInteger, QLinearMatMul and strata's QLinearGemm and MatMulIntegerToFloat. MatMul
// with numpy semantics: a 1-D A is a row [1, K] and a 1-D B a column [K, 1] (the added dim is
// dropped from the result); dims before the last two broadcast as batches.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "ops/broadcast.h"
#include "ops/op.h"
#include "ops/reduce_util.h"
#include "ops/requantize.h"

namespace strata::ops {

namespace {

// The product's geometry, from the operands' shapes (dims may be symbolic in infer).
struct MatMulShapes {
  Shape a_batch, b_batch, batch;  // leading dims of A, of B, and their broadcast
  Dim m, k, n;
  Shape out;
};

MatMulShapes matmul_shapes(const Shape& a, const Shape& b) {
  if (a.rank() == 0 || b.rank() == 0) fail("inputs must have rank >= 1, got a scalar");
  MatMulShapes s;
  s.a_batch = Shape(a.dims().first(size_t(a.rank() - std::min<int64_t>(a.rank(), 2))));
  s.b_batch = Shape(b.dims().first(size_t(b.rank() - std::min<int64_t>(b.rank(), 2))));
  s.batch = broadcast_shapes(s.a_batch, s.b_batch);
  s.m = a.rank() == 1 ? Dim(1) : a[a.rank() - 2];
  s.k = a[a.rank() - 1];
  const Dim& b_k = b.rank() == 1 ? b[0] : b[b.rank() - 2];
  s.n = b.rank() == 1 ? Dim(1) : b[b.rank() - 1];
  require_equal_dims(s.k, b_k, "the inner dimensions of A and B");
  s.out = s.batch;
  if (a.rank() > 1) s.out.push_back(s.m);
  if (b.rank() > 1) s.out.push_back(s.n);
  return s;
}

// C[M,N] = A[M,K] * B[K,N], in i-k-j order so the inner loop runs along rows of B and C. Rows are
// shared among the session's threads; each row's result does not depend on the thread count.
template <class T>
void matmul_2d(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
#pragma omp parallel for schedule(static) if (m > 1 && m * k * n > (1 << 16))
  for (int64_t i = 0; i < m; ++i) {
    acc_t<T> row[kColumnBlock];
    for (int64_t j0 = 0; j0 < n; j0 += kColumnBlock) {
      const int64_t width = std::min(kColumnBlock, n - j0);
      std::fill(row, row + width, acc_t<T>(0));
      for (int64_t p = 0; p < k; ++p) {
        const acc_t<T> a_ip = to_acc(a[i * k + p]);
        const T* b_row = b + p * n + j0;
        for (int64_t j = 0; j < width; ++j)
          row[j] = wrap_add(row[j], wrap_mul(a_ip, to_acc(b_row[j])));
      }
      for (int64_t j = 0; j < width; ++j) c[i * n + j0 + j] = from_acc<T>(row[j]);
    }
  }
}

// The batch dims of an operand: all but its last two (none for rank <= 2).
std::vector<int64_t> batch_dims(const std::vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin(), shape.end() - std::min<size_t>(shape.size(), 2));
}

template <class T>
void matmul_kernel(const Tensor& a, const Tensor& b, Tensor& c) {
  // 1-D operands are promoted: A[K] is a row [1,K], B[K] a column [K,1].
  const int64_t m = a.rank() == 1 ? 1 : a.dim(a.rank() - 2);
  const int64_t k = a.dim(a.rank() - 1);
  const int64_t n = b.rank() == 1 ? 1 : b.dim(b.rank() - 1);
  const int64_t b_k = b.rank() == 1 ? b.dim(0) : b.dim(b.rank() - 2);
  if (k != b_k) fail("the inner dimensions of A and B differ ({} and {})", k, b_k);
  const int64_t a_batches = a.numel() / std::max<int64_t>(m * k, 1);
  const int64_t b_batches = b.numel() / std::max<int64_t>(k * n, 1);
  const int64_t c_batches = c.numel() / std::max<int64_t>(m * n, 1);
  // Common cases without broadcasting bookkeeping: equal batches, or one operand shared by all.
  if ((a_batches == c_batches || a_batches == 1) && (b_batches == c_batches || b_batches == 1)) {
    for (int64_t i = 0; i < c_batches; ++i)
      matmul_2d(a.data<T>() + (a_batches == 1 ? 0 : i) * m * k,
                b.data<T>() + (b_batches == 1 ? 0 : i) * k * n, c.data<T>() + i * m * n, m, k, n);
    return;
  }
  const std::vector<int64_t> a_batch = batch_dims(a.shape()), b_batch = batch_dims(b.shape());
  const std::vector<int64_t> batch =
      matmul_shapes(Shape::of(a.shape()), Shape::of(b.shape())).batch.values();
  const std::array<std::vector<int64_t>, 2> batch_strides = {broadcast_strides(a_batch, batch),
                                                             broadcast_strides(b_batch, batch)};
  // Batch offsets count whole matrices of each operand.
  for_each_broadcast(batch, batch_strides, [&](int64_t index, const std::array<int64_t, 2>& at) {
    matmul_2d(a.data<T>() + at[0] * m * k, b.data<T>() + at[1] * k * n, c.data<T>() + index * m * n,
              m, k, n);
  });
}

class MatMulOp final : public Op {
 public:
  explicit MatMulOp(const NodeInfo&) {}

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.dtype(0);
    if (!is_float(dtype) && !is_integer(dtype))
      fail("input does not support dtype {}", dtype_name(dtype));
    if (ctx.dtype(1) != dtype)
      fail("inputs must have the same dtype, got {} and {}", dtype_name(dtype),
           dtype_name(ctx.dtype(1)));
    ctx.set_output(0, dtype, matmul_shapes(ctx.shape(0), ctx.shape(1)).out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const MatMulShapes s = matmul_shapes(ctx.input(0).shape, ctx.input(1).shape);
    Cost c = data_movement_cost(ctx);
    c.macs = double(s.batch.numel().value()) * double(s.m.value()) * double(s.k.value()) *
             double(s.n.value());
    c.flops = 2 * c.macs;
    c.param_bytes = constant_input_bytes(ctx);
    return c;
  }

  void run(KernelContext& ctx) const override {
    visit_numeric(ctx.input(0).dtype(), [&]<class T>(Type<T>) {
      matmul_kernel<T>(ctx.input(0), ctx.input(1), ctx.output(0));
    });
  }
};

// MatMulInteger: int32 (A - a_zero_point) x (B - b_zero_point) on int8/uint8 operands, a zero
// point per tensor or per row of A / per column of B. QLinearMatMul: the same product scaled by
// a_scale * b_scale / y_scale (per tensor, or per row / column), rounded half to even, plus
// y_zero_point, saturated to y's type. Products accumulate in int64 (exact); the scaling is
// float32's multiplier applied in double, as ONNX's reference does it. QLinearGemm (strata's, made
// of DequantizeLinear → Gemm → QuantizeLinear by src/passes/fuse_qdq.cpp) is QLinearMatMul with a
// ninth input: an int32 bias of N values in a_scale · b_scale units, added to the sums.
// MatMulIntegerToFloat (strata's, made of a dynamically quantized MatMulInteger → Cast → Mul →
// Add): MatMulInteger's four inputs, then a float32 scale (one value or one per column) and an
// optional float32 bias of N values: float(sums) · scale + bias, each step in float32 as the
// Cast, Mul and Add compute it.
class QuantizedMatMulOp final : public Op {
 public:
  explicit QuantizedMatMulOp(const NodeInfo& node)
      : qlinear_(node.op_type() == "QLinearMatMul" || node.op_type() == "QLinearGemm"),
        gemm_(node.op_type() == "QLinearGemm"),
        to_float_(node.op_type() == "MatMulIntegerToFloat") {}

  void infer(InferContext& ctx) const override {
    const size_t a = 0, b = qlinear_ ? 3 : 1;
    for (size_t i : {a, b})
      if (ctx.dtype(i) != DType::kI8 && ctx.dtype(i) != DType::kU8)
        fail("input {} has dtype {}; int8 or uint8 is needed", i, dtype_name(ctx.dtype(i)));
    for (size_t i : zero_points())
      if (ctx.has_input(i) && ctx.dtype(i) != ctx.dtype(i == zero_points()[0] ? a : b))
        fail("zero point {} has dtype {} but its operand has {}", i, dtype_name(ctx.dtype(i)),
             dtype_name(ctx.dtype(i == zero_points()[0] ? a : b)));
    const MatMulShapes s = matmul_shapes(ctx.shape(a), ctx.shape(b));
    if (to_float_) return infer_to_float(ctx, s);
    if (!qlinear_) return ctx.set_output(0, DType::kI32, s.out);
    for (size_t i : {size_t(1), size_t(4), size_t(6)})
      if (!is_float(ctx.dtype(i))) fail("scale {} has dtype {}", i, dtype_name(ctx.dtype(i)));
    if (ctx.dtype(7) != DType::kI8 && ctx.dtype(7) != DType::kU8)
      fail("y_zero_point has dtype {}; int8 or uint8 is needed", dtype_name(ctx.dtype(7)));
    if (gemm_ && ctx.has_input(kBias)) {
      if (ctx.dtype(kBias) != DType::kI32)
        fail("the bias has dtype {}; int32 is needed", dtype_name(ctx.dtype(kBias)));
      if (ctx.shape(kBias).rank() != 1) fail("the bias must be 1-D, one value per column");
      require_equal_dims(ctx.shape(kBias)[0], s.n, "the bias' length and B's columns");
    }
    ctx.set_output(0, ctx.dtype(7), s.out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const MatMulShapes s = matmul_shapes(ctx.input(0).shape, ctx.input(qlinear_ ? 3 : 1).shape);
    Cost c = data_movement_cost(ctx);
    c.macs = double(s.batch.numel().value()) * double(s.m.value()) * double(s.k.value()) *
             double(s.n.value());
    // QLinear: scale, round, add the zero point; to float: scale, and add the bias when given.
    const double per_output = qlinear_    ? 3
                              : to_float_ ? 1 + (ctx.has_input(kFloatBias) ? 1 : 0)
                                          : 0;
    c.flops = 2 * c.macs + per_output * ctx.numel_out(0);
    c.param_bytes = constant_input_bytes(ctx);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(qlinear_ ? 3 : 1);
    const Tensor a_wide = centred(a, zero_point(ctx, zero_points()[0]), true);
    const Tensor b_wide = centred(b, zero_point(ctx, zero_points()[1]), false);
    Tensor product = Tensor::zeros(DType::kI64, ctx.output(0).shape());
    matmul_kernel<int64_t>(a_wide, b_wide, product);
    int64_t* p = product.data<int64_t>();
    Tensor& y = ctx.output(0);
    if (to_float_) return scale_to_float(ctx, p, y);
    if (gemm_ && ctx.has_input(kBias)) {
      const std::vector<int64_t> bias = ctx.input(kBias).to_int64();
      for (int64_t i = 0; i < y.numel(); ++i) p[i] += bias[size_t(i) % bias.size()];
    }
    if (!qlinear_) {
      for (int64_t i = 0; i < y.numel(); ++i) y.data<int32_t>()[i] = int32_t(p[i]);
      return;
    }
    const std::vector<double> a_scale = ctx.input(1).to_double(),
                              b_scale = ctx.input(4).to_double();
    check_scales(a_scale, "a_scale");
    check_scales(b_scale, "b_scale");
    check_scales(ctx.input(6).to_double(), "y_scale");
    const float y_scale = float(ctx.input(6).to_double()[0]);
    const double y_zp = ctx.input(7).to_double()[0];
    const int64_t n = y.rank() >= 1 && b.rank() > 1 ? y.dim(y.rank() - 1) : 1;
    const int64_t m = y.rank() >= 2 && a.rank() > 1 ? y.dim(y.rank() - 2) : 1;
    visit_integer(y.dtype(), [&]<class Q>(Type<Q>) {
      for (int64_t i = 0; i < y.numel(); ++i) {
        const float sa = float(a_scale[a_scale.size() == 1 ? 0 : size_t((i / n) % m)]);
        const float sb = float(b_scale[b_scale.size() == 1 ? 0 : size_t(i % n)]);
        y.data<Q>()[i] = requantize<Q>(double(p[i]), sa * sb / y_scale, y_zp);
      }
    });
  }

 private:
  std::array<size_t, 2> zero_points() const {
    return qlinear_ ? std::array<size_t, 2>{2, 5} : std::array<size_t, 2>{2, 3};
  }
  static std::vector<int64_t> zero_point(const KernelContext& ctx, size_t i) {
    return ctx.has_input(i) ? ctx.input(i).to_int64() : std::vector<int64_t>{0};
  }
  // x - zero point as int64, the zero point per tensor or per row (A) / column (B).
  static Tensor centred(const Tensor& x, const std::vector<int64_t>& zp, bool rows) {
    Tensor wide = Tensor::zeros(DType::kI64, x.shape());
    const std::vector<int64_t> v = x.to_int64();
    const int64_t cols = x.rank() >= 1 ? x.dim(x.rank() - 1) : 1;
    const int64_t row_count = x.rank() >= 2 ? x.dim(x.rank() - 2) : 1;
    const int64_t per = rows ? row_count : cols;
    if (zp.size() != 1 && int64_t(zp.size()) != per)
      fail("a zero point holds {} values; one or {} are needed", zp.size(), per);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t at = zp.size() == 1 ? 0 : size_t(rows ? (i / cols) % row_count : i % cols);
      wide.data<int64_t>()[i] = v[size_t(i)] - zp[at];
    }
    return wide;
  }

  // MatMulIntegerToFloat's scale: one value or N; its bias: N values; both float32.
  static void infer_to_float(InferContext& ctx, const MatMulShapes& s) {
    for (size_t i : {kFloatScale, kFloatBias}) {
      if (!ctx.has_input(i)) continue;
      if (ctx.dtype(i) != DType::kF32)
        fail("input {} has dtype {}; float32 is needed", i, dtype_name(ctx.dtype(i)));
      const Shape& shape = ctx.shape(i);
      const bool one = shape.rank() == 0 || (shape.rank() == 1 && shape[0] == Dim(1));
      if (shape.rank() > 1 || (!one && !(shape[0] == s.n)) ||
          (i == kFloatBias && one && !(s.n == Dim(1))))
        fail("input {} of shape {} must hold {} values, one per column", i, shape.str(),
             i == kFloatScale ? "one or N" : "N");
    }
    if (!ctx.has_input(kFloatScale)) fail("the scale (input 4) is missing");
    ctx.set_output(0, DType::kF32, s.out);
  }

  static void scale_to_float(const KernelContext& ctx, const int64_t* sums, Tensor& y) {
    const std::vector<double> scale = ctx.input(kFloatScale).to_double();
    const std::vector<double> bias =
        ctx.has_input(kFloatBias) ? ctx.input(kFloatBias).to_double() : std::vector<double>{};
    const int64_t n = y.rank() >= 1 ? y.dim(y.rank() - 1) : 1;
    float* out = y.data<float>();
    for (int64_t i = 0; i < y.numel(); ++i) {
      const size_t column = size_t(i % n);
      float v = float(int32_t(sums[i])) * float(scale[scale.size() == 1 ? 0 : column]);
      if (!bias.empty()) v += float(bias[column]);
      out[i] = v;
    }
  }

  static constexpr size_t kBias = 8;                        // QLinearGemm's
  static constexpr size_t kFloatScale = 4, kFloatBias = 5;  // MatMulIntegerToFloat's
  bool qlinear_, gemm_, to_float_;
};

}  // namespace

std::unique_ptr<Op> make_matmul(const NodeInfo& node) {
  if (node.op_type() == "MatMulInteger" || node.op_type() == "QLinearMatMul" ||
      node.op_type() == "QLinearGemm" || node.op_type() == "MatMulIntegerToFloat")
    return std::make_unique<QuantizedMatMulOp>(node);
  return std::make_unique<MatMulOp>(node);
}

}  // namespace strata::ops
