// Measuring the machine: CPU identity, peak FP32 FLOP/s, memory bandwidth, library versions.
#include "profiler/machine.h"

#include <fmt/format.h>
#include <google/protobuf/stubs/common.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.h"
#include "kernels/onednn/version.h"

namespace strata::profiler {

namespace {

// Independent FMA chains per thread: enough to cover the FMA latency (4 cycles) times the FMA
// units (2) with room to spare, few enough to stay in registers (16 vector registers with AVX2).
constexpr int kChains = 12;
// Short runs, many times: on a shared machine a 1 ms run often fits in one time slice, so the
// fastest of many sees the core undisturbed, where a long run would always be interrupted.
constexpr double kRunSeconds = 1e-3;
constexpr float kMul = 0.99999994f, kAdd = 1e-7f;  // keeps the chains finite and normal

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The sum of a kernel's last values: the result every step depends on, so the compiler keeps the
// work. Integer lanes are summed in 64 bits (their sum can pass int32's range).
template <typename Sum, typename Lane, size_t N>
float sum_lanes(const Lane (&lanes)[N]) {
  Sum sum = 0;
  for (Lane x : lanes) sum += x;
  return float(sum);
}

// Each kernel runs `steps` rounds of kChains fused multiply-adds and returns a value that depends
// on every one of them, so the compiler keeps the work.
__attribute__((target("avx512f"))) float fma_avx512(int64_t steps) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(float(c));
  const __m512 mul = _mm512_set1_ps(kMul), add = _mm512_set1_ps(kAdd);
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], mul, add);
  for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_ps(acc[0], acc[c]);
  alignas(64) float lanes[16];  // not _mm512_reduce_add_ps: GCC 12 warns inside it
  _mm512_store_ps(lanes, acc[0]);
  return sum_lanes<float>(lanes);
}

__attribute__((target("avx2,fma"))) float fma_avx2(int64_t steps) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(float(c));
  const __m256 mul = _mm256_set1_ps(kMul), add = _mm256_set1_ps(kAdd);
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], mul, add);
  for (int c = 1; c < kChains; ++c) acc[0] = _mm256_add_ps(acc[0], acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc[0]);
  return sum_lanes<float>(lanes);
}

float fma_scalar(int64_t steps) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = float(c);
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * kMul + kAdd;
  return sum_lanes<float>(acc);
}

// int8 dot products, u8 × s8 summed in groups of four into int32 lanes (what oneDNN's int8
// convolutions and matmuls run): AVX-512 VNNI's one instruction per 64 multiply-adds, or without
// VNNI the two-instruction sequence (u8·s8 pairs into int16, pairs of int16 into int32) and an add.
__attribute__((target("avx512f,avx512vnni"))) float dot_vnni512(int64_t steps) {
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_epi32(c);
  const __m512i a = _mm512_set1_epi8(1), b = _mm512_set1_epi8(-1);
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
  for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_epi32(acc[0], acc[c]);
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, acc[0]);
  return sum_lanes<int64_t>(lanes);
}

__attribute__((target("avx512bw"))) float dot_avx512bw(int64_t steps) {
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_epi32(c);
  const __m512i a = _mm512_set1_epi8(1), b = _mm512_set1_epi8(-1), ones = _mm512_set1_epi16(1);
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_add_epi32(acc[c], _mm512_madd_epi16(_mm512_maddubs_epi16(a, b), ones));
  for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_epi32(acc[0], acc[c]);
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, acc[0]);
  return sum_lanes<int64_t>(lanes);
}

__attribute__((target("avx2"))) float dot_avx2(int64_t steps) {
  __m256i acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_epi32(c);
  const __m256i a = _mm256_set1_epi8(1), b = _mm256_set1_epi8(-1), ones = _mm256_set1_epi16(1);
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm256_add_epi32(acc[c], _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones));
  for (int c = 1; c < kChains; ++c) acc[0] = _mm256_add_epi32(acc[0], acc[c]);
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[0]);
  return sum_lanes<int64_t>(lanes);
}

float dot_scalar(int64_t steps) {
  int32_t acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = c;
  volatile int8_t b = -1;  // keeps the compiler from folding the sums
  for (int64_t i = 0; i < steps; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] += int32_t(uint8_t(1)) * b;
  return sum_lanes<int64_t>(acc);
}

// A loop of kChains independent chains and how many operations (2 per multiply-add) one step of
// them is.
struct PeakKernel {
  float (*run)(int64_t);
  double ops_per_step;
  const char* isa;
};

PeakKernel widest_fma_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {fma_avx512, 2.0 * kChains * 16, "avx512f"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {fma_avx2, 2.0 * kChains * 8, "avx2+fma"};
  return {fma_scalar, 2.0 * kChains, "scalar"};
}

PeakKernel widest_int8_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni")) return {dot_vnni512, 2.0 * kChains * 64, "avx512_vnni"};
  if (__builtin_cpu_supports("avx512bw")) return {dot_avx512bw, 2.0 * kChains * 64, "avx512bw"};
  if (__builtin_cpu_supports("avx2")) return {dot_avx2, 2.0 * kChains * 32, "avx2"};
  return {dot_scalar, 2.0 * kChains, "scalar"};
}

void check_threads(int threads) {
  constexpr int kMaxThreads = 4096;
  if (threads < 1 || threads > kMaxThreads)
    fail("thread count {} is out of range (1 to {})", threads, kMaxThreads);
}

