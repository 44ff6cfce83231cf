// strata/session.h's view of a prepared session: the plan and its steps (fusions, in-place
// buffers), the last run's outputs, clones for streams, dumps of every value and the slow-path
// warnings of `strata run`.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <filesystem>
#include <string>
#include <vector>

#include "api/error_of.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;

TEST(PlanApi, SummarisesThePassesAndTheMemoryOfThePlan) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  const PlanSummary plan = Session(model, inputs).plan();
  size_t fused = 0;
  for (const PassApplied& p : plan.passes)
    if (p.name == "fuse_conv") fused = p.changes;
  EXPECT_GT(fused, 0u);                               // tiny_resnet's Conv → Relu pairs
  EXPECT_LE(plan.nodes, model.node_count() - fused);  // a fusion may take in two nodes
  EXPECT_EQ(plan.steps, plan.nodes - plan.folded_nodes);
  EXPECT_EQ(plan.fast_steps, plan.steps);
  EXPECT_GT(plan.packed_bytes, 0);
  EXPECT_GE(plan.arena_bytes, plan.lower_bound_bytes);
  EXPECT_GT(plan.lower_bound_bytes, 0);
  EXPECT_GT(plan.constant_bytes, 0);

  SessionOptions off;
  off.optimize = false;
  off.fast_kernels = false;
  const PlanSummary plain = Session(model, inputs, off).plan();
  EXPECT_TRUE(plain.passes.empty());
  EXPECT_EQ(plain.nodes, model.node_count());
  EXPECT_EQ(plain.fast_steps, 0u);
  EXPECT_EQ(plain.packed_bytes, 0);
}

TEST(PlanApi, StepsNameTheNodesAFusedNodeStandsForAndInPlaceBuffers) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  const std::vector<StepInfo> steps = Session(model, inputs).steps();
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps[0].op_type, "FusedConv");
  EXPECT_EQ(steps[0].fused_from,
            (std::vector<std::string>{"/stem/stem.0/Conv", "/stem/stem.2/Relu"}));
  bool in_place = false;
  for (const StepInfo& s : steps) {
    in_place |= s.in_place;
    if (s.op_type != "FusedConv") {
      EXPECT_TRUE(s.fused_from.empty()) << s.node;
    }
  }
  EXPECT_TRUE(in_place);  // a residual Add fused into a Conv writes over its addend

  SessionOptions nhwc;
  nhwc.layout = "nhwc";
  SessionOptions nchw;
  nchw.layout = "nchw";
  bool converts = false;
  for (const StepInfo& s : Session(model, inputs, nhwc).steps()) converts |= !s.conversions.empty();
  EXPECT_TRUE(converts);  // the NCHW image goes into the first NHWC convolution
  for (const StepInfo& s : Session(model, inputs, nchw).steps())
    EXPECT_TRUE(s.conversions.empty()) << s.node;
}

TEST(PlanApi, OutputsAreTheLastRunsAndNeedARun) {
  const Model model = Model::load(kExampleModel);
  InputOptions a, b;
  b.seed = 1;
  const NamedArrays in_a = bind_inputs(model, a), in_b = bind_inputs(model, b);
  Session session(model, in_a);
  EXPECT_NE(error_of([&] { session.outputs(); }).find("has not run"), std::string::npos);
  const NamedArrays out_a = session.run(in_a);
  session.run(in_b);
  const NamedArrays last = session.outputs();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].name, "probabilities");
  EXPECT_NE(std::vector<float>(last[0].array.data<float>(),
                               last[0].array.data<float>() + last[0].array.numel()),
            std::vector<float>(out_a[0].array.data<float>(),
                               out_a[0].array.data<float>() + out_a[0].array.numel()));
}

TEST(PlanApi, AClonedSessionComputesTheSameOutputs) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  SessionOptions options;
  options.threads = 1;
  Session session(model, inputs, options);
  Session clone = session.clone();
  EXPECT_EQ(clone.steps().size(), session.steps().size());
  EXPECT_EQ(clone.plan().arena_bytes, session.plan().arena_bytes);
  const Array a = session.run(inputs)[0].array;
  const Array b = clone.run(inputs)[0].array;
  ASSERT_EQ(a.nbytes(), b.nbytes());
  EXPECT_EQ(std::vector<float>(a.data<float>(), a.data<float>() + a.numel()),
            std::vector<float>(b.data<float>(), b.data<float>() + b.numel()));
}

TEST(PlanApi, DumpAllWritesEveryValueAndSummarisesThem) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  Session session(model, inputs);
  test::TempDir dir;
  const DumpSummary dump = session.dump_all(inputs, dir.path("dump"));
  EXPECT_EQ(dump.nodes, session.plan().nodes);
  EXPECT_EQ(dump.values, dump.nodes + inputs.size());  // one output per node, and the image
  EXPECT_TRUE(std::filesystem::exists(dir.path("dump/index.json")));
  EXPECT_TRUE(std::filesystem::exists(dir.path("dump/probabilities.npy")));
  EXPECT_NE(dump.io_summary.find("probabilities"), std::string::npos);
  EXPECT_EQ(session.outputs()[0].name, "probabilities");  // the dump's run counts as a run
  // The dump is what compare_dumps reads: the same session's dump agrees with itself.
  session.dump_all(inputs, dir.path("again"));
  EXPECT_TRUE(compare_dumps(dir.path("dump"), dir.path("again")).agree());
  // No folder: nothing written, the summary all the same.
  const DumpSummary summary_only = session.dump_all(inputs);
  EXPECT_EQ(summary_only.io_summary, dump.io_summary);
}

TEST(PlanApi, SlowPathsAreStepsOnReferenceKernelsTakingMuchOfTheRun) {
  // One CumSum (no fast kernel): its reference kernel takes the whole run.
  test::ModelBuilder m;
  m.add_input("x", DType::kF32, {256, 256});
  m.add_initializer("axis", Tensor::from<int64_t>({}, {1}));
  m.add_node("CumSum", {"x", "axis"}, {"y"}, "cumsum");
  m.add_output("y", DType::kF32, {256, 256});
  test::TempDir dir;
  const Model model = Model::load(m.save(dir.path("cumsum.onnx")));
  const NamedArrays inputs = bind_inputs(model, {});
  Session fast(model, inputs);
  ASSERT_EQ(fast.steps()[0].kernel, "reference");
  const std::vector<std::string> warnings = fast.slow_path_warnings(inputs);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cumsum"), std::string::npos) << warnings[0];
  // Reference kernels by request are no surprise.
  SessionOptions reference;
  reference.fast_kernels = false;
  Session slow(model, inputs, reference);
  EXPECT_TRUE(slow.slow_path_warnings(inputs).empty());
}

}  // namespace
}  // namespace strata
