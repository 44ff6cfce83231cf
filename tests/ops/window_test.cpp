// Hann, Hamming and Blackman windows (src/ops/window.cpp): periodic and symmetric.
#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

std::vector<double> window(const char* op, int64_t size, int64_t periodic) {
  OpCall call = op_call(op, 17, {{"periodic", attr_int(periodic)}});
  call.inputs = {Tensor::from<int64_t>({}, {size})};
  return run_op(call)[0].to_double();
}

TEST(Window, PeriodicAndSymmetricValues) {
  const std::vector<double> hann = window("HannWindow", 4, 1);  // N = 4: 0, 0.5, 1, 0.5
  ASSERT_EQ(hann.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(hann[i], (std::vector<double>{0, 0.5, 1, 0.5})[i], 1e-6);
  const std::vector<double> hamming = window("HammingWindow", 3, 0);  // N = 2: ends 4/46, mid 1
  EXPECT_NEAR(hamming[0], 4.0 / 46, 1e-6);
  EXPECT_NEAR(hamming[1], 1.0, 1e-6);
  EXPECT_NEAR(hamming[2], 4.0 / 46, 1e-6);
  const std::vector<double> blackman = window("BlackmanWindow", 3, 0);
  EXPECT_NEAR(blackman[1], 0.42 + 0.5 + 0.08, 1e-6);
  EXPECT_THROW(window("HannWindow", -1, 1), Error);
}

}  // namespace
}  // namespace strata::test
