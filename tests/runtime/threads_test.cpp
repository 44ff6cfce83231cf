// --threads: one OpenMP pool serves oneDNN and strata's own kernels, and the outputs agree
// whatever the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "kernels/kernel_test_util.h"
#include "kernels/omp_threads.h"
#include "strata_internal.h"

namespace strata {
namespace {

Tensor run_example(int threads, kernels::LayoutPolicy layout) {
  runtime::Model model =
      runtime::load_model(std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet.onnx");
  passes::optimize_graph(model.graph);
  runtime::SessionOptions options;
  options.threads = threads;
  options.layout = layout;
  Tensor x = Tensor::zeros(DType::kF32, {1, 3, 32, 32});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i % 17) / 17 - 0.5f;
  runtime::Session session(model.graph, {{DType::kF32, {1, 3, 32, 32}}}, options);
  EXPECT_EQ(omp_get_max_threads(), threads);  // the pool oneDNN and strata's kernels share
  session.run({&x});
  return session.output(0).clone();
}

TEST(Threads, OutputsAgreeAcrossThreadCounts) {
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kBlocked}) {
    const Tensor one = run_example(1, layout), two = run_example(2, layout),
                 three = run_example(3, layout);
    for (const Tensor* t : {&two, &three}) {
      const runtime::Comparison c = runtime::compare(*t, one, {1e-5, 1e-6});
      EXPECT_TRUE(c.ok) << c.problem << " (max abs " << c.max_abs_error << ")";
    }
  }
}

// Sets an environment variable for its lifetime (unset: nullptr), and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { saved_ ? setenv(name_, saved_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// A tiny step (a Relu of 8 values) and a large one (a 96x96x96 MatMul, 1.8 MFLOP) in one graph.
ir::Graph small_and_large() {
  std::mt19937 rng(61);
  test::GraphBuilder g;
  g.input("x", {96, 96});
  g.input("t", {1, 8});
  g.constant("w", test::random_tensor(rng, {96, 96}));
  g.node("MatMul", {"x", "w"}, {"big"});
  g.node("Relu", {"t"}, {"small"});
  g.output("big");
  g.output("small");
  return g.build();
}

std::vector<Tensor> small_and_large_inputs(std::mt19937& rng) {
  return {test::random_tensor(rng, {96, 96}), test::random_tensor(rng, {1, 8})};
}

TEST(Threads, TinyStepsRunOnOneThreadAndTheRestOnThePool) {
  std::mt19937 rng(62);
  const ir::Graph graph = small_and_large();
  const std::vector<Tensor> inputs = small_and_large_inputs(rng);
  runtime::SessionOptions options;
  options.threads = 2;
  const ScopedEnv spinning("OMP_WAIT_POLICY", nullptr), spin_count("GOMP_SPINCOUNT", nullptr);
  const test::SessionResult two = test::run_session(graph, inputs, options);
  EXPECT_EQ(omp_get_max_threads(), 2);  // the pool's count is back after the one-thread step
  ASSERT_EQ(two.steps.size(), 2u);
  EXPECT_EQ(two.steps[0].threads, 2) << two.steps[0].kernel;
  EXPECT_EQ(two.steps[1].threads, 1) << two.steps[1].kernel;
  options.single_thread_flops = options.single_thread_bytes = 0;  // off: every step on the pool
  const test::SessionResult pooled = test::run_session(graph, inputs, options);
  EXPECT_EQ(pooled.steps[1].threads, 2);
  options.threads = 1;
  const test::SessionResult one = test::run_session(graph, inputs, options);
  for (size_t i = 0; i < 2; ++i) {
    for (const test::SessionResult* r : {&two, &pooled}) {
      const runtime::Comparison c = runtime::compare(r->outputs[i], one.outputs[i], {1e-5, 1e-5});
      EXPECT_TRUE(c.ok) << "output " << i << ": " << c.problem;
    }
  }
  omp_set_num_threads(1);
}

// With OMP_WAIT_POLICY=passive every parallel step wakes sleeping workers: the 1.8 MFLOP MatMul,
// shared otherwise, runs on one thread too (the bounds grow 16 times).
TEST(Threads, WhenIdleWorkersSleepOnlyLargerStepsShareThePool) {
  std::mt19937 rng(63);
  const ir::Graph graph = small_and_large();
  const std::vector<Tensor> inputs = small_and_large_inputs(rng);
  runtime::SessionOptions options;
  options.threads = 2;
  const ScopedEnv no_spin_count("GOMP_SPINCOUNT", nullptr);
  for (const char* policy : {"passive", "PASSIVE", "active", static_cast<const char*>(nullptr)}) {
    const ScopedEnv env("OMP_WAIT_POLICY", policy);
    const bool sleeping = policy && std::string(policy) != "active";
    SCOPED_TRACE(policy ? policy : "(unset)");
    EXPECT_EQ(kernels::idle_workers_sleep(), sleeping);
    const test::SessionResult r = test::run_session(graph, inputs, options);
    EXPECT_EQ(r.steps[0].threads, sleeping ? 1 : 2) << r.steps[0].reason;
  }
  const ScopedEnv zero_spins("GOMP_SPINCOUNT", "0");
  EXPECT_TRUE(kernels::idle_workers_sleep());
  omp_set_num_threads(1);
}

// Light passes (SiLU, channel shuffles) take one thread more for each 2^14 values while idle
// workers spin, for each 2^19 when they sleep, never more than they are given, always one.
TEST(Threads, LightPassesShareByTheirSizeAndTheWaitPolicy) {
  const ScopedEnv no_spin_count("GOMP_SPINCOUNT", nullptr);
  {
    const ScopedEnv spinning("OMP_WAIT_POLICY", nullptr);
    EXPECT_EQ(kernels::pass_threads(16383, 2), 1);
    EXPECT_EQ(kernels::pass_threads(3 * 16384 + 5, 8), 3);
    EXPECT_EQ(kernels::pass_threads(int64_t(1) << 30, 2), 2);
    EXPECT_EQ(kernels::pass_threads(int64_t(1) << 30, 0), 1);
  }
  const ScopedEnv sleeping("OMP_WAIT_POLICY", "passive");
  EXPECT_EQ(kernels::pass_threads(3 * 16384 + 5, 8), 1);
  EXPECT_EQ(kernels::pass_threads(3 << 19, 8), 3);
}

TEST(Threads, AOneThreadStepThatFailsGivesThePoolBack) {
  test::GraphBuilder g;
  g.input("data", {4, 3});
  g.input("indices", {2}, DType::kI64);
  g.node("Gather", {"data", "indices"}, {"y"});
  g.output("y");
  const ir::Graph graph = g.build();
  runtime::SessionOptions options;
  options.threads = 2;
  const Tensor data = Tensor::zeros(DType::kF32, {4, 3});
  const Tensor indices = Tensor::from<int64_t>({2}, {0, 9});  // out of range
  std::vector<runtime::InputSpec> specs = {{DType::kF32, {4, 3}}, {DType::kI64, {2}}};
  runtime::Session session(graph, specs, options);
  ASSERT_EQ(session.steps()[0].threads, 1) << session.steps()[0].kernel;
  EXPECT_THROW(session.run({&data, &indices}), std::exception);
  EXPECT_EQ(omp_get_max_threads(), 2);
  omp_set_num_threads(1);
}

}  // namespace
}  // namespace strata
