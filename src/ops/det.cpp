// Det: the determinant of each square matrix in the last two axes ([*, M, M] -> [*]), by LU
// decomposition with partial pivoting in double. Cost: 2M³/3 FLOPs per matrix (the elimination).
#include <cmath>
#include <utility>

#include "ops/indexing.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

double determinant(std::vector<double>& a, int64_t m) {
  double det = 1;
  for (int64_t col = 0; col < m; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < m; ++r)
      if (std::abs(a[size_t(r * m + col)]) > std::abs(a[size_t(pivot * m + col)])) pivot = r;
    if (a[size_t(pivot * m + col)] == 0) return 0;
    if (pivot != col) {
      for (int64_t c = 0; c < m; ++c) std::swap(a[size_t(col * m + c)], a[size_t(pivot * m + c)]);
      det = -det;
    }
    const double p = a[size_t(col * m + col)];
    det *= p;
    for (int64_t r = col + 1; r < m; ++r) {
      const double f = a[size_t(r * m + col)] / p;
      for (int64_t c = col; c < m; ++c) a[size_t(r * m + c)] -= f * a[size_t(col * m + c)];
    }
  }
  return det;
}

class DetOp final : public Op {
 public:
  explicit DetOp(const NodeInfo&) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    const int64_t rank = x.shape.rank();
    if (rank < 2 || known_different(x.shape[rank - 1], x.shape[rank - 2]))
      fail("input must be square matrices [*, M, M], got shape {}", x.shape.str());
    Shape out;
    for (int64_t d = 0; d + 2 < rank; ++d) out.push_back(x.shape[d]);
    ctx.set_output(0, x.dtype, std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const auto& shape = ctx.input(0).shape;
    const double m = double(shape[shape.rank() - 1].value());
    c.flops = ctx.numel_out(0) * 2 * m * m * m / 3;
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t m = x.dim(x.rank() - 1);
    if (x.dim(x.rank() - 2) != m)
      fail("input must be square matrices, got shape {}", x.shape_str());
    Tensor& y = ctx.output(0);
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      std::vector<double> a(size_t(m * m));
      for (int64_t i = 0; i < y.numel(); ++i) {
        for (int64_t k = 0; k < m * m; ++k) a[size_t(k)] = double(x.data<T>()[i * m * m + k]);
        y.data<T>()[i] = from_acc<T>(determinant(a, m));
      }
    });
  }
};

}  // namespace

std::unique_ptr<Op> make_det(const NodeInfo& node) {
  return std::make_unique<DetOp>(node);
}

}  // namespace strata::ops
