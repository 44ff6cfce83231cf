// Element-wise ops of one input: Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Erf Exp Floor
// IsNaN Log Mish Neg Not Reciprocal Relu Round Sigmoid Sign Sin Sinh Softplus Softsign Sqrt Tan
// Tanh, and BitwiseNot (integers). Same shape out; IsNaN outputs bool, as does IsInf (attributes
// detect_negative and detect_positive choose which infinities count).
//
// Cost, FLOPs per output element (elementwise_cost): one per arithmetic operation, where a
// comparison and a library function (exp, log, sin, cos, tan, tanh, erf, sqrt) count as one.
//   1: Abs Acos Acosh Asin Asinh Atan Atanh BitwiseNot Ceil Cos Cosh Erf Exp Floor IsNaN Log Neg
//   Not
//      Reciprocal Relu Round Sign Sin Sinh Sqrt Tan Tanh
//   3: Softplus (exp, add, log), Softsign (abs, add, divide)
//   4: Sigmoid (negate, exp, add, divide)
//   5: Mish, x * tanh(softplus(x)) (softplus's 3, tanh, multiply)
#include <cmath>
#include <string_view>
#include <type_traits>

#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

enum class UnaryKind {
  kAbs,
  kAcos,
  kAcosh,
  kAsin,
  kAsinh,
  kAtan,
  kAtanh,
  kBitwiseNot,
  kCosh,
  kMish,
  kSinh,
  kCeil,
  kCos,
  kErf,
  kExp,
  kFloor,
  kIsNaN,
  kLog,
  kNeg,
  kNot,
  kReciprocal,
  kRelu,
  kRound,
  kSigmoid,
  kSign,
  kSin,
  kSoftplus,
  kSoftsign,
  kSqrt,
  kTan,
  kTanh,
};

// The element types an op accepts (from the ONNX type constraints).
enum class Types { kFloat, kSignedOrFloat, kNumeric, kBool, kInteger };

struct UnarySpec {
  std::string_view op_type;
  UnaryKind kind;
  Types types;
  double flops;
};

constexpr UnarySpec kUnarySpecs[] = {
    {"Abs", UnaryKind::kAbs, Types::kNumeric, 1},
    {"Acos", UnaryKind::kAcos, Types::kFloat, 1},
    {"Acosh", UnaryKind::kAcosh, Types::kFloat, 1},
    {"Asin", UnaryKind::kAsin, Types::kFloat, 1},
    {"Asinh", UnaryKind::kAsinh, Types::kFloat, 1},
    {"Atan", UnaryKind::kAtan, Types::kFloat, 1},
    {"Atanh", UnaryKind::kAtanh, Types::kFloat, 1},
    {"BitwiseNot", UnaryKind::kBitwiseNot, Types::kInteger, 1},
    {"Cosh", UnaryKind::kCosh, Types::kFloat, 1},
    {"Mish", UnaryKind::kMish, Types::kFloat, 5},
    {"Sinh", UnaryKind::kSinh, Types::kFloat, 1},
    {"Ceil", UnaryKind::kCeil, Types::kFloat, 1},
    {"Cos", UnaryKind::kCos, Types::kFloat, 1},
    {"Erf", UnaryKind::kErf, Types::kNumeric, 1},
    {"Exp", UnaryKind::kExp, Types::kFloat, 1},
    {"Floor", UnaryKind::kFloor, Types::kFloat, 1},
    {"IsNaN", UnaryKind::kIsNaN, Types::kFloat, 1},
    {"Log", UnaryKind::kLog, Types::kFloat, 1},
    {"Neg", UnaryKind::kNeg, Types::kSignedOrFloat, 1},
    {"Not", UnaryKind::kNot, Types::kBool, 1},
    {"Reciprocal", UnaryKind::kReciprocal, Types::kFloat, 1},
    {"Relu", UnaryKind::kRelu, Types::kSignedOrFloat, 1},
    {"Round", UnaryKind::kRound, Types::kFloat, 1},
    {"Sigmoid", UnaryKind::kSigmoid, Types::kFloat, 4},
    {"Sign", UnaryKind::kSign, Types::kNumeric, 1},
    {"Sin", UnaryKind::kSin, Types::kFloat, 1},
    {"Softplus", UnaryKind::kSoftplus, Types::kFloat, 3},
    {"Softsign", UnaryKind::kSoftsign, Types::kFloat, 3},
    {"Sqrt", UnaryKind::kSqrt, Types::kFloat, 1},
    {"Tan", UnaryKind::kTan, Types::kFloat, 1},
    {"Tanh", UnaryKind::kTanh, Types::kFloat, 1},
};

