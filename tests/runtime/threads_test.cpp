// --threads: one OpenMP pool serves oneDNN and strata's own kernels, and the outputs agree
// whatever the thread count.
#include <gtest/gtest.h>
#include <omp.h>
#include <strata/strata.h>

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

}  // namespace
}  // namespace strata
