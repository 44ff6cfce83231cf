// Sequences and optionals, run through a session (their values are made while running).
#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

std::vector<Tensor> run_model(const ModelBuilder& m, const std::vector<Tensor>& inputs) {
  TempDir dir;
  const ir::Graph g = runtime::load_model(m.save(dir.path("model.onnx"))).graph;
  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) {
    specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
    ptrs.push_back(&t);
  }
  runtime::Session session(g, specs, {});
  session.run(ptrs);
  std::vector<Tensor> out;
  for (size_t i = 0; i < session.num_outputs(); ++i) out.push_back(session.output(i).clone());
  return out;
}

std::vector<float> tensor_floats(const Tensor& t) {
  EXPECT_TRUE(t.is_tensor());
  EXPECT_EQ(t.dtype(), DType::kF32);
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

// [a, b] → insert c at 0 → [c, a, b]; item 1, the length, the concatenation and a split back.
ModelBuilder sequence_model() {
  ModelBuilder m;
  for (const char* name : {"a", "b", "c"}) m.add_input(name, DType::kF32, {2});
  m.add_initializer("zero", Tensor::from<int64_t>({}, {0}));
  m.add_initializer("minus_two", Tensor::from<int64_t>({}, {-2}));
  m.add_node("SequenceConstruct", {"a", "b"}, {"ab"}, "construct");
  m.add_node("SequenceInsert", {"ab", "c", "zero"}, {"cab"}, "insert");
  m.add_node("SequenceAt", {"cab", "minus_two"}, {"item"}, "at");
  m.add_node("SequenceLength", {"cab"}, {"length"}, "length");
  set_attr(m.add_node("ConcatFromSequence", {"cab"}, {"joined"}, "concat"), "axis", int64_t(0));
  auto& stack = m.add_node("ConcatFromSequence", {"cab"}, {"stacked"}, "stack");
  set_attr(stack, "axis", int64_t(0));
  set_attr(stack, "new_axis", int64_t(1));
  m.add_node("SequenceErase", {"cab"}, {"ca"}, "erase");
  m.add_node("SplitToSequence", {"joined"}, {"pieces"}, "split");
  m.add_output("item", DType::kF32, {2});
  m.add_output("length", DType::kI64, {});
  m.add_output("joined", DType::kF32, {6});
  m.add_output("stacked", DType::kF32, {3, 2});
  m.add_output("ca");
  m.add_output("pieces");
  return m;
}

TEST(Sequence, ConstructInsertAtLengthConcatEraseSplit) {
  const Tensor a = Tensor::from<float>({2}, {1, 2}), b = Tensor::from<float>({2}, {3, 4}),
               c = Tensor::from<float>({2}, {5, 6});
  const std::vector<Tensor> out = run_model(sequence_model(), {a, b, c});
  EXPECT_EQ(tensor_floats(out[0]), (std::vector<float>{1, 2}));  // item -2 of [c, a, b]
  EXPECT_EQ(out[1].data<int64_t>()[0], 3);
  EXPECT_EQ(tensor_floats(out[2]), (std::vector<float>{5, 6, 1, 2, 3, 4}));
  EXPECT_EQ(out[3].shape(), (std::vector<int64_t>{3, 2}));
  ASSERT_EQ(out[4].kind(), ValueKind::kSequence);
  ASSERT_EQ(out[4].items().size(), 2u);  // the last item erased
  EXPECT_EQ(tensor_floats(out[4].items()[1]), (std::vector<float>{1, 2}));
  ASSERT_EQ(out[5].items().size(), 6u);  // pieces of 1 along axis 0, kept as [1]
  EXPECT_EQ(out[5].items()[3].shape(), (std::vector<int64_t>{1}));
  EXPECT_EQ(tensor_floats(out[5].items()[3]), (std::vector<float>{2}));
}

TEST(Sequence, PositionOutOfRangeNamesTheNode) {
  ModelBuilder m = sequence_model();
  m.graph().mutable_initializer(1)->set_raw_data(std::string("\x07\0\0\0\0\0\0\0", 8));
  const Tensor t = Tensor::from<float>({2}, {1, 2});
  expect_error(
      [&] {
        run_model(m, {t, t, t});
      },
      {"SequenceAt node 'at'", "position 7 is out of range for a sequence of 3 items"});
}

TEST(Sequence, TensorOpsRefuseSequences) {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {2});
  m.add_node("SequenceConstruct", {"a"}, {"s"}, "construct");
  m.add_node("Relu", {"s"}, {"y"}, "relu");
  m.add_output("y", DType::kF32, {2});
  expect_error(
      [&] {
        run_model(m, {Tensor::from<float>({2}, {1, 2})});
      },
      {"Relu node 'relu'", "input 0 is a sequence, but this op takes tensors"});
}

TEST(Optional, HasElementAndGetElement) {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {2});
  m.add_node("Optional", {"a"}, {"opt"}, "wrap");
  m.add_node("OptionalHasElement", {"opt"}, {"has"}, "has");
  m.add_node("OptionalGetElement", {"opt"}, {"got"}, "get");
  auto& empty = m.add_node("Optional", {}, {"none"}, "empty");
  onnx::AttributeProto* type = empty.add_attribute();
  type->set_name("type");
  type->set_type(onnx::AttributeProto::TYPE_PROTO);
  type->mutable_tp()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  m.add_node("OptionalHasElement", {"none"}, {"has_none"}, "has_none");
  m.add_node("OptionalGetElement", {"none"}, {"bad"}, "get_none");
  m.add_output("has", DType::kBool, {});
  m.add_output("got", DType::kF32, {2});
  m.add_output("has_none", DType::kBool, {});
  ModelBuilder ok = m;
  ok.graph().mutable_node()->RemoveLast();  // without the failing get
  const std::vector<Tensor> out = run_model(ok, {Tensor::from<float>({2}, {1, 2})});
  EXPECT_TRUE(out[0].data<bool>()[0]);
  EXPECT_EQ(tensor_floats(out[1]), (std::vector<float>{1, 2}));
  EXPECT_FALSE(out[2].data<bool>()[0]);
  m.add_output("bad", DType::kF32, {2});
  expect_error(
      [&] {
        run_model(m, {Tensor::from<float>({2}, {1, 2})});
      },
      {"OptionalGetElement node 'get_none'", "the optional input is empty"});
}

}  // namespace
}  // namespace strata::test