bool accepts(Types types, DType t) {
  switch (types) {
    case Types::kFloat: return is_float(t);
    case Types::kSignedOrFloat: return is_float(t) || (is_integer(t) && is_signed(t));
    case Types::kNumeric: return is_float(t) || is_integer(t);
    case Types::kBool: return t == DType::kBool;
    case Types::kInteger: return is_integer(t);
  }
  return false;
}

// Calls f(Type<T>{}) for the element types of a type class. Unsigned types reach
// kSignedOrFloat kernels only in theory: infer rejects them first.
template <Types kTypes, class F>
void visit_types(DType t, F&& f) {
  bool visited = false;
  if constexpr (kTypes == Types::kBool) {
    if (t == DType::kBool) {
      f(Type<bool>{});
      visited = true;
    }
  } else if constexpr (kTypes == Types::kFloat) {
    visited = visit_float(t, f);
  } else if constexpr (kTypes == Types::kInteger) {
    visited = visit_integer(t, f);
  } else {
    visited = visit_numeric(t, f);
  }
  if (!visited) fail_internal("unary kernel reached with dtype {}", dtype_name(t));
}

// y[i] = f(x[i]) with y of x's type; f gets compute_t values (float for float16/bfloat16).
template <Types kTypes, class F>
void map_unary(const Tensor& x, Tensor& y, F&& f) {
  visit_types<kTypes>(x.dtype(), [&]<class T>(Type<T>) {
    broadcast_map(y.data<T>(), y.shape(), f, operand<T>(x));
  });
}

template <class C>
C abs_value(C v) {
  if constexpr (std::is_unsigned_v<C>)
    return v;
  else
    return v < C(0) ? wrap_neg(v) : v;
}

// -1, 0 or 1; NaN stays NaN.
template <class C>
C sign_of(C v) {
  if constexpr (std::is_unsigned_v<C>)
    return v > C(0) ? C(1) : C(0);
  else
    return v > C(0) ? C(1) : (v < C(0) ? C(-1) : v);
}

