#include "ops/op_test_util.h"

namespace strata::test {
namespace {

struct SplitCase {
  int64_t opset;
  size_t outputs;
  std::vector<int64_t> split;  // empty: not given
  int64_t num_outputs_attr;    // 0: not given
  std::vector<std::vector<float>> expected;
};

std::vector<Tensor> split_1d(const SplitCase& c) {
  OpCall call{.op_type = "Split", .opset = c.opset, .num_outputs = c.outputs};
  call.inputs = {Tensor::from<float>({5}, {1, 2, 3, 4, 5})};
  if (!c.split.empty() && c.opset < 13) call.attributes["split"] = attr_ints(c.split);
  if (!c.split.empty() && c.opset >= 13)
    call.inputs.push_back(Tensor::from<int64_t>({int64_t(c.split.size())}, c.split));
  if (c.num_outputs_attr) call.attributes["num_outputs"] = attr_int(c.num_outputs_attr);
  return run_op(call);
}

TEST(Split, Variants) {
  for (const SplitCase& c : std::vector<SplitCase>{
           {11, 2, {2, 3}, 0, {{1, 2}, {3, 4, 5}}},
           {13, 3, {1, 0, 4}, 0, {{1}, {}, {2, 3, 4, 5}}},
           {18, 3, {}, 3, {{1, 2}, {3, 4}, {5}}},
           {18, 2, {}, 2, {{1, 2, 3}, {4, 5}}},
           {13, 1, {}, 0, {{1, 2, 3, 4, 5}}},
       }) {
    std::vector<Tensor> out = split_1d(c);
    ASSERT_EQ(out.size(), c.expected.size());
    for (size_t i = 0; i < out.size(); ++i) expect_near(out[i], c.expected[i]);
  }
}

TEST(Split, Axis1EqualPartsInt64) {
  OpCall call{.op_type = "Split", .attributes = {{"axis", attr_int(-1)}}, .num_outputs = 2};
  call.inputs = {Tensor::from<int64_t>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 5, 6}));
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{3, 4, 7, 8}));
}

TEST(Split, Errors) {
  EXPECT_THROW(split_1d({13, 2, {}, 0, {}}), Error);       // 5 not divisible by 2
  EXPECT_THROW(split_1d({13, 2, {2, 2}, 0, {}}), Error);   // sum 4 != 5
  EXPECT_THROW(split_1d({13, 2, {6, -1}, 0, {}}), Error);  // negative
  EXPECT_THROW(split_1d({13, 3, {2, 3}, 0, {}}), Error);   // count
  EXPECT_THROW(split_1d({18, 2, {}, 3, {}}), Error);       // num_outputs != outputs
  EXPECT_THROW(split_1d({18, 4, {}, 4, {}}), Error);       // chunks 2,2,2 exceed 5
}

}  // namespace
}  // namespace strata::test
