// Where MatMulInteger, MatMulIntegerToFloat (strata's), QLinearMatMul and QLinearGemm (strata's)
// keep each operand among their inputs, for the two kernel families that run them: oneDNN's int8
// matmul and strata's exact int8 GEMM for CPUs without VNNI.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include "core/shape.h"
#include "ir/graph.h"
#include "kernels/kernel.h"
#include "ops/internal_ops.h"

namespace strata::kernels {

struct Int8MatMulOperands {
  size_t a = 0, a_zero = 2, b = 1, b_zero = 3;
  bool to_float = false;  // MatMulIntegerToFloat
  size_t float_scale = 4, float_bias = 5;
  bool qlinear = false;  // QLinearMatMul, QLinearGemm
  size_t a_scale = 1, b_scale = 4, y_scale = 6, y_zero = 7;
  size_t bias = 0;  // QLinearGemm's int32 bias; 0: none
};

inline Int8MatMulOperands int8_matmul_operands(const ir::Node& node) {
  Int8MatMulOperands o;
  if (node.op_type == "MatMulIntegerToFloat") o.to_float = true;
  if (node.op_type == "QLinearMatMul" || node.op_type == "QLinearGemm") {
    o.qlinear = true;
    o.b = 3;
    o.b_zero = 5;
    if (node.op_type == "QLinearGemm") o.bias = 8;
  }
  return o;
}

// True for the four ops (ONNX's two in the default domain, strata's two in its own).
inline bool is_int8_matmul(const ir::Node& node) {
  if (node.domain == ops::kStrataDomain)
    return node.op_type == "MatMulIntegerToFloat" || node.op_type == "QLinearGemm";
  return node.domain.empty() &&
         (node.op_type == "MatMulInteger" || node.op_type == "QLinearMatMul");
}

// A scalar or a 1-element vector: a zero point or scale for the whole tensor.
inline bool is_one_value(const Shape& s) {
  return s.rank() == 0 || (s.rank() == 1 && s[0].value() == 1);
}

// Why a QLinear product's requantization cannot be prepared, or "": the scales must be constant,
// positive and finite (a's and y's one value, b's one or one per column of the n), y's zero point
// one constant, the bias constant.
inline std::string int8_requantization_problem(const NodeRequest& r, const Int8MatMulOperands& o,
                                               int64_t n) {
  for (size_t i : {o.a_scale, o.b_scale, o.y_scale}) {
    if (!r.input(i).value) return "a scale is not constant";
    for (double s : r.input(i).value->to_double())
      if (!(s > 0) || !std::isfinite(s))  // the reference kernel names the node and the scale
        return "a scale is not positive and finite";
  }
  if (!is_one_value(r.input(o.a_scale).shape) || !is_one_value(r.input(o.y_scale).shape))
    return "a_scale and y_scale must be one value each";
  const int64_t b_scales = r.input(o.b_scale).value->numel();
  if (b_scales != 1 && b_scales != n) return "b_scale is neither one value nor one per column";
  if (!r.has_input(o.y_zero) || !r.input(o.y_zero).value || r.input(o.y_zero).value->numel() != 1)
    return "y_zero_point is not one constant";
  if (o.bias && r.has_input(o.bias) && !r.input(o.bias).value) return "the bias is not constant";
  return "";
}

}  // namespace strata::kernels
