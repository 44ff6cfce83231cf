#include "io/json_tensor.h"

#include <cmath>
#include <limits>
#include <vector>

#include "io/io_test_util.h"

namespace strata::test {
namespace {

using io::parse_json_tensor;
using io::read_json_tensor;

Tensor parse(std::string_view text, DType dtype) {
  return parse_json_tensor(text, dtype, "x");
}

TEST(JsonTensor, ShapeComesFromTheNesting) {
  const struct {
    std::string_view text;
    std::vector<int64_t> shape;
    std::vector<double> values;
  } cases[] = {
      {"[[1, 2, 3], [4, 5, 6.5]]", {2, 3}, {1, 2, 3, 4, 5, 6.5}},
      {"3.5", {}, {3.5}},
      {" [ 7 ] ", {1}, {7}},
      {"[]", {0}, {}},
      {"[[], []]", {2, 0}, {}},
      {"[[[1], [2]]]", {1, 2, 1}, {1, 2}},
      {"[true, false]", {2}, {1, 0}},
  };
  for (const auto& c : cases) {
    const Tensor t = parse(c.text, DType::kF32);
    EXPECT_EQ(t.dtype(), DType::kF32) << c.text;
    EXPECT_EQ(t.shape(), c.shape) << c.text;
    EXPECT_EQ(t.to_double(), c.values) << c.text;
  }
}

TEST(JsonTensor, ConvertsToEveryDtype) {
  for (DType dtype :
       {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI8, DType::kI16, DType::kI32,
        DType::kI64, DType::kU8, DType::kU16, DType::kU32, DType::kU64}) {
    const Tensor t = parse("[[0, 1], [2.0, 100]]", dtype);
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.to_double(), (std::vector<double>{0, 1, 2, 100})) << dtype_name(dtype);
  }
  EXPECT_EQ(parse("[true, false, 2, 0, -0.5]", DType::kBool).to_int64(),
            (std::vector<int64_t>{1, 0, 1, 0, 1}));
}

TEST(JsonTensor, KeepsIntegerExtremesExact) {
  EXPECT_EQ(parse("[-9223372036854775808, 9223372036854775807]", DType::kI64).to_int64(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()}));
  const Tensor u = parse("[18446744073709551615]", DType::kU64);
  EXPECT_EQ(u.data<uint64_t>()[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(parse("[-128, 127]", DType::kI8).to_int64(), (std::vector<int64_t>{-128, 127}));
}

TEST(JsonTensor, FloatsTakeSpecialValuesAndRound) {
  const std::vector<double> v =
      parse(R"(["nan", "inf", "-Infinity", 0.1])", DType::kF32).to_double();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[2], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[3], double(0.1f));
  EXPECT_EQ(parse("[0.5, 100000]", DType::kF16).to_double(),
            (std::vector<double>{0.5, std::numeric_limits<double>::infinity()}));
  EXPECT_EQ(parse("[1.5]", DType::kBF16).to_double(), (std::vector<double>{1.5}));
}

TEST(JsonTensor, UndefinedDtypeIsInferred) {
  EXPECT_EQ(parse("[1, 2]", DType::kUndefined).dtype(), DType::kI64);
  EXPECT_EQ(parse("[1, 2.5]", DType::kUndefined).dtype(), DType::kF32);
  EXPECT_EQ(parse("[[true], [false]]", DType::kUndefined).dtype(), DType::kBool);
  EXPECT_EQ(parse("[[]]", DType::kUndefined).dtype(), DType::kF32);
}

TEST(JsonTensor, RejectsBadTextNamingIt) {
  const std::string deep = std::string(33, '[') + "1" + std::string(33, ']');
  const struct {
    std::string_view text;
    DType dtype;
    std::string detail;
  } cases[] = {
      {"", DType::kF32, "text is empty"},
      {"  \n", DType::kF32, "text is empty"},
      {"[1, 2", DType::kF32, "invalid JSON"},
      {"[1, 2] x", DType::kF32, "invalid JSON"},
      {"[4e400]", DType::kF32, "invalid JSON (number overflow parsing '4e400')"},
      {"[[1, 2], [3]]", DType::kF32,
       "ragged array: element [1] is an array of 1 elements where an array of 2 elements"},
      {"[[1], 2]", DType::kF32, "element [1] is a number where an array of 1 elements"},
      {"[1, [2]]", DType::kF32, "element [1] is an array where a number was expected"},
      {"[1, null]", DType::kF32, "element [1] is null, not a number"},
      {R"([[1, "a"]])", DType::kF32, "element [0][1] is a string (\"a\"), not a number"},
      {R"(["nan"])", DType::kI32, "is a string"},
      {R"({"a": 1})", DType::kF32, "the value is an object, not a number"},
      {"[128]", DType::kI8, "element [0] (128) is out of range for int8"},
      {"[-1]", DType::kU8, "out of range for uint8"},
      {"[18446744073709551615]", DType::kI64, "out of range for int64"},
      {"[1.5]", DType::kI32, "element [0] (1.5) is not a valid int32"},
      {"[1e300]", DType::kI64, "is not a valid int64"},
      {deep, DType::kF32, "nested more than 32 levels"},
  };
  for (const auto& c : cases) {
    EXPECT_THROW(parse_json_tensor(c.text, c.dtype, "input 'x'"), Error) << c.text;
    expect_error([&] { parse_json_tensor(c.text, c.dtype, "input 'x'"); }, "input 'x'", c.detail);
  }
}

TEST(JsonTensor, ReadsBareArrayFiles) {
  ScratchDir dir;
  const Tensor t = read_json_tensor(dir.write("a.json", "[[1, 2], [3, 4]]\n"), DType::kI32);
  EXPECT_EQ(t.dtype(), DType::kI32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.to_int64(), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(JsonTensor, ReadsObjectFiles) {
  ScratchDir dir;
  const Tensor a = read_json_tensor(
      dir.write("a.json", R"({"dtype": "float64", "shape": [2, 1, 2], "data": [1, 2, 3, 4]})"),
      DType::kUndefined);
  EXPECT_EQ(a.dtype(), DType::kF64);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(a.to_double(), (std::vector<double>{1, 2, 3, 4}));

  // Nested data reshaped; the requested dtype when none is declared; a scalar shape.
  const Tensor b = read_json_tensor(
      dir.write("b.json", R"({"shape": [4], "data": [[1, 2], [3, 4]]})"), DType::kU8);
  EXPECT_EQ(b.dtype(), DType::kU8);
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{4}));
  const Tensor c =
      read_json_tensor(dir.write("c.json", R"({"shape": [], "data": [5]})"), DType::kI64);
  EXPECT_EQ(c.shape(), (std::vector<int64_t>{}));
  EXPECT_EQ(c.to_int64(), (std::vector<int64_t>{5}));
  const Tensor d =
      read_json_tensor(dir.write("d.json", R"({"dtype": "bool", "data": [true]})"), DType::kBool);
  EXPECT_EQ(d.dtype(), DType::kBool);
}

TEST(JsonTensor, RejectsBadFilesNamingThem) {
  ScratchDir dir;
  const struct {
    std::string name, text;
    DType dtype;
    std::string detail;
  } cases[] = {
      {"empty.json", "", DType::kF32, "text is empty"},
      {"invalid.json", "{\"data\": [1,}", DType::kF32, "invalid JSON"},
      {"no_data.json", R"({"shape": [1]})", DType::kF32, "no \"data\" key"},
      {"typo.json", R"({"data": [1], "shap": [1]})", DType::kF32, "unexpected key \"shap\""},
      {"dtype_name.json", R"({"dtype": "float", "data": [1]})", DType::kF32,
       "unknown \"dtype\" \"float\""},
      {"dtype_type.json", R"({"dtype": 1, "data": [1]})", DType::kF32, "unknown \"dtype\" 1"},
      {"mismatch.json", R"({"dtype": "int64", "data": [1]})", DType::kF32,
       "\"dtype\" is int64, but float32 is expected"},
      {"count.json", R"({"shape": [2, 3], "data": [1, 2]})", DType::kF32,
       "\"data\" has 2 values, but \"shape\" [2,3] needs 6"},
      {"negative.json", R"({"shape": [-1], "data": []})", DType::kF32, "invalid \"shape\" [-1]"},
      {"shape_type.json", R"({"shape": 3, "data": [1]})", DType::kF32, "invalid \"shape\""},
      {"huge.json", R"({"shape": [1099511627776, 1099511627776], "data": []})", DType::kF32,
       "size overflow"},
      {"ragged.json", R"({"data": [[1], []]})", DType::kF32, "ragged array"},
      {"bad_value.json", R"({"data": [1, "two"]})", DType::kF32, "element [1] is a string"},
  };
  for (const auto& c : cases) {
    const std::string path = dir.write(c.name, c.text);
    EXPECT_THROW(read_json_tensor(path, c.dtype), Error) << c.name;
    expect_error([&] { read_json_tensor(path, c.dtype); }, path, c.detail);
  }
  expect_error([&] { read_json_tensor(dir.path("missing.json"), DType::kF32); },
               dir.path("missing.json"), "No such file");
}

}  // namespace
}  // namespace strata::test
