// Cast: converts every element to the dtype of attribute `to` (an ONNX type number; a type name
// such as "FLOAT" before opset 6). Conversions:
//   float -> integer: truncation toward zero, saturating at the target's range; NaN gives 0
//                     (the C++ conversion would be undefined there);
//   any -> bool: value != 0 (so NaN gives true);
//   integer -> integer: modulo 2^bits (two's complement wrap, like numpy's astype);
//   -> float16/bfloat16: through float32, rounding to nearest even.
//   -> float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) and float4e2m1: round to nearest even; `saturate`
//                     (opset 19, default 1) clamps out-of-range values and infinities to the
//                     largest finite value, else they become NaN (E5M2: infinity);
//   -> int4/uint4/int2/uint2: integers wrap (modulo 16 or 4); floats truncate toward zero, then
//                     saturate to the type's range before opset 23 and wrap from it (the spec
//                     leaves this undefined; ONNX's reference changed when it moved to ml_dtypes);
//   float8 and packed integer sources are read as float and int32.
//   -> string: integers in decimal, float32/float64 in their shortest round-trip form
//                     ("0.9767611", "1e-07"), float16/bfloat16 as that of their float32 value,
//                     bool as "True"/"False" (numpy's spellings, which ONNX's reference uses);
//   string ->:        the whole string read as a number (strtod: decimal, scientific, and
//                     INF/+INF/-INF/NaN in any case), then converted as a float64 would be; a
//                     string that is not a number fails naming it. Narrow types and strings
//                     do not convert into each other. Complex types are not supported.
// CastLike (opset 15): the same conversion to the dtype of a second input, `target_type`, whose
// values are not read.
//
// Cost: 0 FLOPs (a conversion, not arithmetic); bytes as elementwise_cost.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/narrow_types.h"
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

struct CastOptions {
  bool saturate = true;                         // float8 targets
  E8M0Rounding round_mode = E8M0Rounding::kUp;  // float8e8m0 targets (opset 25)
  bool saturate_int4 = false;                   // float -> int4/uint4 (and 2-bit) before opset 23
};

// One value (of a wide type in compute_t, or a narrow one in narrow_compute_t) into a narrow type.
template <class D, class V>
D to_narrow(V v, const CastOptions& options) {
  if constexpr (is_packed_int_v<D>) {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(v)) return D(0);
      const double t = std::trunc(double(v));
      if (options.saturate_int4) return D(int64_t(std::clamp(t, double(D::kMin), double(D::kMax))));
      return D(int64_t(std::fmod(t, 256.0)));  // its low bits, which D keeps
    } else {
      return D(int64_t(v));
    }
  } else {
    D d;
    if constexpr (D::kDType == kF8E8M0)
      d.bits = e8m0_from_double(double(v), options.round_mode, options.saturate);
    else
      d.bits = float8_from_double(double(v), D::kDType, options.saturate);
    return d;
  }
}

// Conversions where either side is a narrow type (float8, packed integers), element by element.
bool convert_narrow(const Tensor& x, Tensor& y, const CastOptions& options) {
  bool target_visited = false;
  const auto from_wide = [&]<class S>(Type<S>) {
    target_visited = visit_narrow(y.dtype(), [&]<class D>(Type<D>) {
      const S* in = x.data<S>();
      D* out = y.data<D>();
      for (int64_t i = 0; i < x.numel(); ++i) out[i] = to_narrow<D>(compute_t<S>(in[i]), options);
    });
  };
  const auto from_narrow = [&]<class S>(Type<S>) {
    using V = narrow_compute_t<S>;
    const S* in = x.data<S>();
    target_visited = visit_all(y.dtype(),
                               [&]<class D>(Type<D>) {
                                 D* out = y.data<D>();
                                 for (int64_t i = 0; i < x.numel(); ++i)
                                   out[i] = convert<D, V>(V(in[i]));
                               }) ||
                     visit_narrow(y.dtype(), [&]<class D>(Type<D>) {
                       D* out = y.data<D>();
                       for (int64_t i = 0; i < x.numel(); ++i)
                         out[i] = to_narrow<D>(V(in[i]), options);
                     });
  };
  const bool source_visited =
      visit_narrow(x.dtype(), from_narrow) || visit_all(x.dtype(), from_wide);
  return source_visited && target_visited;
}

std::string to_text(double v, bool is_double) {
  if (is_double) return fmt::format("{}", v);
  return fmt::format("{}", float(v));
}

