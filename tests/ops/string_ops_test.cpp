// String tensors and the string ops (src/ops/string_ops.cpp): StringConcat with broadcasting,
// RegexFullMatch, StringSplit (delimiter, whitespace, maxsplit), StringNormalizer, Identity, the
// session's refusal of other ops given strings, and string .pb files.
#include <onnx/onnx_pb.h>

#include "onnx/tensor_proto.h"
#include "ops/infer_util.h"
#include "ops/op_test_util.h"
#include "runtime/verify.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

std::vector<std::string> values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::kString);
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.numel());
}

TEST(StringTensor, CloneCopiesTheStrings) {
  const Tensor a = strings({2}, {"one", "two"});
  Tensor b = a.clone();
  b.data<std::string>()[0] = "changed";
  EXPECT_EQ(values(a), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(a.nbytes(), 0u);
}

TEST(StringTensor, ProtoRoundTrip) {
  const Tensor a = strings({2, 1}, {"héllo", ""});
  onnx::TensorProto p;
  ASSERT_TRUE(p.ParseFromString(onnx_import::serialize_tensor_pb(a, "s")));
  EXPECT_EQ(p.string_data_size(), 2);
  const Tensor back = onnx_import::tensor_from_proto(p, "", "s");
  EXPECT_EQ(back.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values(back), (std::vector<std::string>{"héllo", ""}));
  p.add_string_data("extra");
  expect_error([&] { onnx_import::tensor_from_proto(p, "", "s"); },
               {"s", "holds 3 strings but its shape needs 2"});
}

TEST(StringConcat, BroadcastsLikeNumbers) {
  OpCall call = op_call("StringConcat", 20);
  call.inputs = {strings({2, 1}, {"a", "b"}), strings({2}, {"x", "yz"})};
  const Tensor z = run_op(call)[0];
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(z), (std::vector<std::string>{"ax", "ayz", "bx", "byz"}));
  call.inputs[1] = Tensor::from<float>({1}, {1});
  EXPECT_THROW(run_op(call), Error);
}

TEST(RegexFullMatch, WholeStringMustMatch) {
  OpCall call =
      op_call("RegexFullMatch", 20, {{"pattern", attr_string(R"(www\.[\w.-]+\.\bcom\b)")}});
  call.inputs = {strings({3}, {"www.google.com", "www.facebook.com.x", "www.bbc.co.uk"})};
  const Tensor y = run_op(call)[0];
  ASSERT_EQ(y.dtype(), DType::kBool);
  EXPECT_EQ(values_of<bool>(y), (std::vector<bool>{true, false, false}));
  call.attributes["pattern"] = attr_string("(unclosed");
  EXPECT_THROW(run_op(call), Error);
}

std::vector<Tensor> split(const std::vector<std::string>& x,
                          std::map<std::string, ir::Attribute> attrs) {
  OpCall call = op_call("StringSplit", 20, std::move(attrs));
  call.inputs = {strings({int64_t(x.size())}, x)};
  call.num_outputs = 2;
  return run_op(call);
}

TEST(StringSplit, DelimiterWhitespaceAndMaxsplit) {
  std::vector<Tensor> out = split({"a,b,,c", "d"}, {{"delimiter", attr_string(",")}});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(values(out[0]), (std::vector<std::string>{"a", "b", "", "c", "d", "", "", ""}));
  EXPECT_EQ(out[1].to_int64(), (std::vector<int64_t>{4, 1}));
  out = split({"  one two   three ", ""}, {});
  EXPECT_EQ(values(out[0]), (std::vector<std::string>{"one", "two", "three", "", "", ""}));
  EXPECT_EQ(out[1].to_int64(), (std::vector<int64_t>{3, 0}));
  out = split({" a b  c "}, {{"maxsplit", attr_int(1)}});
  EXPECT_EQ(values(out[0]), (std::vector<std::string>{"a", "b  c "}));  // as Python's split
  out = split({"x-y-z"}, {{"delimiter", attr_string("-")}, {"maxsplit", attr_int(1)}});
  EXPECT_EQ(values(out[0]), (std::vector<std::string>{"x", "y-z"}));
  EXPECT_THROW(split({"a"}, {{"maxsplit", attr_int(-1)}}), Error);
}

TEST(StringNormalizer, StopwordsAndCase) {
  OpCall call = op_call(
      "StringNormalizer", 10,
      {{"case_change_action", attr_string("UPPER")}, {"stopwords", attr_strings({"monday"})}});
  call.inputs = {strings({1, 3}, {"Monday", "tuesday", "wednesday"})};
  Tensor y = run_op(call)[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(values(y), (std::vector<std::string>{"TUESDAY", "WEDNESDAY"}));
  call.attributes["is_case_sensitive"] = attr_int(1);
  EXPECT_EQ(run_op(call)[0].numel(), 3);  // "Monday" is not "monday"
  call.inputs = {strings({1}, {"monday"})};
  y = run_op(call)[0];
  EXPECT_EQ(values(y), (std::vector<std::string>{""}));  // nothing left: one empty string
  call.attributes["case_change_action"] = attr_string("TITLE");
  EXPECT_THROW(run_op(call), Error);
  call.attributes["case_change_action"] = attr_string("NONE");
  call.inputs = {strings({2, 2}, {"a", "b", "c", "d"})};
  EXPECT_THROW(run_op(call), Error);  // [C] or [1, C] only
}

TEST(StringTensor, OutputsCompareExactly) {
  const runtime::Comparison same =
      runtime::compare(strings({2}, {"a", "b"}), strings({2}, {"a", "b"}), {});
  EXPECT_TRUE(same.ok);
  const runtime::Comparison differ =
      runtime::compare(strings({2}, {"a", "b"}), strings({2}, {"a", "B"}), {});
  EXPECT_FALSE(differ.ok);
  EXPECT_NE(differ.problem.find("1 of 2 strings differ"), std::string::npos) << differ.problem;
}

TEST(StringOps, IdentityCopiesStrings) {
  OpCall call = op_call("Identity", 17);
  call.inputs = {strings({2}, {"p", "q"})};
  EXPECT_EQ(values(run_op(call)[0]), (std::vector<std::string>{"p", "q"}));
}

}  // namespace
}  // namespace strata::test
