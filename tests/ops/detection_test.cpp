// NonMaxSuppression and RoiAlign: small hand-checked cases and the bad-input errors.
#include "ops/infer_util.h"
#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

// Three boxes in one batch and class: 0 and 1 overlap heavily (IoU 0.81), 2 is apart.
OpCall nms(Tensor scores, int64_t max_out, float iou, std::optional<float> score_threshold = {}) {
  OpCall call = op_call("NonMaxSuppression", 17);
  call.inputs = {Tensor::from<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6}),
                 std::move(scores), Tensor::from<int64_t>({1}, {max_out}),
                 Tensor::from<float>({1}, {iou})};
  if (score_threshold) call.inputs.push_back(Tensor::from<float>({1}, {*score_threshold}));
  return call;
}

TEST(NonMaxSuppression, SuppressesOverlapsInScoreOrder) {
  const Tensor scores = Tensor::from<float>({1, 1, 3}, {0.8f, 0.9f, 0.3f});
  std::vector<Tensor> out = run_op(nms(scores, 10, 0.5f));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));
  // A threshold above their IoU keeps all three; max_output_boxes_per_class limits; scores under
  // score_threshold are dropped.
  EXPECT_EQ(run_op(nms(scores, 10, 0.9f))[0].dim(0), 3);
  EXPECT_EQ(run_op(nms(scores, 1, 0.9f))[0].dim(0), 1);
  EXPECT_EQ(run_op(nms(scores, 10, 0.9f, 0.5f))[0].dim(0), 2);
}

// Many kept boxes, compared with a candidate in blocks: 300 apart on a diagonal (all kept), then,
// lower in score, one overlapping box 250 (the fifth block) and one overlapping nothing.
TEST(NonMaxSuppression, AnOverlapFarDownTheKeptListSuppresses) {
  constexpr int64_t kApart = 300;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < kApart; ++i) {
    const float p = float(i) * 2;
    boxes.insert(boxes.end(), {p, p, p + 1, p + 1});
    scores.push_back(1.0f - float(i) * 1e-3f);
  }
  boxes.insert(boxes.end(), {500, 500.1f, 501, 501.1f});  // IoU 0.82 with box 250
  boxes.insert(boxes.end(), {-5, -5, -4, -4});
  scores.insert(scores.end(), {0.1f, 0.05f});
  OpCall call = op_call("NonMaxSuppression", 17);
  const int64_t n = kApart + 2;
  call.inputs = {Tensor::from<float>({1, n, 4}, boxes), Tensor::from<float>({1, 1, n}, scores),
                 Tensor::from<int64_t>({1}, {1000}), Tensor::from<float>({1}, {0.5f})};
  const std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].dim(0), kApart + 1);
  EXPECT_EQ(out[0].data<int64_t>()[kApart * 3 + 2], kApart + 1);  // the last one, not kApart
}

TEST(NonMaxSuppression, CountIsSymbolicUntilTheScoresAreKnown) {
  const std::vector<ops::Meta> out =
      infer_only(op_call("NonMaxSuppression"),
                 {meta(DType::kF32, Shape{1, 3, 4}), meta(DType::kF32, Shape{1, 2, 3})});
  EXPECT_FALSE(out[0].shape[0].is_static());
  EXPECT_EQ(out[0].shape[1], Dim(3));
}

TEST(NonMaxSuppression, MismatchedBoxesAndScores) {
  OpCall call = nms(Tensor::from<float>({1, 1, 2}, {0.5f, 0.5f}), 10, 0.5f);
  expect_error([&] { run_op(call); }, {"'boxes' of shape [1,3,4] does not match 'scores'"});
  call = nms(Tensor::from<float>({1, 1, 3}, {0.5f, 0.5f, 0.5f}), 10, 1.5f);
  expect_error([&] { run_op(call); }, {"iou_threshold 1.5 is outside [0, 1]"});
}

OpCall roi_align(const char* mode, int64_t sampling_ratio, Tensor batch_indices) {
  OpCall call = op_call("RoiAlign", 16);
  call.attributes["mode"] = attr_string(mode);
  call.attributes["output_height"] = attr_int(1);
  call.attributes["output_width"] = attr_int(2);
  call.attributes["sampling_ratio"] = attr_int(sampling_ratio);
  // X: one 1×4×4 image with values 0..15 (row-major); one roi covering columns 0..2, rows 0..2.
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i);
  call.inputs = {Tensor::from<float>({1, 1, 4, 4}, x),
                 Tensor::from<float>({1, 4}, {0.5f, 0.5f, 2.5f, 2.5f}), std::move(batch_indices)};
  return call;
}

TEST(RoiAlign, AveragesBilinearSamplesPerBin) {
  // half_pixel: the roi spans pixel centres 0..2; bins [0,1] and [1,2] wide, 2 high; one sample
  // per bin (sampling_ratio 1) at (y 1, x 0.5) and (y 1, x 1.5): 4.5 and 5.5.
  std::vector<Tensor> out = run_op(roi_align("avg", 1, Tensor::from<int64_t>({1}, {0})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 1, 2}));
  expect_near(out[0], {4.5f, 5.5f});
}

TEST(RoiAlign, Errors) {
  expect_error([&] { run_op(roi_align("avg", 1, Tensor::from<int64_t>({1}, {3}))); },
               {"batch_indices[0] is 3, outside the batch of 1"});
  expect_error(
      [&] {
        run_op(roi_align("avg", 1, Tensor::from<int64_t>({2}, {0, 0})));
      },
      {"'batch_indices' of shape [2] must have one entry per roi (1)"});
  expect_error([&] { run_op(roi_align("median", 1, Tensor::from<int64_t>({1}, {0}))); },
               {"mode must be 'avg' or 'max'"});
}

}  // namespace
}  // namespace strata::test
