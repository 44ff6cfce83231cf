// Which vector instructions strata's own CPU kernels use: the widest set this CPU has, capped by
// simd_ceiling(). Kernels read simd_level() when they are prepared; tests lower the ceiling to
// check the narrower loops against the reference kernels on any CPU.
#pragma once

#include <algorithm>
#include <atomic>

namespace strata::kernels::cpu {

enum class Simd { kScalar, kAvx2, kAvx512 };

// kAvx512: AVX-512 F, BW and VL (the 8-bit kernels need all three); kAvx2: AVX2 and FMA.
inline Simd detected_simd() {
  static const Simd detected =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512vl")
          ? Simd::kAvx512
      : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? Simd::kAvx2
                                                                        : Simd::kScalar;
  return detected;
}

inline std::atomic<Simd>& simd_ceiling() {
  static std::atomic<Simd> ceiling{Simd::kAvx512};
  return ceiling;
}

inline Simd simd_level() {
  return std::min(detected_simd(), simd_ceiling().load());
}

// For kernel names: "cpu:avx2".
inline const char* simd_name(Simd level) {
  switch (level) {
    case Simd::kAvx512: return "avx512";
    case Simd::kAvx2: return "avx2";
    case Simd::kScalar: break;
  }
  return "scalar";
}

}  // namespace strata::kernels::cpu