// log(1 + exp(v)) without overflowing exp for large v.
template <class C>
C softplus(C v) {
  return v > C(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}

class UnaryOp final : public Op {
 public:
  explicit UnaryOp(const UnarySpec& spec) : spec_(spec) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!accepts(spec_.types, x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    ctx.set_output(0, spec_.kind == UnaryKind::kIsNaN ? DType::kBool : x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, spec_.flops);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    constexpr Types kFloat = Types::kFloat;
    switch (spec_.kind) {
      case UnaryKind::kAbs:
        return map_unary<Types::kNumeric>(x, y, [](auto v) { return abs_value(v); });
      case UnaryKind::kAcos: return map_unary<kFloat>(x, y, [](auto v) { return std::acos(v); });
      case UnaryKind::kAcosh: return map_unary<kFloat>(x, y, [](auto v) { return std::acosh(v); });
      case UnaryKind::kAsin: return map_unary<kFloat>(x, y, [](auto v) { return std::asin(v); });
      case UnaryKind::kAsinh: return map_unary<kFloat>(x, y, [](auto v) { return std::asinh(v); });
      case UnaryKind::kAtan: return map_unary<kFloat>(x, y, [](auto v) { return std::atan(v); });
      case UnaryKind::kAtanh: return map_unary<kFloat>(x, y, [](auto v) { return std::atanh(v); });
      case UnaryKind::kCosh: return map_unary<kFloat>(x, y, [](auto v) { return std::cosh(v); });
      case UnaryKind::kBitwiseNot:
        return map_unary<Types::kInteger>(x, y, [](auto v) { return decltype(v)(~v); });
      case UnaryKind::kMish:
        return map_unary<kFloat>(x, y, [](auto v) { return v * std::tanh(softplus(v)); });
      case UnaryKind::kSinh: return map_unary<kFloat>(x, y, [](auto v) { return std::sinh(v); });
      case UnaryKind::kCeil: return map_unary<kFloat>(x, y, [](auto v) { return std::ceil(v); });
      case UnaryKind::kCos: return map_unary<kFloat>(x, y, [](auto v) { return std::cos(v); });
      case UnaryKind::kErf:  // integers go through double: erf(double(v)) is -1, 0 or 1 after
                             // truncation
        return map_unary<Types::kNumeric>(x, y, [](auto v) { return std::erf(v); });
      case UnaryKind::kExp: return map_unary<kFloat>(x, y, [](auto v) { return std::exp(v); });
      case UnaryKind::kFloor: return map_unary<kFloat>(x, y, [](auto v) { return std::floor(v); });
      case UnaryKind::kIsNaN:
        visit_types<kFloat>(x.dtype(), [&]<class T>(Type<T>) {
          broadcast_map(
              y.data<bool>(), y.shape(), [](auto v) { return std::isnan(v); }, operand<T>(x));
        });
        return;
      case UnaryKind::kLog: return map_unary<kFloat>(x, y, [](auto v) { return std::log(v); });
      case UnaryKind::kNeg:
        return map_unary<Types::kSignedOrFloat>(x, y, [](auto v) { return wrap_neg(v); });
      case UnaryKind::kNot: return map_unary<Types::kBool>(x, y, [](bool v) { return !v; });
      case UnaryKind::kReciprocal:
        return map_unary<kFloat>(x, y, [](auto v) { return decltype(v)(1) / v; });
      case UnaryKind::kRelu:
        return map_unary<Types::kSignedOrFloat>(
            x, y, [](auto v) { return v > decltype(v)(0) ? v : decltype(v)(0); });
      case UnaryKind::kRound:  // nearbyint in the default rounding mode rounds half to even
        return map_unary<kFloat>(x, y, [](auto v) { return std::nearbyint(v); });
      case UnaryKind::kSigmoid:
        return map_unary<kFloat>(x, y, [](auto v) { return 1 / (1 + std::exp(-v)); });
      case UnaryKind::kSign:
        return map_unary<Types::kNumeric>(x, y, [](auto v) { return sign_of(v); });
      case UnaryKind::kSin: return map_unary<kFloat>(x, y, [](auto v) { return std::sin(v); });
      case UnaryKind::kSoftplus: return map_unary<kFloat>(x, y, [](auto v) { return softplus(v); });
      case UnaryKind::kSoftsign:
        return map_unary<kFloat>(x, y, [](auto v) { return v / (1 + std::abs(v)); });
      case UnaryKind::kSqrt: return map_unary<kFloat>(x, y, [](auto v) { return std::sqrt(v); });
      case UnaryKind::kTan: return map_unary<kFloat>(x, y, [](auto v) { return std::tan(v); });
      case UnaryKind::kTanh: return map_unary<kFloat>(x, y, [](auto v) { return std::tanh(v); });
    }
  }

 private:
  const UnarySpec& spec_;
};

class IsInfOp final : public Op {
 public:
  explicit IsInfOp(const NodeInfo& node)
      : negative_(node.attr_int("detect_negative", 1) != 0),
        positive_(node.attr_int("detect_positive", 1) != 0) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    ctx.set_output(0, DType::kBool, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 1);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const bool negative = negative_, positive = positive_;
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      broadcast_map(
          y.data<bool>(), y.shape(),
          [=](auto v) { return std::isinf(v) && (v < 0 ? negative : positive); }, operand<T>(x));
    });
  }

 private:
  bool negative_, positive_;
};

}  // namespace

std::unique_ptr<Op> make_unary(const NodeInfo& node) {
  if (node.op_type() == "IsInf") return std::make_unique<IsInfOp>(node);
  for (const UnarySpec& spec : kUnarySpecs)
    if (spec.op_type == node.op_type()) return std::make_unique<UnaryOp>(spec);
  fail_internal("make_unary called for op type {}", node.op_type());
}

}  // namespace strata::ops
