// RotaryEmbedding (src/ops/rotary_embedding.cpp): halves or interleaved pairs, position ids.
#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

TEST(RotaryEmbedding, RotatesPairsByTheCachedAngles) {
  // One head of size 4, one position: cos 0 / sin 1 (a quarter turn) for pair 0, identity for 1.
  const Tensor x = Tensor::from<float>({1, 1, 1, 4}, {1, 2, 3, 4});
  const Tensor cos = Tensor::from<float>({2, 2}, {1, 1, 0, 1});
  const Tensor sin = Tensor::from<float>({2, 2}, {0, 0, 1, 0});
  OpCall halves = op_call("RotaryEmbedding", 23);
  halves.inputs = {x, cos, sin, Tensor::from<int64_t>({1, 1}, {1})};  // row 1 of the caches
  // pairs (x[0], x[2]) = (1, 3) -> (-3, 1); (x[1], x[3]) = (2, 4) unchanged.
  EXPECT_EQ(run_op(halves)[0].to_double(), (std::vector<double>{-3, 2, 1, 4}));
  OpCall pairs = op_call("RotaryEmbedding", 23, {{"interleaved", attr_int(1)}});
  pairs.inputs = {x, cos, sin, Tensor::from<int64_t>({1, 1}, {1})};
  // pairs (1, 2) -> (-2, 1); (3, 4) unchanged.
  EXPECT_EQ(run_op(pairs)[0].to_double(), (std::vector<double>{-2, 1, 3, 4}));
  pairs.inputs[3] = Tensor::from<int64_t>({1, 1}, {2});  // past the caches
  EXPECT_THROW(run_op(pairs), Error);
}

// Found by the graph fuzzer (docs/fuzzing.md): a node without its caches read a tensor that was
// not there, and position ids of the wrong length were read past their end.
TEST(RotaryEmbedding, MissingCachesAndShortPositionIdsAreRefused) {
  const Tensor x = Tensor::from<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor cos = Tensor::from<float>({2, 1}, {1, 0});
  const Tensor sin = Tensor::from<float>({2, 1}, {0, 1});
  OpCall no_caches = op_call("RotaryEmbedding", 23);
  no_caches.inputs = {x};
  expect_error([&] { run_op(no_caches); }, {"'cos_cache' and 'sin_cache' are required"});
  no_caches.inputs = {x, Tensor(), sin};
  expect_error([&] { run_op(no_caches); }, {"'cos_cache' and 'sin_cache' are required"});
  OpCall short_ids = op_call("RotaryEmbedding", 23);
  short_ids.inputs = {x, cos, sin, Tensor::from<int64_t>({1, 1}, {1})};  // 2 positions in x
  expect_error([&] { run_op(short_ids); }, {"position_ids holds 1 values", "(2)"});
  short_ids.inputs[3] = Tensor::from<int64_t>({1, 2}, {1, 0});
  EXPECT_EQ(run_op(short_ids)[0].to_double(), (std::vector<double>{-2, 1, 3, 4}));
}

}  // namespace
}  // namespace strata::test
