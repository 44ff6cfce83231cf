// The public API (include/strata/) against the library it wraps, and its errors.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <cstring>
#include <string>

#include "api/error_of.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;

TEST(PublicApi, ModelDescribesItsInputsAndOutputs) {
  const Model model = Model::load(kExampleModel);
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "image");
  EXPECT_EQ(model.inputs()[0].type_string(), "float32[1,3,32,32]");
  ASSERT_EQ(model.outputs().size(), 1u);
  EXPECT_EQ(model.outputs()[0].name, "probabilities");
  EXPECT_GT(model.node_count(), 0u);
}

TEST(PublicApi, RunGivesSoftmaxProbabilitiesAndFollowsTheSeed) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  in.seed = 5;
  const NamedArrays a = run(model, in);
  const NamedArrays b = run(model, in, {.threads = 2});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].name, "probabilities");
  EXPECT_EQ(a[0].array.dtype(), DType::kF32);
  double sum = 0;
  for (int64_t i = 0; i < a[0].array.numel(); ++i) {
    sum += a[0].array.data<float>()[i];
    EXPECT_NEAR(a[0].array.data<float>()[i], b[0].array.data<float>()[i], 1e-5);
  }
  EXPECT_NEAR(sum, 1.0, 1e-4);
}

TEST(PublicApi, SessionRunsGivenArraysAndChecksTheirShape) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  in.arrays["image"] = Array(DType::kF32, {1, 3, 32, 32});
  const NamedArrays inputs = bind_inputs(model, in);
  Session session(model, inputs);
  EXPECT_FALSE(session.steps().empty());
  EXPECT_GT(session.arena_bytes(), 0);
  const NamedArrays first = session.run(inputs);
  const NamedArrays second = session.run(inputs);
  ASSERT_EQ(first[0].array.nbytes(), second[0].array.nbytes());
  EXPECT_EQ(0, std::memcmp(first[0].array.raw(), second[0].array.raw(), first[0].array.nbytes()));

  NamedArrays wrong = {{"image", Array(DType::kF32, {1, 3, 16, 16})}};
  EXPECT_EQ(error_of([&] { session.run(wrong); }),
            "input 'image' is float32[1,3,16,16] but the session was prepared for "
            "float32[1,3,32,32]");
  EXPECT_EQ(error_of([&] { session.run({}); }), "input 'image' is not given");
}

TEST(PublicApi, BadInputsNameWhatIsWrong) {
  const Model model = Model::load(kExampleModel);
  InputOptions in;
  in.arrays["nope"] = Array(DType::kF32, {1});
  EXPECT_NE(error_of([&] { bind_inputs(model, in); }).find("no input named 'nope'"),
            std::string::npos);
  InputOptions ints;
  ints.arrays["image"] = Array(DType::kI32, {1, 3, 32, 32});
  EXPECT_EQ(error_of([&] { bind_inputs(model, ints); }),
            "input 'image' is int32 but the model expects float32");
  EXPECT_NE(error_of([&] { run(model, {}, {.layout = "diagonal"}); }).find("--layout"),
            std::string::npos);
  EXPECT_NE(error_of([&] { Model::load(kExampleModel + ".missing"); }).find(".missing"),
            std::string::npos);
  EXPECT_NE(error_of([] { Array(DType::kUndefined, {2}); }).find("undefined"), std::string::npos);
  EXPECT_NE(error_of([] { Array::copy_of(DType::kString, {1}, "", 0); }).find("strings()"),
            std::string::npos);
}

TEST(PublicApi, ProfileHasARecordPerExecutedNode) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  ProfileOptions options;
  options.iterations = 3;
  const Profile p = profile(model, inputs, options);
  EXPECT_EQ(p.summary().iterations, 3);
  EXPECT_GT(p.summary().median_ms, 0);
  const std::vector<NodeRecord> nodes = p.nodes();
  ASSERT_FALSE(nodes.empty());
  double share = 0;
  for (const NodeRecord& n : nodes) share += n.share_pct;
  EXPECT_NEAR(share, 100, 1e-6);
  EXPECT_NE(p.to_json().find("\"schema_version\": 1"), std::string::npos);
  EXPECT_NE(p.render().find(nodes[0].name), std::string::npos);

  const std::string path = testing::TempDir() + "/api_profile.json";
  p.save_json(path);
  const Profile again = Profile::load(path);
  EXPECT_EQ(again.nodes().size(), nodes.size());
  EXPECT_EQ(again.summary().median_ms, p.summary().median_ms);
  options.iterations = 0;
  EXPECT_NE(error_of([&] { profile(model, inputs, options); }).find("iterations"),
            std::string::npos);
}

TEST(PublicApi, AnalysisTotalsAreTheSumOfItsNodes) {
  const Analysis a = analyze(kExampleModel);
  ASSERT_TRUE(a.totals().flops.has_value());
  double flops = 0;
  int64_t params = 0;
  for (const NodeFigures& n : a.nodes()) {
    if (!n.folded && n.flops) flops += *n.flops;
    params += n.params;
  }
  EXPECT_NEAR(flops, *a.totals().flops, 1e-6 * flops);
  EXPECT_EQ(params, a.totals().params);
  EXPECT_NE(a.render().find("FLOPs"), std::string::npos);
  AnalysisOptions options;
  options.dims["N"] = -1;
  EXPECT_EQ(error_of([&] { analyze(kExampleModel, options); }), "dim N: -1 is not a size");
}

TEST(PublicApi, CompareAgainstReferenceKernelsAgrees) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  const Comparison c = compare_runs(model, inputs, "reference");
  EXPECT_TRUE(c.agree());
  EXPECT_GT(c.values.size(), 1u);
  EXPECT_TRUE(c.first_divergent_node.empty());
  EXPECT_FALSE(c.report.empty());
  EXPECT_NE(error_of([&] { compare_runs(model, inputs, "sideways"); }).find("sideways"),
            std::string::npos);
}

}  // namespace
}  // namespace strata
