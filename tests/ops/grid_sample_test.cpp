// GridSample (src/ops/grid_sample.cpp): bilinear, nearest and padding modes on a 2x2 image.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

std::vector<double> sample(const char* mode, const char* padding, std::vector<float> grid,
                           int64_t align = 1) {
  OpCall call = op_call("GridSample", 20,
                        {{"mode", attr_string(mode)},
                         {"padding_mode", attr_string(padding)},
                         {"align_corners", attr_int(align)}});
  const int64_t points = int64_t(grid.size()) / 2;
  call.inputs = {Tensor::from<float>({1, 1, 2, 2}, {0, 1, 2, 3}),
                 Tensor::from<float>({1, 1, points, 2}, std::span<const float>(grid))};
  return run_op(call)[0].to_double();
}

TEST(GridSample, InterpolatesAndPads) {
  // (x, y) = (0, 0) is the centre: the mean of the four; (-1, -1) the top-left element.
  EXPECT_EQ(sample("linear", "zeros", {0, 0, -1, -1, 1, -1}), (std::vector<double>{1.5, 0, 1}));
  EXPECT_EQ(sample("nearest", "zeros", {0.9f, 0.9f, -0.9f, 0.9f}), (std::vector<double>{3, 2}));
  // Outside: zeros gives 0, border the nearest edge element.
  EXPECT_EQ(sample("linear", "zeros", {-3, -1}), (std::vector<double>{0}));
  EXPECT_EQ(sample("linear", "border", {-3, -1}), (std::vector<double>{0}));
  EXPECT_EQ(sample("linear", "border", {3, 1}), (std::vector<double>{3}));
  EXPECT_THROW(sample("area", "zeros", {0, 0}), Error);
}

}  // namespace
}  // namespace strata::test
