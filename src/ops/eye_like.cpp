// EyeLike: a 2-D tensor shaped like the input with ones on diagonal k and zeros elsewhere.
#include <cstring>

#include "ops/op.h"

namespace strata::ops {

namespace {

class EyeLikeOp final : public Op {
 public:
  explicit EyeLikeOp(const NodeInfo& node) : k_(node.attr_int("k", 0)) {
    if (node.has_attr("dtype")) {
      const int64_t onnx_type = node.attr_int("dtype", 0);
      if (!dtype_from_onnx(int(onnx_type), &dtype_) || !visit_all(dtype_, [](auto) {}))
        fail("attribute 'dtype' {} is not a supported type", onnx_type);
    }
  }

  void infer(InferContext& ctx) const override {
    const Shape& shape = ctx.shape(0);
    if (shape.rank() != 2) fail("input must be 2-D, not of shape {}", shape.str());
    const DType dtype = dtype_ == DType::kUndefined ? ctx.dtype(0) : dtype_;
    if (!visit_all(dtype, [](auto) {})) fail("does not support dtype {}", dtype_name(dtype));
    ctx.set_output(0, dtype, shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost cost;  // reads nothing but the input's shape
    cost.bytes_written = ctx.all_output_bytes();
    return cost;
  }

  void run(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    if (out.nbytes()) std::memset(out.raw(), 0, out.nbytes());  // zero bits are 0 in every dtype
    const int64_t rows = out.dim(0), cols = out.dim(1);
    visit_all(out.dtype(), [&]<class T>(Type<T>) {
      T* data = out.data<T>();
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t j = i + k_;
        if (j >= 0 && j < cols) data[i * cols + j] = T(1);
      }
    });
  }

 private:
  int64_t k_;
  DType dtype_ = DType::kUndefined;  // undefined: the input's dtype
};

}  // namespace

std::unique_ptr<Op> make_eye_like(const NodeInfo& node) {
  return std::make_unique<EyeLikeOp>(node);
}

}  // namespace strata::ops
