// Small control-flow and detection models (tests/models/detection, made by
// scripts/make_detection_models.py with torch.onnx, opset 11) run against PyTorch's outputs: a
// scripted Loop/If module element-wise, and a tiny detector (NonZero, NonMaxSuppression, RoiAlign,
// If) as a set of detections, since the order among equal scores is not defined. Both with the fast
// kernels and with the reference kernels. The torchvision detectors themselves are compared the
// same way by bench/detections.py (bench/README.md): CI has no torchvision.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "models/test_case_session.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

const fs::path kDetection = fs::path(STRATA_SOURCE_DIR) / "tests" / "models" / "detection";

constexpr double kScoreTolerance = 1e-5;
constexpr double kBoxTolerance = 1e-4;      // pixels
constexpr double kFeatureTolerance = 1e-5;  // RoiAlign-pooled features, absolute

// One detection: row i of boxes [K,4], scores [K], features [K,F].
struct Detection {
  std::vector<float> box, features;
  float score = 0;
};

std::vector<Detection> detections(const Tensor& boxes, const Tensor& scores,
                                  const Tensor& features) {
  const int64_t k = scores.numel();
  EXPECT_EQ(boxes.shape(), (std::vector<int64_t>{k, 4}));
  EXPECT_EQ(features.shape().size(), 2u);
  EXPECT_EQ(features.shape()[0], k);
  const int64_t f = features.shape()[1];
  std::vector<Detection> out(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    out[size_t(i)].box.assign(boxes.data<float>() + 4 * i, boxes.data<float>() + 4 * i + 4);
    out[size_t(i)].features.assign(features.data<float>() + f * i,
                                   features.data<float>() + f * (i + 1));
    out[size_t(i)].score = scores.data<float>()[i];
  }
  return out;
}

float max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// Every expected detection has its own match among the detections got (same count, so none is
// left over): score, box and features within tolerance, in any order.
void expect_same_set(const std::vector<Detection>& got, const std::vector<Detection>& expected) {
  ASSERT_EQ(got.size(), expected.size()) << "detections";
  std::vector<bool> taken(got.size(), false);
  for (size_t e = 0; e < expected.size(); ++e) {
    bool found = false;
    for (size_t g = 0; g < got.size() && !found; ++g) {
      if (taken[g] || std::abs(got[g].score - expected[e].score) > kScoreTolerance ||
          max_diff(got[g].box, expected[e].box) > kBoxTolerance)
        continue;
      EXPECT_LE(max_diff(got[g].features, expected[e].features), kFeatureTolerance)
          << "features of detection " << e;
      taken[g] = found = true;
    }
    EXPECT_TRUE(found) << "expected detection " << e << " (score " << expected[e].score << ", box "
                       << expected[e].box[0] << "," << expected[e].box[1] << ","
                       << expected[e].box[2] << "," << expected[e].box[3] << ") is missing";
  }
}

runtime::SessionOptions with_fast_kernels(bool fast) {
  runtime::SessionOptions options;
  options.fast_kernels = fast;
  return options;
}

class DetectionModels : public ::testing::TestWithParam<bool> {};

TEST_P(DetectionModels, TinyDetectorGivesPyTorchsDetectionsAsASet) {
  const TestCaseRun run =
      run_test_case(kDetection / "tiny_detector", with_fast_kernels(GetParam()));
  ASSERT_EQ(run.data.expected.size(), 3u);
  const std::vector<Detection> expected =
      detections(run.data.expected[0], run.data.expected[1], run.data.expected[2]);
  ASSERT_GT(expected.size(), 10u) << "the model should keep a meaningful set";
  expect_same_set(
      detections(run.session->output(0), run.session->output(1), run.session->output(2)), expected);
}

TEST_P(DetectionModels, ScriptedLoopAndIfGivePyTorchsOutput) {
  const TestCaseRun run =
      run_test_case(kDetection / "loop_if_script", with_fast_kernels(GetParam()));
  ASSERT_EQ(run.data.expected.size(), 1u);
  const Tensor& got = run.session->output(0);
  const Tensor& want = run.data.expected[0];
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;
}

INSTANTIATE_TEST_SUITE_P(FastAndReference, DetectionModels, ::testing::Bool());

}  // namespace
}  // namespace strata::test
