// strata's own SiLU pass (src/kernels/cpu/silu.cpp) against x / (1 + exp(-x)) in double: every
// tail length of the vector loop, the saturated ends, and a buffer large enough to be split among
// threads.
#include "kernels/cpu/silu.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/omp_threads.h"

namespace strata::test {
namespace {

double silu(double x) {
  return x / (1 + std::exp(-x));
}

// Relative error 1e-6 (the polynomial exponential), absolute 1e-30 (0 below -87).
void expect_close(const std::vector<float>& input, const std::vector<float>& got) {
  for (size_t i = 0; i < input.size(); ++i) {
    const double expected = silu(input[i]);
    ASSERT_NEAR(got[i], expected, 1e-6 * std::abs(expected) + 1e-30)
        << "x = " << input[i] << " at " << i << " of " << input.size();
  }
}

TEST(Silu, MatchesTheFormulaForEveryTailLength) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-30, 30);
  for (size_t n = 0; n <= 50; ++n) {
    std::vector<float> x(n);
    for (float& v : x) v = dist(rng);
    std::vector<float> y = x;
    kernels::cpu::silu_in_place(y.data(), int64_t(n));
    expect_close(x, y);
  }
}

TEST(Silu, EndsAndSpecialValues) {
  const std::vector<float> x = {0.f,  -0.f,  1e-30f, -1e-30f, 1e-3f, -1e-3f, 1.f,   -1.f,
                                10.f, -10.f, 30.f,   -30.f,   80.f,  -80.f,  86.9f, -86.9f,
                                88.f, -88.f, 100.f,  -100.f,  1e4f,  -1e4f,  3e38f, -3e38f};
  std::vector<float> y = x;
  kernels::cpu::silu_in_place(y.data(), int64_t(y.size()));
  expect_close(x, y);
  std::vector<float> nan = {std::nanf("")};
  kernels::cpu::silu_in_place(nan.data(), 1);
  EXPECT_TRUE(std::isnan(nan[0]));
}

TEST(Silu, LargeBuffersAreSplitAmongThreadsAlike) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-12, 12);
  std::vector<float> x(1500001);  // split even where idle workers sleep (2 × 2^19)
  for (float& v : x) v = dist(rng);
  std::vector<float> one = x, two = x;
  {
    const kernels::OmpThreads threads(1);
    kernels::cpu::silu_in_place(one.data(), int64_t(one.size()));
  }
  {
    const kernels::OmpThreads threads(2);
    kernels::cpu::silu_in_place(two.data(), int64_t(two.size()));
  }
  expect_close(x, one);
  EXPECT_EQ(one, two);
}

}  // namespace
}  // namespace strata::test
