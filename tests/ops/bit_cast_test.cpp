// BitCast (src/ops/bit_cast.cpp).
#include <cstdint>
#include <limits>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(BitCast, ReinterpretsTheBytes) {
  OpCall call = op_call("BitCast", 26, {{"to", attr_int(6)}});  // int32
  call.inputs = {Tensor::from<float>({2}, {1.0f, -0.0f})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].dtype(), DType::kI32);
  EXPECT_EQ(values_of<int32_t>(out[0]),
            (std::vector<int32_t>{0x3F800000, std::numeric_limits<int32_t>::min()}));
  OpCall back = op_call("BitCast", 26, {{"to", attr_int(4)}});  // uint16
  back.inputs = {Tensor::from<int16_t>({1}, {-1})};
  EXPECT_EQ(values_of<uint16_t>(run_op(back)[0]), (std::vector<uint16_t>{65535}));
}

TEST(BitCast, RejectsTypesOfOtherSizes) {
  OpCall call = op_call("BitCast", 26, {{"to", attr_int(7)}});  // int64
  call.inputs = {Tensor::from<float>({2}, {1, 2})};
  EXPECT_THROW(run_op(call), Error);
  OpCall unknown = op_call("BitCast", 26, {{"to", attr_int(99)}});
  unknown.inputs = {Tensor::from<float>({2}, {1, 2})};
  EXPECT_THROW(run_op(unknown), Error);
}

}  // namespace
}  // namespace strata::test
