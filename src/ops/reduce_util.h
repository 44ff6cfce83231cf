// Shared by the reductions, axis ops (ArgMax, Softmax, CumSum, TopK) and matrix products: the
// types values are accumulated and compared in, and the outer/axis/inner view of a tensor.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ops/elementwise_kernels.h"  // saturate_cast, wrap_add, wrap_mul

namespace strata::ops {

template <class T>
inline constexpr bool is_float_like_v =
    std::is_floating_point_v<T> || std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

// Sums and products accumulate in double for floats (accuracy for float32 and the 16-bit types)
// and in 64-bit integers for integers, wrapping on overflow like fixed-width arithmetic.
template <class T>
using acc_t = std::conditional_t<is_float_like_v<T>, double,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

// The matrix products (MatMul, Gemm) accumulate this many columns of an output row at once, in a
// stack buffer of acc_t: no allocation while running.
inline constexpr int64_t kColumnBlock = 256;

// Values are compared (max, min, sorting) in this type: exact for every T, and one with
// infinities and NaN for the float types.
template <class T>
using cmp_t = std::conditional_t<is_float_like_v<T>, double, T>;

template <class T>
acc_t<T> to_acc(T v) {
  return acc_t<T>(v);
}

// An accumulated value stored back as T (integers keep the low bits, like wrapping arithmetic).
template <class T>
T from_acc(acc_t<T> v) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    return T(float(v));
  else
    return T(v);
}

template <class V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return std::isnan(v);
  else
    return false;
}

// A tensor seen as [outer, n, inner]: element (o, j, i) is at offset (o * n + j) * inner + i.
// Ops along one axis (or the flattened dims [begin, end)) walk each (o, i) line of n elements.
struct AxisSplit {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
  int64_t offset(int64_t o, int64_t j, int64_t i) const { return (o * n + j) * inner + i; }
};

// Dims [0, begin) form `outer`, [begin, end) form `n`, [end, rank) form `inner`.
inline AxisSplit split_at(const std::vector<int64_t>& shape, int64_t begin, int64_t end) {
  AxisSplit s;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    int64_t& part = d < begin ? s.outer : d < end ? s.n : s.inner;
    part *= shape[size_t(d)];
  }
  return s;
}

// Two dims that must be equal (a contraction's shared size): fails when both are known and
// differ; throws NotStatic when symbolic dims leave it open.
inline void require_equal_dims(const Dim& a, const Dim& b, const char* what) {
  if (a == b) return;
  if (a.is_static() && b.is_static()) fail("{} differ: {} vs {}", what, a.value(), b.value());
  throw NotStatic{};
}

// Bytes of the inputs that are constants (weights), for Cost::param_bytes.
inline double constant_input_bytes(const CostContext& ctx) {
  double bytes = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.is_constant_input(i)) bytes += ctx.bytes_in(i);
  return bytes;
}

}  // namespace strata::ops
