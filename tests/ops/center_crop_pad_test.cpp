// CenterCropPad (src/ops/center_crop_pad.cpp): centred crops and zero pads, chosen axes.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(CenterCropPad, CropsAndPadsAroundTheCentre) {
  OpCall call = op_call("CenterCropPad", 18);
  // [2, 5] -> [4, 3]: rows padded by 1 before (and 1 after), columns cropped from index 1.
  call.inputs = {Tensor::from<int32_t>({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
                 Tensor::from<int64_t>({2}, {4, 3})};
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(y.to_int64(), (std::vector<int64_t>{0, 0, 0, 1, 2, 3, 6, 7, 8, 0, 0, 0}));
  OpCall axes = op_call("CenterCropPad", 18, {{"axes", attr_ints({-1})}});
  axes.inputs = {Tensor::from<float>({1, 4}, {1, 2, 3, 4}), Tensor::from<int64_t>({1}, {2})};
  EXPECT_EQ(run_op(axes)[0].to_double(), (std::vector<double>{2, 3}));
  axes.inputs[1] = Tensor::from<int64_t>({2}, {2, 2});  // two sizes for one axis
  EXPECT_THROW(run_op(axes), Error);
}

}  // namespace
}  // namespace strata::test
