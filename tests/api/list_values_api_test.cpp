// strata/tensor.h's string tensors, sequences and optionals: they go into a session and come out
// of it as the model declares them, as `strata run` prints them.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <string>
#include <vector>

#include "api/error_of.h"
#include "testutil/onnx_builder.h"

namespace strata {
namespace {

TEST(ListValuesApi, ArraysHoldStringsSequencesAndOptionals) {
  Array words(DType::kString, {2});
  EXPECT_EQ(words.strings(), (std::vector<std::string>{"", ""}));
  EXPECT_EQ(words.nbytes(), 0u);
  EXPECT_EQ(words.type_string(), "string[2]");
  const Array seq =
      Array::sequence(DType::kF32, {Array(DType::kF32, {2}), Array(DType::kF32, {3})});
  EXPECT_EQ(seq.kind(), Array::Kind::kSequence);
  EXPECT_FALSE(seq.is_tensor());
  EXPECT_EQ(seq.items().size(), 2u);
  EXPECT_EQ(seq.type_string(), "float32[sequence of 2]");
  EXPECT_EQ(Array::optional(DType::kI64, {}).type_string(), "int64[optional of 0]");
  EXPECT_NE(error_of([] {
              Array::optional(DType::kI64, {Array(DType::kI64, {1}), Array(DType::kI64, {1})});
            }).find("one value or none"),
            std::string::npos);
}

TEST(ListValuesApi, StringsAndSequencesGoThroughASession) {
  // words (string[2]) → Identity → same; a, b (float32[2]) → SequenceConstruct → seq
  test::ModelBuilder m;
  m.add_input("words", DType::kString, {2});
  m.add_input("a", DType::kF32, {2});
  m.add_input("b", DType::kF32, {2});
  m.add_node("Identity", {"words"}, {"same"}, "identity");
  m.add_node("SequenceConstruct", {"a", "b"}, {"seq"}, "construct");
  m.add_output("same", DType::kString, {2});
  m.add_output("seq");
  test::TempDir dir;
  const Model model = Model::load(m.save(dir.path("lists.onnx")));
  InputOptions in;
  Array words(DType::kString, {2});
  words.strings() = {"hello", "world"};
  in.arrays["words"] = words;
  Array a(DType::kF32, {2});
  a.data<float>()[1] = 4.5f;
  in.arrays["a"] = a;
  const NamedArrays inputs = bind_inputs(model, in);
  Session session(model, inputs);
  const NamedArrays out = session.run(inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].array.strings(), (std::vector<std::string>{"hello", "world"}));
  EXPECT_EQ(out[1].array.type_string(), "float32[sequence of 2]");
  ASSERT_EQ(out[1].array.items().size(), 2u);
  EXPECT_EQ(out[1].array.items()[0].data<float>()[1], 4.5f);
  // Outputs are compared whatever they hold: the same run agrees, another string does not.
  CompareOptions exact;
  for (const ValueComparison& c : verify_outputs(out, out, exact)) EXPECT_TRUE(c.ok) << c.value;
  NamedArrays other = out;
  other[0].array.strings()[1] = "there";
  EXPECT_FALSE(verify_outputs(out, other, exact)[0].ok);
  EXPECT_FALSE(error_of([&] { save_npy(dir.path("seq.npy"), out[1].array); }).empty());
}

}  // namespace
}  // namespace strata
