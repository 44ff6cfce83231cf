// Element-wise ops of two inputs with numpy broadcasting: Add Sub Mul Div Mod Pow (arithmetic,
// output of A's dtype), And Or Xor (bool), Equal Greater GreaterOrEqual Less LessOrEqual
// (output bool; Equal also compares strings), BitwiseAnd BitwiseOr BitwiseXor (integers) and
// BitShift (unsigned integers, attribute direction LEFT or RIGHT; a shift by the type's width or
// more gives 0).
//
// Before opset 7 these ops broadcast only when attribute broadcast=1, and then B's shape is a
// contiguous run of A's dims starting at attribute `axis` (suffix-aligned when absent); with
// broadcast=0, where the spec wants equal shapes, numpy broadcasting is used (a superset).
//
// Integers: Add/Sub/Mul/Pow wrap around on overflow; Div truncates toward zero; Mod follows the
// divisor's sign (like Python) unless fmod=1 (C's truncated remainder, the sign of the dividend).
// Integer division or modulo by zero fails at run time.
//
// Cost, FLOPs per output element (elementwise_cost): 1 for every op (one arithmetic operation,
// comparison or logical operation; Pow counts as one library call).
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

enum class BinaryKind {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kPow,
  kAnd,
  kOr,
  kXor,
  kEqual,
  kGreater,
  kGreaterOrEqual,
  kLess,
  kLessOrEqual,
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kBitShift,
};

struct BinarySpec {
  std::string_view op_type;
  BinaryKind kind;
};

constexpr BinarySpec kBinarySpecs[] = {
    {"Add", BinaryKind::kAdd},
    {"Sub", BinaryKind::kSub},
    {"Mul", BinaryKind::kMul},
    {"Div", BinaryKind::kDiv},
    {"Mod", BinaryKind::kMod},
    {"Pow", BinaryKind::kPow},
    {"And", BinaryKind::kAnd},
    {"Or", BinaryKind::kOr},
    {"Xor", BinaryKind::kXor},
    {"Equal", BinaryKind::kEqual},
    {"Greater", BinaryKind::kGreater},
    {"GreaterOrEqual", BinaryKind::kGreaterOrEqual},
    {"Less", BinaryKind::kLess},
    {"LessOrEqual", BinaryKind::kLessOrEqual},
    {"BitwiseAnd", BinaryKind::kBitwiseAnd},
    {"BitwiseOr", BinaryKind::kBitwiseOr},
    {"BitwiseXor", BinaryKind::kBitwiseXor},
    {"BitShift", BinaryKind::kBitShift},
};

bool is_logical(BinaryKind k) {
  return k == BinaryKind::kAnd || k == BinaryKind::kOr || k == BinaryKind::kXor;
}
bool is_comparison(BinaryKind k) {
  return k >= BinaryKind::kEqual && k <= BinaryKind::kLessOrEqual;
}
bool is_bitwise(BinaryKind k) {
  return k >= BinaryKind::kBitwiseAnd;
}

bool is_numeric(DType t) {
  return is_float(t) || is_integer(t);
}

// --- Integer-safe element functions (C is the compute type) ---

template <class C>
C divide(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    if (y == 0) fail("integer division by zero");
    if constexpr (std::is_signed_v<C>)
      if (y == C(-1)) return wrap_neg(x);  // INT_MIN / -1 overflows (and traps on x86)
    return C(x / y);
  } else {
    return x / y;
  }
}

// Remainder with the sign of the dividend (C's % and fmod).
template <class C>
C truncated_mod(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    if (y == 0) fail("integer modulo by zero");
    if constexpr (std::is_signed_v<C>)
      if (y == C(-1)) return C(0);  // INT_MIN % -1 traps on x86
    return C(x % y);
  } else {
    return std::fmod(x, y);
  }
}

// Remainder with the sign of the divisor (Python's %, numpy.mod).
template <class C>
C floored_mod(C x, C y) {
  C r = truncated_mod(x, y);
  if constexpr (std::is_signed_v<C> || std::is_floating_point_v<C>)
    if (r != 0 && ((r < 0) != (y < 0))) r = C(r + y);
  return r;
}

