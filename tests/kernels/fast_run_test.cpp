// Fast-run (src/kernels/fast_run.cpp): every implementation it may choose computes what the op's
// reference kernel computes, and its choice is the fastest candidate, with every candidate's time
// in the reason.
#include "kernels/fast_run.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <memory>

#include "kernels/kernel_test_util.h"
#include "kernels/omp_threads.h"

namespace strata::test {
namespace {

// One node of a built graph as the session would ask the kernels about it: plain layouts in and
// out, so that every implementation reads and writes the reference kernel's layout.
class SingleNode {
 public:
  // output_plain: whether the node's output must be plain (a graph output) or may stay in the
  // kernel's layout (read by a node that takes any).
  SingleNode(ir::Graph graph, kernels::LayoutPolicy policy, int threads = 1,
             bool output_plain = true)
      : graph_(std::move(graph)) {
    const ir::Node& node = graph_.nodes.at(0);
    op_ = passes::make_op(graph_, node);
    for (const ir::Value& v : graph_.values) metas_.push_back({v.dtype, v.shape, v.constant});
    request_ = std::make_unique<kernels::NodeRequest>(
        kernels::NodeRequest{graph_, node, *op_, {}, {}, {}, {}, policy, threads});
    for (ir::ValueId id : node.inputs) {
      request_->inputs.push_back(&metas_[size_t(id)]);
      request_->input_layouts.push_back(Layout::kPlain);
    }
    for (ir::ValueId id : node.outputs) {
      request_->outputs.push_back(&metas_[size_t(id)]);
      request_->output_needs_plain.push_back(output_plain);
    }
  }
  const kernels::NodeRequest& request() const { return *request_; }

  // Runs `kernel` on `inputs` (the node's non-constant inputs, in order, plain), converting them to
  // the layouts it reads; returns output 0, plain.
  Tensor run(kernels::Kernel& kernel, const std::vector<Tensor>& inputs) const {
    std::vector<Tensor> converted;
    converted.reserve(inputs.size());
    std::vector<const Tensor*> in;
    size_t next = 0;
    for (size_t i = 0; i < request_->inputs.size(); ++i) {
      if (request_->input(i).value) {
        in.push_back(request_->input(i).value.get());
        continue;
      }
      converted.push_back(relayout(inputs[next++], kernel.input_layout(i)));
      in.push_back(&converted.back());
    }
    const ops::Meta& y = request_->output(0);
    Tensor out = Tensor::zeros(y.dtype, y.shape.values(), kernel.output_layout(0));
    Tensor scratch = Tensor::zeros(DType::kU8, {std::max<int64_t>(kernel.scratch_bytes(), 1)});
    Tensor* outs[] = {&out};
    kernel.run({in.data(), in.size(), outs, 1, scratch.raw()});
    return relayout(out, Layout::kPlain);
  }

 private:
  // `t` in `layout`, converted by the session's reorder kernel when it is in another.
  static Tensor relayout(const Tensor& t, Layout layout) {
    if (t.layout() == layout) return t.clone();
    Tensor result = Tensor::zeros(t.dtype(), t.shape(), layout);
    const std::unique_ptr<kernels::Kernel> reorder =
        kernels::make_reorder(t.dtype(), t.shape(), t.layout(), layout);
    Tensor scratch = Tensor::zeros(DType::kU8, {std::max<int64_t>(reorder->scratch_bytes(), 1)});
    const Tensor* from[] = {&t};
    Tensor* to[] = {&result};
    reorder->run({from, 1, to, 1, scratch.raw()});
    return result;
  }

