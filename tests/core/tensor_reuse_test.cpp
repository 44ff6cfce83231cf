// Tensor::reuse_as_zeros (src/core/tensor.cpp): a buffer is reused, zeroed, only by its sole
// holder and only for a size that fits; and a session keeps a dynamic value's buffer from one run
// to the next unless the caller still holds the last run's output.
#include <gtest/gtest.h>

#include "core/tensor.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

TEST(TensorReuse, TheSoleHolderReusesItsBufferZeroed) {
  Tensor t = Tensor::from<float>({4}, {1, 2, 3, 4});
  const void* buffer = t.raw();
  ASSERT_TRUE(t.reuse_as_zeros(DType::kI32, {2, 2}));  // the same bytes, another dtype
  EXPECT_EQ(t.raw(), buffer);
  EXPECT_EQ(t.dtype(), DType::kI32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.to_int64(), (std::vector<int64_t>{0, 0, 0, 0}));
  ASSERT_TRUE(t.reuse_as_zeros(DType::kF32, {3}));  // smaller, over half
  EXPECT_EQ(t.numel(), 3);
}

TEST(TensorReuse, ABufferHeldElsewhereOrTooSmallOrFarTooLargeIsNotReused) {
  Tensor t = Tensor::from<float>({4}, {1, 2, 3, 4});
  const Tensor held = t;  // shares the buffer
  EXPECT_FALSE(t.reuse_as_zeros(DType::kF32, {4}));
  EXPECT_EQ(held.to_double(), (std::vector<double>{1, 2, 3, 4}));
  Tensor u = Tensor::zeros(DType::kF32, {8});
  EXPECT_FALSE(u.reuse_as_zeros(DType::kF32, {9}));  // larger than it holds
  EXPECT_FALSE(u.reuse_as_zeros(DType::kF32, {3}));  // under half: a big buffer kept for little
  EXPECT_EQ(u.numel(), 8);
  float outside[4] = {1, 2, 3, 4};
  Tensor view = Tensor::view(DType::kF32, {4}, outside);  // not its own
  EXPECT_FALSE(view.reuse_as_zeros(DType::kF32, {4}));
  EXPECT_EQ(outside[0], 1);
  Tensor strings = Tensor::zeros(DType::kString, {2});
  EXPECT_FALSE(strings.reuse_as_zeros(DType::kString, {2}));
}

// y = Gather(x, NonZero(keep)): its row count is known only while running.
ir::Graph kept_rows() {
  ModelBuilder m;
  m.add_input("keep", DType::kBool, {4});
  m.add_input("x", DType::kF32, {4, 2});
  m.add_node("NonZero", {"keep"}, {"where"}, "nonzero");
  m.add_node("Squeeze", {"where"}, {"rows"}, "squeeze");
  m.add_node("Gather", {"x", "rows"}, {"y"}, "gather");
  m.add_output("y");
  TempDir dir;
  return runtime::load_model(m.save(dir.path("model.onnx"))).graph;
}

TEST(TensorReuse, ASessionKeepsADynamicValuesBufferUnlessTheCallerHoldsIt) {
  const ir::Graph g = kept_rows();
  runtime::Session session(g, {{DType::kBool, {4}}, {DType::kF32, {4, 2}}}, {});
  Tensor keep = Tensor::from<bool>({4}, {true, false, true, false});
  Tensor x = Tensor::from<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  session.run({&keep, &x});
  const void* first = session.output(0).raw();
  session.run({&keep, &x});
  EXPECT_EQ(session.output(0).raw(), first);
  const Tensor held = session.output(0);  // the caller keeps this run's rows
  Tensor other = Tensor::from<bool>({4}, {false, true, false, true});
  session.run({&other, &x});
  EXPECT_NE(session.output(0).raw(), first);
  EXPECT_EQ(held.to_double(), (std::vector<double>{1, 2, 5, 6}));
  EXPECT_EQ(session.output(0).to_double(), (std::vector<double>{3, 4, 7, 8}));
}

}  // namespace
}  // namespace strata::test
