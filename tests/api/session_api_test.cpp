// strata/session.h's binding details (origins, NaN warnings, parse_shape), the session options of
// `strata run` (progress, fast-run, algo cache) and Session::pack; strata/compare.h's fitting.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "api/error_of.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;

TEST(SessionApi, BoundInputsSayWhereTheyCameFromAndWarnOfNaN) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  in.seed = 7;
  EXPECT_EQ(bind_inputs(model, in)[0].origin, "random (seed 7)");

  Array image(DType::kF32, {1, 3, 32, 32});
  image.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  in.arrays["image"] = image;
  std::vector<std::string> warnings;
  in.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
  bind_inputs(model, in);
  EXPECT_EQ(warnings, std::vector<std::string>{"input 'image' contains NaN"});

  InputOptions folder;
  folder.sources = {"image=" + std::string(STRATA_SOURCE_DIR) + "/examples"};
  EXPECT_NE(error_of([&] { bind_inputs(model, folder); }).find("a folder of inputs"),
            std::string::npos);
}

TEST(SessionApi, ShapesAreParsedAsShapeOptionReadsThem) {
  EXPECT_EQ(parse_shape("1x3x32x32", "--shape image"), (std::vector<int64_t>{1, 3, 32, 32}));
  EXPECT_NE(error_of([] { parse_shape("1xbx3", "--shape image"); }).find("--shape image"),
            std::string::npos);
}

TEST(SessionApi, LoadAndPrepareTellOfTheirProgress) {
  std::vector<std::string> phases;
  const ProgressFn progress = [&phases](const char* phase, int64_t, int64_t) {
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
  };
  const Model model = Model::load(kExampleModel, progress);
  const NamedArrays inputs = bind_inputs(model, {});
  SessionOptions options;
  options.progress = progress;
  Session session(model, inputs, options);
  EXPECT_EQ(phases, (std::vector<std::string>{"load", "optimize", "prepare"}));
}

TEST(SessionApi, FastRunKeepsItsChoicesInTheAlgoCache) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  const std::string cache = testing::TempDir() + "/session_api_algo_cache.json";
  std::filesystem::remove(cache);
  SessionOptions options;
  options.fast_run = true;
  options.algo_cache = cache;
  Session session(model, inputs, options);
  EXPECT_TRUE(std::filesystem::exists(cache));
  const NamedArrays fast = session.run(inputs);
  const NamedArrays plain = run(model, {}, {});
  ASSERT_EQ(fast.size(), plain.size());
  for (int64_t i = 0; i < fast[0].array.numel(); ++i)
    EXPECT_NEAR(fast[0].array.data<float>()[i], plain[0].array.data<float>()[i], 1e-5);
  std::filesystem::remove(cache);
  options.fast_kernels = false;
  EXPECT_NE(error_of([&] { Session(model, inputs, options); }).find("fast_kernels"),
            std::string::npos);
}

TEST(SessionApi, PackWritesATestCaseThatRunsAgain) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  const std::string dir = testing::TempDir() + "/session_api_case";
  std::filesystem::remove_all(dir);
  Session session(model, inputs);
  const Session::Packed packed = session.pack(dir, inputs);
  ASSERT_EQ(packed.inputs.size(), 1u);
  EXPECT_EQ(packed.inputs[0].file, "input_0.pb");
  EXPECT_EQ(packed.inputs[0].name, "image");
  EXPECT_EQ(packed.inputs[0].type, "float32[1,3,32,32]");
  ASSERT_EQ(packed.outputs.size(), 1u);
  EXPECT_EQ(packed.outputs[0].name, "probabilities");
  EXPECT_TRUE(std::filesystem::exists(dir + "/model.onnx"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/test_data_set_0/output_0.pb"));
  InputOptions again;
  again.sources = {dir + "/test_data_set_0/input_0.pb"};
  const NamedArrays a = bind_inputs(Model::load(dir + "/model.onnx"), again);
  EXPECT_EQ(a[0].array.nbytes(), inputs[0].array.nbytes());
  EXPECT_FALSE(error_of([&] { session.pack(dir, inputs); }).empty());  // holds a case already
  std::filesystem::remove_all(dir);
}

TEST(SessionApi, ComparisonReportFitsAWidth) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  CompareOptions options;
  options.fit.width = 60;
  const Comparison narrow = compare_runs(model, inputs, "reference", {}, options);
  const Comparison wide = compare_runs(model, inputs, "reference");
  EXPECT_LT(narrow.report.size(), wide.report.size());
  std::vector<std::string> keys;
  for (const Column& c : comparison_columns()) keys.push_back(c.header);
  EXPECT_FALSE(keys.empty());
  EXPECT_FALSE(error_of([] { check_column_names({"nope"}, {comparison_columns()}); }).empty());
}

}  // namespace
}  // namespace strata