 private:
  ir::Graph graph_;
  std::unique_ptr<ops::Op> op_;
  std::vector<ops::Meta> metas_;
  std::unique_ptr<kernels::NodeRequest> request_;
};

// Builds and runs implementation 0, 1, ... of `family` until there is none, each against the
// reference kernel's output; returns how many there were.
int expect_every_implementation_matches(const ir::Graph& graph, const std::vector<Tensor>& inputs,
                                        const std::string& family, kernels::LayoutPolicy policy,
                                        std::vector<std::string>* names = nullptr,
                                        bool output_plain = true) {
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const Tensor expected = run_session(graph, inputs, reference).outputs.at(0);
  const SingleNode node(graph, policy, 1, output_plain);
  int count = 0;
  for (;; ++count) {
    kernels::Choice c = kernels::prepare_implementation(node.request(), family, count);
    if (!c.kernel) break;
    EXPECT_EQ(c.implementation, count);
    if (names) names->push_back(c.kernel->name());
    const Tensor got = node.run(*c.kernel, inputs);
    const runtime::Comparison cmp = runtime::compare(got, expected, {1e-4, 1e-4});
    EXPECT_TRUE(cmp.ok) << "implementation #" << count << " " << c.kernel->name() << ": "
                        << cmp.problem;
  }
  return count;
}

ir::Graph conv_graph(std::mt19937& rng, const std::vector<int64_t>& x, int64_t m, int64_t k,
                     const std::vector<int64_t>& pads = {1, 0, 1, 2}) {
  GraphBuilder g;
  g.input("x", x);
  g.constant("w", random_tensor(rng, {m, x[1], k, k}));
  g.constant("b", random_tensor(rng, {m}));
  ir::Node& node = g.node("Conv", {"x", "w", "b"}, {"y"});
  node.attributes["pads"] = attr_ints(pads);
  g.output("y");
  return g.build();
}

ir::Graph matmul_graph(std::mt19937& rng, int64_t m, int64_t k, int64_t n) {
  GraphBuilder g;
  g.input("a", {2, m, k});
  g.constant("b", random_tensor(rng, {k, n}));
  g.node("MatMul", {"a", "b"}, {"y"});
  g.output("y");
  return g.build();
}

TEST(FastRun, EveryConvolutionImplementationMatchesTheReferenceKernel) {
  std::mt19937 rng(4242);
  const std::vector<int64_t> x = {1, 19, 13, 11};
  const ir::Graph graph = conv_graph(rng, x, 21, 3);
  const int count = expect_every_implementation_matches(
      graph, {random_tensor(rng, x)}, "onednn_conv", kernels::LayoutPolicy::kPlain);
  EXPECT_GE(count, 2) << "oneDNN lists several plain f32 convolutions (gemm, reference...)";
}

// After the direct implementations, oneDNN's Winograd ones for a narrow 3×3 stride-1 convolution
// whose output may stay blocked (oneDNN writes Winograd's only so): listed, and as right as the
// others.
TEST(FastRun, WinogradImplementationsFollowTheDirectOnes) {
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "oneDNN 2.6 has Winograd convolutions for AVX-512 only";
  std::mt19937 rng(33);
  const std::vector<int64_t> x = {1, 19, 13, 11};
  const ir::Graph graph = conv_graph(rng, x, 21, 3, {1, 1, 1, 1});
  std::vector<std::string> names;
  expect_every_implementation_matches(graph, {random_tensor(rng, x)}, "onednn_conv",
                                      kernels::LayoutPolicy::kBlocked, &names, false);
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names.front().find("wino"), std::string::npos) << names.front();
  EXPECT_NE(names.back().find("wino"), std::string::npos)
      << fmt::format("{}", fmt::join(names, ", "));
}

TEST(FastRun, EveryMatMulImplementationMatchesTheReferenceKernel) {
  std::mt19937 rng(77);
  const ir::Graph graph = matmul_graph(rng, 17, 33, 29);
  const int count = expect_every_implementation_matches(
      graph, {random_tensor(rng, {2, 17, 33})}, "onednn_matmul", kernels::LayoutPolicy::kAuto);
  EXPECT_GE(count, 2);
}

TEST(FastRun, ChoosesTheFastestCandidateAndNamesEveryTime) {
  std::mt19937 rng(5);
  const ir::Graph graph = conv_graph(rng, {1, 16, 20, 20}, 16, 3);
  const SingleNode node(graph, kernels::LayoutPolicy::kPlain);
  std::vector<kernels::TimedCandidate> timed;
  kernels::Choice c = kernels::choose_fastest(node.request(), {}, &timed);
  ASSERT_GE(timed.size(), 1u);
  EXPECT_EQ(c.reference_won, timed.front().family == kernels::kReferenceFamily);
  if (!c.reference_won) {
    ASSERT_TRUE(c.kernel) << c.reason;
    EXPECT_EQ(c.kernel->name(), timed.front().kernel);
    EXPECT_EQ(c.implementation, timed.front().implementation);
    ASSERT_NE(c.family, nullptr);
    EXPECT_EQ(std::string(c.family->name), "onednn_conv");
  }
  // The chosen one is the fastest, or the default within 3% of the fastest.
  for (size_t i = 1; i < timed.size(); ++i) {
    EXPECT_LE(timed[0].best_ms, timed[i].best_ms / 0.97);
    EXPECT_TRUE(std::isfinite(timed[i].best_ms));
    EXPECT_NE(c.reason.find(timed[i].kernel), std::string::npos) << c.reason;
  }
  EXPECT_EQ(c.reason.rfind("fast-run: ", 0), 0u) << c.reason;
  // oneDNN's reference convolution is never timed while an optimised one exists.
  for (const kernels::TimedCandidate& t : timed)
    EXPECT_EQ(t.kernel.find(":ref"), std::string::npos) << t.kernel;
}

TEST(FastRun, WithTwoThreadsEachImplementationIsAlsoTimedOnOne) {
  std::mt19937 rng(6);
  const SingleNode node(matmul_graph(rng, 8, 24, 16), kernels::LayoutPolicy::kAuto, 2);
  std::vector<kernels::TimedCandidate> timed;
  const kernels::OmpThreads pool(2);
  kernels::Choice c = kernels::choose_fastest(node.request(), {}, &timed);
  ASSERT_TRUE(c.kernel) << c.reason;
  EXPECT_EQ(omp_get_max_threads(), 2) << "the pool's thread count comes back";
  size_t on_one = 0, on_two = 0;
  for (const kernels::TimedCandidate& t : timed)
    if (t.family != kernels::kReferenceFamily) (t.threads == 1 ? on_one : on_two)++;
  EXPECT_EQ(on_one, on_two);
  EXPECT_EQ(on_one + on_two + 1, timed.size()) << "the reference kernel competes once";
  EXPECT_GE(on_one, 1u);
  EXPECT_EQ(c.threads, timed.front().threads);
  EXPECT_NE(c.reason.find("(1 thread)"), std::string::npos) << c.reason;
}

TEST(FastRun, SessionOutputsMatchTheReferenceAtOneAndTwoThreads) {
  std::mt19937 rng(12);
  const std::vector<int64_t> x = {1, 24, 9, 9};
  const ir::Graph graph = conv_graph(rng, x, 32, 3);
  const std::vector<Tensor> inputs = {random_tensor(rng, x)};
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const Tensor expected = run_session(graph, inputs, reference).outputs.at(0);
  for (int threads : {1, 2}) {
    runtime::SessionOptions options;
    options.fast_run = true;
    options.threads = threads;
    const SessionResult r = run_session(graph, inputs, options);
    EXPECT_TRUE(runtime::compare(r.outputs.at(0), expected, {1e-4, 1e-4}).ok) << threads;
    EXPECT_EQ(r.steps.at(0).reason.rfind("fast-run: ", 0), 0u) << r.steps[0].reason;
    EXPECT_LE(r.steps.at(0).threads, threads);
  }
}

TEST(FastRun, TheReferenceKernelCompetesOnlyWhereChoosingItChangesNothingAround) {
  GraphBuilder g;
  g.input("x", {1, 32, 7, 7});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  const ir::Graph graph = g.build();
  auto families = [&](Layout x_layout, bool output_plain) {
    SingleNode node(graph, kernels::LayoutPolicy::kBlocked);
    kernels::NodeRequest r = node.request();
    r.input_layouts[0] = x_layout;
    r.output_needs_plain[0] = output_plain;
    std::vector<kernels::TimedCandidate> timed;
    kernels::choose_fastest(r, {}, &timed);
    std::vector<std::string> names;
    for (const kernels::TimedCandidate& t : timed) names.push_back(t.family);
    return names;
  };
  auto has_reference = [](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), kernels::kReferenceFamily) != names.end();
  };
  EXPECT_TRUE(has_reference(families(Layout::kPlain, true)));
  EXPECT_FALSE(has_reference(families(kernels::onednn::native_blocked_layout(), true)));
  EXPECT_FALSE(has_reference(families(Layout::kPlain, false)));
}

TEST(FastRun, ANodeNoFamilySupportsGetsTheRefusals) {
  GraphBuilder g;
  g.input("x", {3, 4}, DType::kI64);
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  const SingleNode node(g.build(), kernels::LayoutPolicy::kAuto);
  const kernels::Choice c = kernels::choose_fastest(node.request());
  EXPECT_FALSE(c.kernel);
  EXPECT_NE(c.reason.find("onednn_eltwise"), std::string::npos) << c.reason;
}

TEST(FastRun, AnImplementationPastTheListIsNone) {
  std::mt19937 rng(9);
  const SingleNode node(matmul_graph(rng, 4, 5, 6), kernels::LayoutPolicy::kAuto);
  EXPECT_FALSE(kernels::prepare_implementation(node.request(), "onednn_matmul", 1000).kernel);
  EXPECT_FALSE(kernels::prepare_implementation(node.request(), "no_such_family", 0).kernel);
  EXPECT_FALSE(kernels::prepare_implementation(node.request(), "onednn_conv", 0).kernel);
}

}  // namespace
}  // namespace strata::test
