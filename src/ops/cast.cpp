// Cast: converts every element to the dtype of attribute `to` (an ONNX type number; a type name
// such as "FLOAT" before opset 6). Conversions:
//   float -> integer: truncation toward zero, saturating at the target's range; NaN gives 0
//                     (the C++ conversion would be undefined there);
//   any -> bool: value != 0 (so NaN gives true);
//   integer -> integer: modulo 2^bits (two's complement wrap, like numpy's astype);
//   -> float16/bfloat16: through float32, rounding to nearest even.
// float8, int4, string and complex types are not supported (attribute `saturate`, opset 19, only
// concerns float8 and is ignored).
// CastLike (opset 15): the same conversion to the dtype of a second input, `target_type`, whose
// values are not read.
//
// Cost: 0 FLOPs (a conversion, not arithmetic); bytes as elementwise_cost.
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

// ONNX TensorProto.DataType names, indexed by type number (for opset < 6 and error messages).
constexpr std::string_view kOnnxTypeNames[] = {
    "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
    "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
    "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
    "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",     "FLOAT4E2M1",
};

std::string onnx_type_name(int64_t type) {
  if (type >= 0 && type < int64_t(std::size(kOnnxTypeNames)))
    return std::string(kOnnxTypeNames[type]);
  return "type " + std::to_string(type);
}

int64_t onnx_type_from_name(const std::string& name) {
  for (size_t i = 0; i < std::size(kOnnxTypeNames); ++i)
    if (kOnnxTypeNames[i] == name) return int64_t(i);
  fail("attribute 'to' names an unknown type '{}'", name);
}

template <class D, class S>
D convert(compute_t<S> v) {
  if constexpr (std::is_same_v<D, bool>)
    return v != compute_t<S>(0);
  else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<compute_t<S>>)
    return saturate_cast<D>(double(v));
  else
    return D(v);
}

// Every element of x converted into y (same shape, y's dtype).
void convert_tensor(const Tensor& x, Tensor& y) {
  if (x.dtype() == y.dtype()) {
    if (x.nbytes() != y.nbytes()) fail_internal("Cast output size differs from its input's");
    if (x.nbytes() && x.raw() != y.raw()) std::memcpy(y.raw(), x.raw(), x.nbytes());
    return;
  }
  bool target_visited = true;
  const bool source_visited = visit_all(x.dtype(), [&]<class S>(Type<S>) {
    target_visited = visit_all(y.dtype(), [&]<class D>(Type<D>) {
      broadcast_map(
          y.data<D>(), y.shape(), [](compute_t<S> v) { return convert<D, S>(v); }, operand<S>(x));
    });
  });
  if (!source_visited || !target_visited)
    fail_internal("Cast kernel reached with {} -> {}", dtype_name(x.dtype()),
                  dtype_name(y.dtype()));
}

class CastOp final : public Op {
 public:
  explicit CastOp(const NodeInfo& node) {
    if (!node.has_attr("to")) fail("required attribute 'to' is missing");
    const int64_t to =
        node.opset() < 6 ? onnx_type_from_name(node.attr_string("to")) : node.attr_int("to", 0);
    if (to > INT32_MAX || to < 0 || !dtype_from_onnx(int(to), &to_))
      fail("cannot cast to {}: strata does not support that type", onnx_type_name(to));
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (dtype_size(x.dtype) == 0) fail("does not support input dtype {}", dtype_name(x.dtype));
    ctx.set_output(0, to_, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 0);
  }

  void run(KernelContext& ctx) const override { convert_tensor(ctx.input(0), ctx.output(0)); }

 private:
  DType to_ = DType::kUndefined;
};

class CastLikeOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const Meta& like = ctx.input(1);
    if (dtype_size(x.dtype) == 0) fail("does not support input dtype {}", dtype_name(x.dtype));
    if (dtype_size(like.dtype) == 0)
      fail("cannot cast to {}: strata does not support that type", dtype_name(like.dtype));
    ctx.set_output(0, like.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 0);
  }

  void run(KernelContext& ctx) const override { convert_tensor(ctx.input(0), ctx.output(0)); }
};

}  // namespace

std::unique_ptr<Op> make_cast(const NodeInfo& node) {
  if (node.op_type() == "CastLike") return std::make_unique<CastLikeOp>();
  return std::make_unique<CastOp>(node);
}

}  // namespace strata::ops