// Conversions to or from strings.
void convert_strings(const Tensor& x, Tensor& y, const CastOptions& options) {
  if (visit_narrow(x.dtype(), [](auto) {}) || visit_narrow(y.dtype(), [](auto) {}))
    fail("does not support casting between {} and {}", dtype_name(x.dtype()),
         dtype_name(y.dtype()));
  if (x.dtype() == DType::kString && y.dtype() == DType::kString) {
    std::copy(x.data<std::string>(), x.data<std::string>() + x.numel(), y.data<std::string>());
    return;
  }
  if (y.dtype() == DType::kString) {
    std::string* out = y.data<std::string>();
    const bool ok = visit_all(x.dtype(), [&]<class S>(Type<S>) {
      const S* in = x.data<S>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        if constexpr (std::is_same_v<S, bool>)
          out[i] = in[i] ? "True" : "False";
        else if constexpr (std::is_integral_v<S>)
          out[i] = std::to_string(in[i]);
        else
          out[i] = to_text(double(in[i]), std::is_same_v<S, double>);
      }
    });
    if (!ok) fail("does not support casting {} to string", dtype_name(x.dtype()));
    return;
  }
  std::vector<double> values(size_t(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const std::string& text = x.data<std::string>()[i];
    char* end = nullptr;
    values[size_t(i)] = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
      fail("element {} of the input, \"{}\", is not a number", i, text);
  }
  const bool ok = visit_all(y.dtype(), [&]<class D>(Type<D>) {
    D* out = y.data<D>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = convert<D, double>(values[size_t(i)]);
  });
  if (!ok) fail("does not support casting string to {}", dtype_name(y.dtype()));
  (void)options;
}

// Every element of x converted into y (same shape, y's dtype).
void convert_tensor(const Tensor& x, Tensor& y, const CastOptions& options) {
  if (x.dtype() == DType::kString || y.dtype() == DType::kString)
    return convert_strings(x, y, options);
  if (x.dtype() == y.dtype()) {
    if (x.nbytes() != y.nbytes()) fail_internal("Cast output size differs from its input's");
    if (x.nbytes() && x.raw() != y.raw()) std::memcpy(y.raw(), x.raw(), x.nbytes());
    return;
  }
  if (visit_narrow(x.dtype(), [](auto) {}) || visit_narrow(y.dtype(), [](auto) {})) {
    if (!convert_narrow(x, y, options))
      fail_internal("Cast kernel reached with {} -> {}", dtype_name(x.dtype()),
                    dtype_name(y.dtype()));
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

CastOptions cast_options(const NodeInfo& node) {
  CastOptions options;
  options.saturate = node.attr_int("saturate", 1) != 0;
  options.saturate_int4 = node.opset() < 23;
  const std::string round_mode = node.attr_string("round_mode", "up");
  if (round_mode == "down")
    options.round_mode = E8M0Rounding::kDown;
  else if (round_mode == "nearest")
    options.round_mode = E8M0Rounding::kNearest;
  else if (round_mode != "up")
    fail("attribute 'round_mode' must be up, down or nearest, not '{}'", round_mode);
  return options;
}

class CastOp final : public Op {
 public:
  explicit CastOp(const NodeInfo& node) : options_(cast_options(node)) {
    if (!node.has_attr("to")) fail("required attribute 'to' is missing");
    const int64_t to =
        node.opset() < 6 ? onnx_type_from_name(node.attr_string("to")) : node.attr_int("to", 0);
    if (to > INT32_MAX || to < 0 || !dtype_from_onnx(int(to), &to_))
      fail("cannot cast to {}: strata does not support that type", onnx_type_name(to));
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (dtype_size(x.dtype) == 0 && x.dtype != DType::kString)
      fail("does not support input dtype {}", dtype_name(x.dtype));
    ctx.set_output(0, to_, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 0);
  }

  void run(KernelContext& ctx) const override {
    convert_tensor(ctx.input(0), ctx.output(0), options_);
  }

 private:
  DType to_ = DType::kUndefined;
  CastOptions options_;
};

class CastLikeOp final : public Op {
 public:
  explicit CastLikeOp(const NodeInfo& node) : options_(cast_options(node)) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const Meta& like = ctx.input(1);
    if (dtype_size(x.dtype) == 0 && x.dtype != DType::kString)
      fail("does not support input dtype {}", dtype_name(x.dtype));
    if (dtype_size(like.dtype) == 0 && like.dtype != DType::kString)
      fail("cannot cast to {}: strata does not support that type", dtype_name(like.dtype));
    ctx.set_output(0, like.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 0);
  }

  void run(KernelContext& ctx) const override {
    convert_tensor(ctx.input(0), ctx.output(0), options_);
  }

 private:
  CastOptions options_;
};

}  // namespace

std::unique_ptr<Op> make_cast(const NodeInfo& node) {
  if (node.op_type() == "CastLike") return std::make_unique<CastLikeOp>(node);
  return std::make_unique<CastOp>(node);
}

}  // namespace strata::ops