// Integer base and exponent: exact, wrapping like repeated multiplication would.
template <class C, class E>
C integer_power(C base, E exponent) {
  if constexpr (std::is_signed_v<E>) {
    if (exponent < 0) {  // 1/base^n truncated toward zero
      if (base == C(1)) return C(1);
      if constexpr (std::is_signed_v<C>)
        if (base == C(-1)) return exponent % 2 == 0 ? C(1) : C(-1);
      return C(0);
    }
  }
  C result = 1;
  for (uint64_t e = uint64_t(exponent); e; e >>= 1) {
    if (e & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
  }
  return result;
}

// Pow's result has the base's type T; a float on either side goes through double.
template <class T, class E>
compute_t<T> power(compute_t<T> base, compute_t<E> exponent) {
  if constexpr (std::is_integral_v<compute_t<T>> && std::is_integral_v<compute_t<E>>)
    return integer_power(base, exponent);
  else
    return saturate_cast<compute_t<T>>(std::pow(double(base), double(exponent)));
}

// Axis-aligned broadcasting of opset < 7: B occupies dims [axis, axis + rank(B)) of A.
class LegacyAlignment {
 public:
  explicit LegacyAlignment(const NodeInfo& node)
      : enabled_(node.opset() < 7 && node.attr_int("broadcast", 0) != 0),
        has_axis_(node.has_attr("axis")),
        axis_(node.attr_int("axis", 0)) {}

  bool enabled() const { return enabled_; }

  // The output shape (A's) after checking that B fits at the axis.
  Shape infer(const Shape& a, const Shape& b) const {
    if (b.is_static() && element_count(b.values()) == 1) return a;
    const int64_t axis = axis_for(a.rank(), b.rank());
    for (int64_t j = 0; j < b.rank(); ++j) {
      const Dim& bd = b[j];
      const Dim& ad = a[axis + j];
      if (bd == ad || (bd.is_static() && bd.value() == 1)) continue;
      if (bd.is_static() && ad.is_static())
        fail("shape {} cannot be broadcast to {} at axis {}", b.str(), a.str(), axis);
      throw NotStatic{};
    }
    return a;
  }

  // B's shape padded with 1s to A's rank, so that numpy broadcasting reads it at the axis.
  std::vector<int64_t> aligned_shape(const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b) const {
    std::vector<int64_t> aligned(a.size(), 1);
    if (element_count(b) == 1) return aligned;
    const int64_t axis = axis_for(int64_t(a.size()), int64_t(b.size()));
    for (size_t j = 0; j < b.size(); ++j) aligned[size_t(axis) + j] = b[j];
    return aligned;
  }

 private:
  int64_t axis_for(int64_t rank_a, int64_t rank_b) const {
    const int64_t axis = has_axis_ ? (axis_ < 0 ? axis_ + rank_a : axis_) : rank_a - rank_b;
    if (axis < 0 || axis + rank_b > rank_a)
      fail("attribute 'axis' ({}) does not place a rank-{} input inside a rank-{} input", axis_,
           rank_b, rank_a);
    return axis;
  }

  bool enabled_;
  bool has_axis_;
  int64_t axis_;
};

// The two inputs (B possibly re-shaped by legacy alignment) and the output of one run.
struct Operands {
  const Tensor& a;
  const Tensor& b;
  const std::vector<int64_t>& b_shape;
  Tensor& y;

  template <class A, class B, class Out, class F>
  void map(F f) const {
    broadcast_map(y.data<Out>(), y.shape(), f, operand<A>(a), Operand<B>{b.data<B>(), b_shape});
  }
};

class BinaryOp final : public Op {
 public:
  BinaryOp(const NodeInfo& node, BinaryKind kind)
      : kind_(kind), fmod_(node.attr_int("fmod", 0) != 0), legacy_(node) {
    if (kind_ == BinaryKind::kBitShift) {
      const std::string direction = node.attr_string("direction");
      if (direction != "LEFT" && direction != "RIGHT")
        fail("attribute 'direction' must be LEFT or RIGHT, not '{}'", direction);
      shift_left_ = direction == "LEFT";
    }
  }

  void infer(InferContext& ctx) const override {
    const DType a = ctx.dtype(0), b = ctx.dtype(1);
    if (kind_ != BinaryKind::kPow && a != b)
      fail("inputs have different dtypes {} and {}", dtype_name(a), dtype_name(b));
    bool supported;
    if (is_logical(kind_))
      supported = a == DType::kBool;
    else if (kind_ == BinaryKind::kBitShift)
      supported = is_integer(a) && !is_signed(a);
    else if (is_bitwise(kind_))
      supported = is_integer(a);
    else if (kind_ == BinaryKind::kEqual)
      supported = is_numeric(a) || a == DType::kBool || a == DType::kString;
    else if (kind_ == BinaryKind::kPow)
      supported = is_numeric(a) && is_numeric(b);
    else
      supported = is_numeric(a);
    if (!supported) {
      if (kind_ == BinaryKind::kPow && is_numeric(a))
        fail("does not support exponent dtype {}", dtype_name(b));
      fail("does not support dtype {}", dtype_name(a));
    }
    Shape shape = legacy_.enabled() ? legacy_.infer(ctx.shape(0), ctx.shape(1))
                                    : broadcast_shapes(ctx.shape(0), ctx.shape(1));
    const bool bool_out = is_logical(kind_) || is_comparison(kind_);
    ctx.set_output(0, bool_out ? DType::kBool : a, std::move(shape));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 1);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    // Only the legacy (opset < 7) form needs a re-aligned copy of B's shape.
    const std::vector<int64_t> aligned =
        legacy_.enabled() ? legacy_.aligned_shape(a.shape(), b.shape()) : std::vector<int64_t>{};
    const Operands io{a, b, legacy_.enabled() ? aligned : b.shape(), ctx.output(0)};
    bool visited;
    if (is_logical(kind_))
      visited = run_logical(io);
    else if (is_bitwise(kind_))
      visited = visit_integer(a.dtype(), [&]<class T>(Type<T>) { run_bitwise<T>(io); });
    else if (kind_ == BinaryKind::kEqual && a.dtype() == DType::kString)
      visited = (io.map<std::string, std::string, bool>(
                     [](const std::string& x, const std::string& y) { return x == y; }),
                 true);
    else if (is_comparison(kind_))
      visited = visit_all(a.dtype(), [&]<class T>(Type<T>) { run_comparison<T>(io); });
    else if (kind_ == BinaryKind::kPow)
      visited = run_pow(io);
    else
      visited = visit_numeric(a.dtype(), [&]<class T>(Type<T>) { run_arithmetic<T>(io); });
    if (!visited) fail_internal("binary kernel reached with dtype {}", dtype_name(a.dtype()));
  }

 private:
  template <class T>
  void run_arithmetic(const Operands& io) const {
    using C = compute_t<T>;
    switch (kind_) {
      case BinaryKind::kAdd: return io.map<T, T, T>([](C x, C y) { return wrap_add(x, y); });
      case BinaryKind::kSub: return io.map<T, T, T>([](C x, C y) { return wrap_sub(x, y); });
      case BinaryKind::kMul: return io.map<T, T, T>([](C x, C y) { return wrap_mul(x, y); });
      case BinaryKind::kDiv: return io.map<T, T, T>([](C x, C y) { return divide(x, y); });
      case BinaryKind::kMod:
        if (fmod_) return io.map<T, T, T>([](C x, C y) { return truncated_mod(x, y); });
        return io.map<T, T, T>([](C x, C y) { return floored_mod(x, y); });
      default: fail_internal("not an arithmetic op");
    }
  }

  template <class T>
  void run_comparison(const Operands& io) const {
    using C = compute_t<T>;
    switch (kind_) {
      case BinaryKind::kEqual: return io.map<T, T, bool>([](C x, C y) { return x == y; });
      case BinaryKind::kGreater: return io.map<T, T, bool>([](C x, C y) { return x > y; });
      case BinaryKind::kGreaterOrEqual: return io.map<T, T, bool>([](C x, C y) { return x >= y; });
      case BinaryKind::kLess: return io.map<T, T, bool>([](C x, C y) { return x < y; });
      case BinaryKind::kLessOrEqual: return io.map<T, T, bool>([](C x, C y) { return x <= y; });
      default: fail_internal("not a comparison op");
    }
  }

  template <class T>
  void run_bitwise(const Operands& io) const {
    switch (kind_) {
      case BinaryKind::kBitwiseAnd: return io.map<T, T, T>([](T x, T y) { return T(x & y); });
      case BinaryKind::kBitwiseOr: return io.map<T, T, T>([](T x, T y) { return T(x | y); });
      case BinaryKind::kBitwiseXor: return io.map<T, T, T>([](T x, T y) { return T(x ^ y); });
      case BinaryKind::kBitShift:
        if constexpr (std::is_unsigned_v<T>) {
          constexpr T kBits = T(sizeof(T) * 8);
          if (shift_left_)
            return io.map<T, T, T>([](T x, T y) { return y >= kBits ? T(0) : T(x << y); });
          return io.map<T, T, T>([](T x, T y) { return y >= kBits ? T(0) : T(x >> y); });
        }
        fail_internal("BitShift reached with a signed type");
      default: fail_internal("not a bitwise op");
    }
  }

  bool run_logical(const Operands& io) const {
    if (io.a.dtype() != DType::kBool) return false;
    switch (kind_) {
      case BinaryKind::kAnd: io.map<bool, bool, bool>([](bool x, bool y) { return x && y; }); break;
      case BinaryKind::kOr: io.map<bool, bool, bool>([](bool x, bool y) { return x || y; }); break;
      case BinaryKind::kXor: io.map<bool, bool, bool>([](bool x, bool y) { return x != y; }); break;
      default: fail_internal("not a logical op");
    }
    return true;
  }

  bool run_pow(const Operands& io) const {
    bool exponent_visited = true;
    const bool base_visited = visit_numeric(io.a.dtype(), [&]<class T>(Type<T>) {
      exponent_visited = visit_numeric(io.b.dtype(), [&]<class E>(Type<E>) {
        io.map<T, E, T>([](compute_t<T> x, compute_t<E> e) { return power<T, E>(x, e); });
      });
    });
    return base_visited && exponent_visited;
  }

  BinaryKind kind_;
  bool fmod_;
  bool shift_left_ = false;
  LegacyAlignment legacy_;
};

}  // namespace

std::unique_ptr<Op> make_binary(const NodeInfo& node) {
  for (const BinarySpec& spec : kBinarySpecs)
    if (spec.op_type == node.op_type()) return std::make_unique<BinaryOp>(node, spec.kind);
  fail_internal("make_binary called for op type {}", node.op_type());
}

}  // namespace strata::ops
