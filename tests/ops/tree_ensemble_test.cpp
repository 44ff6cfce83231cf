// TreeEnsemble (src/ops/tree_ensemble.cpp, domain ai.onnx.ml): ONNX's single-tree example.
// Node 0 (x0 <= 3.14) goes to node 1 (x0 <= 1.2: leaf 0 or 1), else node 2 (x0 <= 4.2: leaf 2
// or 3); leaves 0 and 2 feed target 0, 1 and 3 target 1.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall tree(int64_t aggregate) {
  OpCall call = op_call(
      "TreeEnsemble", 21,
      {{"aggregate_function", attr_int(aggregate)},
       {"n_targets", attr_int(2)},
       {"tree_roots", attr_ints({0})},
       {"nodes_featureids", attr_ints({0, 0, 0})},
       {"nodes_modes", attr_tensor(Tensor::from<uint8_t>({3}, {0, 0, 0}))},
       {"nodes_splits", attr_tensor(Tensor::from<double>({3}, {3.14, 1.2, 4.2}))},
       {"nodes_truenodeids", attr_ints({1, 0, 1})},
       {"nodes_trueleafs", attr_ints({0, 1, 1})},
       {"nodes_falsenodeids", attr_ints({2, 2, 3})},
       {"nodes_falseleafs", attr_ints({0, 1, 1})},
       {"leaf_targetids", attr_ints({0, 1, 0, 1})},
       {"leaf_weights", attr_tensor(Tensor::from<double>({4}, {5.23, 12.12, -12.23, 7.21}))}});
  call.domain = "ai.onnx.ml";
  call.inputs = {Tensor::from<double>({3, 2}, {1.2, 3.4, -0.12, 1.66, 4.14, 1.77})};
  return call;
}

TEST(TreeEnsemble, SingleTree) {
  std::vector<Tensor> out = run_op(tree(1));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values_of<double>(out[0]), (std::vector<double>{5.23, 0, 5.23, 0, 0, 12.12}));
}

TEST(TreeEnsemble, Errors) {
  OpCall target = tree(1);
  target.attributes["leaf_targetids"] = attr_ints({0, 1, 0, 2});
  EXPECT_THROW(run_op(target), Error);
  EXPECT_THROW(run_op(tree(7)), Error);
  OpCall lengths = tree(1);
  lengths.attributes["nodes_featureids"] = attr_ints({0, 0});
  EXPECT_THROW(run_op(lengths), Error);
}

}  // namespace
}  // namespace strata::test
