// Two small ops of the ai.onnx.ml domain.
// ArrayFeatureExtractor: selects the columns Y (int64 indices) of X's last axis: [..., N] ->
//   [..., len(Y)] (a 1-D X gives [1, len(Y)]). Data movement: 0 FLOPs.
// Binarizer: 1 where x > threshold (default 0), else 0, in x's type. 1 FLOP (a compare) per
//   element.
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class ArrayFeatureExtractorOp final : public Op {
 public:
  explicit ArrayFeatureExtractorOp(const NodeInfo&) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    if (ctx.dtype(1) != DType::kI64)
      fail("input 'Y' must be int64, not {}", dtype_name(ctx.dtype(1)));
    const Shape& x = ctx.shape(0);
    if (x.rank() == 0) fail("input 'X' must have rank >= 1");
    Shape out{Dim(1)};
    if (x.rank() > 1) {
      out = Shape();
      for (int64_t d = 0; d + 1 < x.rank(); ++d) out.push_back(x[d]);
    }
    out.push_back(ctx.shape(1).numel());
    ctx.set_output(0, ctx.dtype(0), out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> columns = ctx.input(1).to_int64();
    const int64_t n = x.dim(x.rank() - 1), rows = n ? x.numel() / n : 0;
    const size_t elem = dtype_size(x.dtype());
    const auto* src = static_cast<const std::byte*>(x.raw());
    auto* dst = static_cast<std::byte*>(ctx.output(0).raw());
    for (int64_t c : columns)
      if (c < 0 || c >= n) fail("index {} in 'Y' is outside [0, {})", c, n);
    for (int64_t r = 0; r < rows; ++r)
      for (size_t i = 0; i < columns.size(); ++i)
        std::memcpy(dst + (size_t(r) * columns.size() + i) * elem,
                    src + size_t(r * n + columns[i]) * elem, elem);
  }
};

class BinarizerOp final : public Op {
 public:
  explicit BinarizerOp(const NodeInfo& node) : threshold_(node.attr_float("threshold", 0.0f)) {}

  void infer(InferContext& ctx) const override {
    const DType t = ctx.dtype(0);
    if (!is_float(t) && !is_integer(t)) fail("does not support dtype {}", dtype_name(t));
    ctx.set_output(0, t, ctx.shape(0));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 1);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    visit_numeric(x.dtype(), [&]<class T>(Type<T>) {
      const T* in = x.data<T>();
      T* out = ctx.output(0).data<T>();
      for (int64_t i = 0; i < x.numel(); ++i)
        out[i] = double(in[i]) > double(threshold_) ? T(1) : T(0);
    });
  }

 private:
  float threshold_;
};

}  // namespace

std::unique_ptr<Op> make_ml_simple(const NodeInfo& node) {
  if (node.op_type() == "Binarizer") return std::make_unique<BinarizerOp>(node);
  return std::make_unique<ArrayFeatureExtractorOp>(node);
}

}  // namespace strata::ops
