// Small quantized models (tests/models/quantized, made by scripts/make_quantized_models.py with
// bench/quantize.py, as ONNX Runtime's quantizer lays them out) run with ONNX Runtime's outputs:
// every element within one quantization step of them (issue 13's rule), with the fast kernels and
// with the reference kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "models/test_case_session.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

const fs::path kQuantized = fs::path(STRATA_SOURCE_DIR) / "tests" / "models" / "quantized";

double read_step(const fs::path& case_dir) {
  std::ifstream in(case_dir / "step.txt");
  double step = 0;
  in >> step;
  return step;
}

// The largest |got - expected| in quantization steps.
double max_steps_off(const Tensor& got, const Tensor& expected, double step) {
  EXPECT_EQ(got.shape(), expected.shape());
  double worst = 0;
  for (int64_t i = 0; i < expected.numel(); ++i)
    worst = std::max(
        worst, std::abs(double(got.data<float>()[i]) - double(expected.data<float>()[i])) / step);
  return worst;
}

void run_case(const fs::path& case_dir, bool fast_kernels) {
  runtime::SessionOptions options;
  options.fast_kernels = fast_kernels;
  const TestCaseRun run = run_test_case(case_dir, options);
  const runtime::TestData& data = run.data;
  const runtime::Session& session = *run.session;
  const double step = read_step(case_dir);
  ASSERT_GT(step, 0) << case_dir / "step.txt";
  ASSERT_EQ(data.expected.size(), 1u);
  // 1e-3 of a step: the step's own float32 rounding.
  EXPECT_LE(max_steps_off(session.output(0), data.expected[0], step), 1.001);
}

TEST(QuantizedModels, WithinOneStepOfOnnxRuntime) {
  size_t models = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kQuantized)) {
    if (!entry.is_directory()) continue;  // README.md
    SCOPED_TRACE(entry.path().filename().string());
    ++models;
    run_case(entry.path(), /*fast_kernels=*/true);
    run_case(entry.path(), /*fast_kernels=*/false);
  }
  EXPECT_EQ(models, 3u) << "every quantized model in " << kQuantized;
}

}  // namespace
}  // namespace strata::test
