// strata/verify.h: test case folders, test data, expected outputs and their comparison; with
// strata/files.h's write_file and file_stem_of and strata/tensor.h's save_npy they write.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "api/error_of.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;
const std::string kExpected = std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet_expected";

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(VerifyApi, ATestCaseFolderIsFoundAndItsDataRead) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  const std::string dir = fresh_dir("verify_api_case");
  Session(model, inputs).pack(dir, inputs);

  EXPECT_FALSE(find_test_case(kExampleModel).has_value());  // a model file
  const std::optional<TestCase> found = find_test_case(dir);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->model, dir + "/model.onnx");
  EXPECT_EQ(found->data_dir, dir + "/test_data_set_0");

  const TestData data = read_test_data(model, found->data_dir);
  ASSERT_EQ(data.inputs.size(), 1u);
  EXPECT_EQ(data.inputs[0].name, "image");
  EXPECT_EQ(data.inputs[0].origin, found->data_dir);
  ASSERT_EQ(data.expected.size(), 1u);
  EXPECT_EQ(data.expected[0].name, "probabilities");
  Session session(model, data.inputs);
  for (const ValueComparison& c : verify_outputs(session.run(data.inputs), data.expected))
    EXPECT_TRUE(c.ok) << c.value << ": " << c.problem;

  std::filesystem::remove(dir + "/model.onnx");
  EXPECT_NE(error_of([&] { find_test_case(dir); }).find("model.onnx"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(VerifyApi, TestDataWarnsOfNaNAndNamesAMissingFolder) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  Array image(DType::kF32, {1, 3, 32, 32});
  image.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  in.arrays["image"] = image;
  const NamedArrays inputs = bind_inputs(model, in);
  const std::string dir = fresh_dir("verify_api_nan");
  Session(model, inputs).pack(dir, inputs);
  std::vector<std::string> warnings;
  read_test_data(model, dir + "/test_data_set_0",
                 [&warnings](const std::string& w) { warnings.push_back(w); });
  EXPECT_EQ(warnings, std::vector<std::string>{"input 'image' contains NaN"});
  EXPECT_NE(error_of([&] { read_test_data(model, dir + "/nowhere"); }).find("nowhere"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(VerifyApi, OutputsAreComparedByNameWithTheTolerance) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays expected = read_expected_outputs(model, kExpected);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].name, "probabilities");

  NamedArrays outputs = expected;
  float& first = outputs[0].array.data<float>()[0];
  first += 1e-3f;
  CompareOptions strict;
  strict.elementwise = true;
  strict.rtol = 0;
  strict.atol = 1e-6;
  std::vector<ValueComparison> c = verify_outputs(outputs, expected, strict);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].value, "probabilities");
  EXPECT_FALSE(c[0].ok);
  EXPECT_EQ(c[0].mismatches, 1);
  EXPECT_NEAR(c[0].max_abs_error, 1e-3, 1e-6);
  CompareOptions loose = strict;
  loose.atol = 1e-2;
  EXPECT_TRUE(verify_outputs(outputs, expected, loose)[0].ok);

  NamedArrays reshaped = {{"probabilities", Array(DType::kF32, {1, 5})}};
  c = verify_outputs(reshaped, expected, loose);
  EXPECT_FALSE(c[0].ok);
  EXPECT_NE(c[0].problem.find("shape"), std::string::npos) << c[0].problem;
  EXPECT_NE(error_of([&] { verify_outputs({}, expected); }).find("'probabilities'"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { read_expected_outputs(model, kExampleModel + ".nowhere"); }).find("nowhere"),
      std::string::npos);
}

TEST(VerifyApi, FilesAreWrittenWholeAndNamedAfterValues) {
  EXPECT_EQ(file_stem_of("block/conv:0"), "block_conv_0");
  EXPECT_EQ(file_stem_of("plain"), "plain");
  const std::string dir = fresh_dir("verify_api_files");
  std::filesystem::create_directories(dir);
  write_file(dir + "/a.txt", "hello\n");
  std::ifstream in(dir + "/a.txt");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "hello\n");
  EXPECT_NE(error_of([&] { write_file(dir + "/no/such/dir/a.txt", "x"); }).find("a.txt"),
            std::string::npos);

  Array a(DType::kF32, {2, 3});
  a.data<float>()[4] = 2.5f;
  save_npy(dir + "/a.npy", a);
  std::ifstream npy_file(dir + "/a.npy", std::ios::binary);
  std::stringstream npy_bytes;
  npy_bytes << npy_file.rdbuf();
  const std::string npy = npy_bytes.str();
  EXPECT_EQ(npy.rfind("\x93NUMPY", 0), 0u);
  EXPECT_NE(npy.find("'shape': (2, 3)"), std::string::npos);
  ASSERT_GT(npy.size(), a.nbytes());
  EXPECT_EQ(npy.substr(npy.size() - a.nbytes()),
            std::string(static_cast<const char*>(a.raw()), a.nbytes()));
  EXPECT_NE(error_of([&] { save_npy(dir + "/b.npy", Array(DType::kBF16, {1})); }).find("b.npy"),
            std::string::npos);
  std::filesystem::remove_all(dir);

  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1.5 * 1024 * 1024), "1.5 MiB");
}

}  // namespace
}  // namespace strata
