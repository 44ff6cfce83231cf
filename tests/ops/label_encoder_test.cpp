// LabelEncoder (src/ops/label_encoder.cpp, domain ai.onnx.ml).
#include <cmath>

#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

OpCall encoder(std::map<std::string, ir::Attribute> attributes, Tensor x) {
  OpCall call = op_call("LabelEncoder", 4, std::move(attributes));
  call.domain = "ai.onnx.ml";
  call.inputs = {std::move(x)};
  return call;
}

TEST(LabelEncoder, StringsToIntegersWithTheDefaultForUnknownKeys) {
  OpCall call = encoder({{"keys_strings", attr_strings({"a", "b", "c"})},
                         {"values_int64s", attr_ints({0, 1, 2})},
                         {"default_int64", attr_int(42)}},
                        strings({2, 2}, {"c", "x", "a", "b"}));
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.dtype(), DType::kI64);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values_of<int64_t>(y), (std::vector<int64_t>{2, 42, 0, 1}));
  call.attributes.erase("default_int64");  // the spec's default: -1
  EXPECT_EQ(values_of<int64_t>(run_op(call)[0]), (std::vector<int64_t>{2, -1, 0, 1}));
}

TEST(LabelEncoder, FloatsToStringsMatchNaNAndUseTheStringDefault) {
  OpCall call = encoder({{"keys_floats", attr_floats({1.5f, NAN, 0.0f})},
                         {"values_strings", attr_strings({"one", "nan", "zero"})}},
                        Tensor::from<float>({4}, {NAN, -0.0f, 1.5f, 7}));
  const Tensor y = run_op(call)[0];
  ASSERT_EQ(y.dtype(), DType::kString);
  const std::string* s = y.data<std::string>();
  EXPECT_EQ(std::vector<std::string>(s, s + 4),
            (std::vector<std::string>{"nan", "zero", "one", "_Unused"}));
}

TEST(LabelEncoder, TensorAttributesOfOtherTypes) {
  OpCall call = encoder({{"keys_tensor", attr_tensor(Tensor::from<int32_t>({3}, {5, 6, 7}))},
                         {"values_tensor", attr_tensor(Tensor::from<int16_t>({3}, {-5, -6, -7}))},
                         {"default_tensor", attr_tensor(Tensor::from<int16_t>({1}, {9}))}},
                        Tensor::from<int32_t>({3}, {7, 8, 5}));
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.dtype(), DType::kI16);
  EXPECT_EQ(values_of<int16_t>(y), (std::vector<int16_t>{-7, 9, -5}));
  call.attributes.erase("default_tensor");  // integers: -1
  EXPECT_EQ(values_of<int16_t>(run_op(call)[0]), (std::vector<int16_t>{-7, -1, -5}));
}

TEST(LabelEncoder, BadDictionariesAndInputsFail) {
  const Tensor x = strings({1}, {"a"});
  expect_error(
      [&] {
        run_op(encoder({{"values_int64s", attr_ints({1})}}, x));
      },
      {"exactly one of the attributes 'keys_strings'"});
  expect_error(
      [&] {
        run_op(encoder(
            {{"keys_strings", attr_strings({"a", "b"})}, {"values_int64s", attr_ints({1})}}, x));
      },
      {"there are 2 keys but 1 values"});
  expect_error(
      [&] {
        run_op(encoder({{"keys_int64s", attr_ints({1})}, {"values_int64s", attr_ints({1})}}, x));
      },
      {"input 'X' has dtype string, but the keys are int64"});
  expect_error(
      [&] {
        run_op(encoder({{"keys_strings", attr_strings({"a"})},
                        {"values_int64s", attr_ints({1})},
                        {"default_tensor", attr_tensor(Tensor::from<float>({1}, {0}))}},
                       x));
      },
      {"attribute 'default_tensor' must hold one int64 value"});
  expect_error(
      [&] {
        run_op(encoder({{"keys_tensor", attr_tensor(Tensor::from<uint8_t>({1}, {1}))},
                        {"values_int64s", attr_ints({1})}},
                       x));
      },
      {"attribute 'keys_tensor' has dtype uint8"});
  expect_error(
      [&] {
        run_op(encoder({{"classes_strings", attr_strings({"a"})}}, x));
      },
      {"opset-1 form of LabelEncoder"});
}

}  // namespace
}  // namespace strata::test
