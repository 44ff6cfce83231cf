// strata's one-row product (src/kernels/cpu/gemv.cpp) against the reference kernels: Gemm with
// B stored either way, alpha, beta and every C it takes, MatMul with 1-D and [1, ..., 1, K] rows,
// inner sizes with and without a 32-value tail, output counts not a multiple of 4, one and two
// threads; and the products it leaves to oneDNN.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

bool has_avx512() {
  return kernels::cpu::simd_level() == kernels::cpu::Simd::kAvx512;
}

TEST(Gemv, GemmMatchesTheReferenceEveryWay) {
  if (!has_avx512()) GTEST_SKIP() << "strata's GEMV needs AVX-512";
  std::mt19937 rng(91);
  const std::vector<std::vector<int64_t>> c_shapes = {{}, {1}, {0}, {1, 0}};  // 0: N
  for (int i = 0; i < 16; ++i) {
    const bool tb = i & 1;
    const float alpha = (i & 2) ? 0.5f : 1.0f, beta = (i & 4) ? 2.0f : 1.0f;
    const int64_t k = (i & 8) ? 1024 : 1000 + i, n = 80 + i;  // past 2^16 weights
    std::vector<int64_t> c_shape = c_shapes[size_t(i) % c_shapes.size()];
    for (int64_t& d : c_shape)
      if (d == 0) d = n;
    const bool has_c = i % 5 != 4;
    const int threads = 1 + i % 2;
    SCOPED_TRACE(testing::Message()
                 << "transB " << tb << " alpha " << alpha << " beta " << beta << " k " << k << " n "
                 << n << " C " << (has_c ? Shape::of(c_shape).str() : "none") << " threads "
                 << threads);
    GraphBuilder g;
    g.input("a", {1, k});
    g.constant("b",
               random_tensor(rng, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}));
    if (has_c) g.constant("c", random_tensor(rng, c_shape));
    ir::Node& node = g.node("Gemm", {"a", "b", has_c ? "c" : ""}, {"y"});
    node.attributes["transB"] = attr_int(tb);
    node.attributes["alpha"] = attr_float(alpha);
    node.attributes["beta"] = attr_float(beta);
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, {1, k})}, kernels::LayoutPolicy::kAuto, 1e-4, threads);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].kernel, "cpu:gemv:avx512") << steps[0].reason;
  }
}

TEST(Gemv, MatMulRowsOfOneMatchTheReference) {
  if (!has_avx512()) GTEST_SKIP() << "strata's GEMV needs AVX-512";
  std::mt19937 rng(92);
  for (const std::vector<int64_t>& a_shape :
       std::vector<std::vector<int64_t>>{{300}, {1, 300}, {1, 1, 300}}) {
    SCOPED_TRACE(Shape::of(a_shape).str());
    GraphBuilder g;
    g.input("a", a_shape);
    g.constant("b", random_tensor(rng, {300, 257}));
    g.node("MatMul", {"a", "b"}, {"y"});
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, a_shape)});
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].kernel, "cpu:gemv:avx512") << steps[0].reason;
  }
}

// Two rows, transposed A, weights that stay in cache, or weights known only while running are
// oneDNN's.
TEST(Gemv, LeavesOtherProductsToOneDnn) {
  std::mt19937 rng(93);
  struct Case {
    std::vector<int64_t> a, b;
    bool trans_a, constant_b;
  };
  const Case cases[] = {{{2, 512}, {512, 256}, false, true},
                        {{512, 1}, {512, 256}, true, true},
                        {{1, 64}, {64, 64}, false, true},
                        {{1, 512}, {512, 256}, false, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(Shape::of(c.a).str() + " × " + Shape::of(c.b).str());
    GraphBuilder g;
    g.input("a", c.a);
    if (c.constant_b)
      g.constant("b", random_tensor(rng, c.b));
    else
      g.input("b", c.b);
    g.node("Gemm", {"a", "b"}, {"y"}).attributes["transA"] = attr_int(c.trans_a);
    g.output("y");
    std::vector<Tensor> inputs = {random_tensor(rng, c.a)};
    if (!c.constant_b) inputs.push_back(random_tensor(rng, c.b));
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), inputs);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_NE(steps[0].kernel, "cpu:gemv:avx512");
  }
}

}  // namespace
}  // namespace strata::test
