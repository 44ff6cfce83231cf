// Shared helpers of the element-wise op families (unary, activation, binary, variadic, where,
// cast): the type elements are computed in, a broadcasting map over typed buffers, integer
// arithmetic that wraps instead of overflowing, and a saturating float-to-integer conversion.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "ops/broadcast.h"
#include "ops/op.h"

namespace strata::ops {

// float16 and bfloat16 are computed in float; every other type in itself.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, f16> || std::is_same_v<T, bf16>, float, T>;

// A read-only input of a broadcasting map: typed data and its (concrete) shape.
template <class T>
struct Operand {
  const T* data;
  const std::vector<int64_t>& shape;
};

template <class T>
Operand<T> operand(const Tensor& t) {
  return {t.data<T>(), t.shape()};
}

inline int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The kernels trust the shapes the shape rule produced; this cheap guard turns a mismatch
// between them into an internal error instead of an out-of-bounds read.
inline void check_broadcasts_to(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  bool ok = in.size() <= out.size();
  for (size_t d = 0; ok && d < in.size(); ++d) {
    const int64_t od = out[out.size() - in.size() + d];
    ok = in[d] == 1 || in[d] == od;
  }
  if (!ok) fail_internal("element-wise input shape does not broadcast to the output shape");
}

// out[i] = f(in_0[j_0], in_1[j_1], ...) over every element of out_shape, where each input is
// read as if broadcast (numpy rules) to out_shape. f receives values in compute_t of their type.
// `out` may alias an input whose shape equals out_shape (each element is read before written).
template <class Out, class F, class... In>
void broadcast_map(Out* out, const std::vector<int64_t>& out_shape, F&& f, Operand<In>... in) {
  constexpr size_t K = sizeof...(In);
  (check_broadcasts_to(in.shape, out_shape), ...);
  const int64_t total = element_count(out_shape);
  const std::tuple<Operand<In>...> inputs(in...);
  // Fast path: every input is either the full output shape or a single element.
  const bool flat = ((in.shape == out_shape || element_count(in.shape) == 1) && ...);
  if (flat) {
    const std::array<int64_t, K> step = {(element_count(in.shape) == 1 ? 0 : 1)...};
    [&]<size_t... I>(std::index_sequence<I...>) {
      for (int64_t i = 0; i < total; ++i)
        out[i] = Out(f(compute_t<In>(std::get<I>(inputs).data[i * step[I]])...));
    }
    (std::index_sequence_for<In...>{});
    return;
  }
  const std::array<std::vector<int64_t>, K> strides = {broadcast_strides(in.shape, out_shape)...};
  [&]<size_t... I>(std::index_sequence<I...>) {
    for_each_broadcast<K>(out_shape, strides, [&](int64_t i, const std::array<int64_t, K>& off) {
      out[i] = Out(f(compute_t<In>(std::get<I>(inputs).data[off[I]])...));
    });
  }
  (std::index_sequence_for<In...>{});
}

// The output shape of numpy-style broadcasting over every present input of a node.
inline Shape broadcast_input_shapes(const InferContext& ctx) {
  Shape out;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) out = broadcast_shapes(out, ctx.shape(i));
  return out;
}

// Integer arithmetic modulo 2^bits, like the hardware (and numpy) do it: computed in uint64_t,
// where overflow is defined, then narrowed (modular since C++20). Floats use plain arithmetic.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(uint64_t(a) + uint64_t(b));
  else
    return a + b;
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(uint64_t(a) - uint64_t(b));
  else
    return a - b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return T(uint64_t(a) * uint64_t(b));
  else
    return a * b;
}
template <class T>
T wrap_neg(T a) {
  return wrap_sub(T(0), a);
}

// A double converted to T: integers truncate toward zero and saturate at T's range (NaN -> 0),
// since the plain C++ conversion is undefined out of range; floats round to nearest.
template <class T>
T saturate_cast(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    // 2^bits as a double is exact; anything at or above it does not fit.
    constexpr double kUpper = double(std::numeric_limits<T>::max()) + 1.0;
    if (v >= kUpper) return std::numeric_limits<T>::max();
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    return T(v);
  } else {
    return T(v);
  }
}

}  // namespace strata::ops