// Every thread runs kernel(steps) at once, timing its own run after a barrier, so the start-up of
// the thread team (which waits for a free core on a busy machine) is not counted. Returns the
// slowest thread's time; `team` receives the number of threads OpenMP actually started.
double time_parallel(const PeakKernel& kernel, int threads, int64_t steps, int& team) {
  std::vector<double> seconds(size_t(threads), 0.0);
  float sink = 0;
  team = 1;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
#pragma omp single
    team = omp_get_num_threads();  // the implicit barrier after single lines the threads up
    const auto start = Clock::now();
    sink += kernel.run(steps);
    seconds[size_t(omp_get_thread_num())] = seconds_since(start);
  }
  if (!(sink == sink)) fail_internal("the peak measurement produced NaN");
  return *std::max_element(seconds.begin(), seconds.end());
}

// Largest cache size the kernel reports, in bytes (0 when unknown).
int64_t last_level_cache_bytes() {
  int64_t largest = 0;
  std::error_code ec;
  const std::filesystem::path dir = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(entry.path() / "size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    int64_t value = 0;
    size_t used = 0;
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {
      continue;
    }
    const char unit = used < text.size() ? text[used] : ' ';
    value *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : unit == 'G' ? 1024 * 1024 * 1024 : 1;
    largest = std::max(largest, value);
  }
  return largest;
}

std::string version_of(long encoded, long major_unit, long minor_unit) {
  return fmt::format("{}.{}.{}", encoded / major_unit, encoded % major_unit / minor_unit,
                     encoded % minor_unit);
}

}  // namespace

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(colon + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty()) return name;
  }
  return "unknown CPU";
}

int logical_cpus() {
  return std::max(1, omp_get_num_procs());
}

std::map<std::string, std::string> library_versions() {
  return {
#ifdef __clang__
      {"compiler", "clang " __clang_version__},
#else
      {"compiler", "gcc " __VERSION__},
#endif
      {"onednn", kernels::onednn::library_version()},
      {"fmt", version_of(FMT_VERSION, 10000, 100)},
      {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR,
                                    NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH)},
      {"openmp", fmt::format("{}", _OPENMP)},  // the specification date, e.g. 201511
      {"protobuf", version_of(GOOGLE_PROTOBUF_VERSION, 1000000, 1000)},
  };
}

namespace {

// The fastest rate of `kernel` on `threads` threads over runs of about 1 ms for `seconds`.
FlopsMeasurement measure_peak(const PeakKernel& kernel, int threads, double seconds) {
  check_threads(threads);
  const double target = kRunSeconds;
  // Calibrate on this thread alone: grow the step count until a run is long enough to time, then
  // scale it to the target (the fastest of three, as preemption only makes runs slower). Every
  // thread of the measurement then runs that many steps.
  auto fastest_run = [&](int64_t n) {
    double best = 0;
    for (int r = 0; r < 3; ++r) {
      const auto start = Clock::now();
      kernel.run(n);
      const double t = seconds_since(start);
      if (r == 0 || t < best) best = t;
    }
    return best;
  };
  int64_t steps = 1 << 8;
  double elapsed = fastest_run(steps);
  while (elapsed < target / 4 && steps < (int64_t(1) << 40)) {
    steps *= 4;
    elapsed = fastest_run(steps);
  }
  steps = std::max<int64_t>(1, int64_t(double(steps) * target / std::max(elapsed, 1e-9)));
  int team = 1;
  double best = time_parallel(kernel, threads, steps, team);
  const auto start = Clock::now();
  while (seconds_since(start) < seconds)
    best = std::min(best, time_parallel(kernel, threads, steps, team));
  const double ops = kernel.ops_per_step * double(steps) * team;
  return {ops / best * 1e-9, kernel.isa};
}

}  // namespace

FlopsMeasurement measure_peak_gflops(int threads, double seconds) {
  return measure_peak(widest_fma_kernel(), threads, seconds);
}

FlopsMeasurement measure_peak_int8_gops(int threads, double seconds) {
  return measure_peak(widest_int8_kernel(), threads, seconds);
}

double measure_bandwidth_gbps(int threads, int repetitions) {
  check_threads(threads);
  if (repetitions < 1) fail_internal("bandwidth measurement with {} repetitions", repetitions);
  constexpr int64_t kMinArrayBytes = int64_t(64) << 20;
  constexpr int64_t kMaxArrayBytes = int64_t(256) << 20;
  const int64_t array_bytes =
      std::clamp(4 * last_level_cache_bytes(), kMinArrayBytes, kMaxArrayBytes);
  const int64_t n = array_bytes / int64_t(sizeof(float));
  std::unique_ptr<float[]> a(new float[size_t(n)]), b(new float[size_t(n)]),
      c(new float[size_t(n)]);
  float* pa = a.get();
  float* pb = b.get();
  float* pc = c.get();
  // First touch by the threads that will use each page (same static schedule as the triad).
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    pa[i] = 0;
    pb[i] = 1;
    pc[i] = 2;
  }
  const float scale = 3;
  // The passes run inside one thread team: the team's start-up is not timed, and the barrier that
  // ends each pass makes its time that of the slowest thread.
  double best = 0;
#pragma omp parallel num_threads(threads)
  for (int r = 0; r < repetitions; ++r) {
    Clock::time_point start;
#pragma omp barrier
#pragma omp master
    start = Clock::now();
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; ++i) pa[i] = pb[i] + scale * pc[i];
#pragma omp master
    {
      const double t = seconds_since(start);
      if (r == 0 || t < best) best = t;
    }
  }
  if (pa[n / 2] != 7) fail_internal("the stream triad computed {} instead of 7", pa[n / 2]);
  return 3.0 * double(array_bytes) / best * 1e-9;
}

}  // namespace strata::profiler
