// Profiles of models with control flow: the nodes inside If/Loop bodies have rows of their own
// under their parent's name, with calls per inference, their shapes per call and the range the
// tables show; the parent keeps its own time so the rows still add up to the run; the trace nests
// body events under their parent; the JSON keeps it all.
#include <gtest/gtest.h>

#include <map>

#include "onnx/loader.h"
#include "profiler/profile_session.h"
#include "profiler/shape_range.h"
#include "report/chrome_trace.h"
#include "report/node_figures.h"
#include "report/profile_json.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/cli_util.h"
#include "testutil/control_flow_models.h"

namespace strata::test {
namespace {

constexpr int kProfileIterations = 4;
constexpr int64_t kTrips = 3;

struct Profiled {
  ir::Graph graph;
  profiler::Profile profile;
};

Profiled profile_of(const ModelBuilder& m) {
  TempDir dir;
  Profiled p{runtime::load_model(m.save(dir.path("model.onnx"))).graph, {}};
  const Tensor x = Tensor::from<float>({1, 4}, {1, -2, 3, -4});
  runtime::Session session(p.graph, {{DType::kF32, {1, 4}}}, {});
  profiler::ProfileRunOptions options;
  options.warmup = 1;
  options.iterations = kProfileIterations;
  p.profile = profiler::profile_session(session, {&x}, options);
  return p;
}

const profiler::NodeProfile& row(const profiler::Profile& p, const std::string& name) {
  for (const profiler::NodeProfile& n : p.nodes)
    if (n.name == name) return n;
  ADD_FAILURE() << "no row " << name;
  static const profiler::NodeProfile kNone;
  return kNone;
}

size_t index_of(const profiler::Profile& p, const std::string& name) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].name == name) return i;
  return p.nodes.size();
}

TEST(ShapeRange, VaryingDimsBecomeRanges) {
  EXPECT_EQ(profiler::shape_range({"float32[1,4]", "float32[3,4]", "float32[2,4]"}),
            "float32[1..3,4]");
  EXPECT_EQ(profiler::shape_range({"float32[2,4]", "float32[2,4]"}), "float32[2,4]");
  EXPECT_EQ(profiler::shape_range({"float32[]"}), "float32[]");
  // Different ranks or dtypes, or types that are not plain tensors: listed.
  EXPECT_EQ(profiler::shape_range({"float32[2]", "float32[2,2]", "float32[2]"}),
            "float32[2] | float32[2,2]");
  EXPECT_EQ(profiler::shape_range({"float32[sequence of 3]", "float32[sequence of 4]"}),
            "float32[sequence of 3] | float32[sequence of 4]");
}

TEST(ControlFlowProfile, LoopBodyNodesHaveRowsWithCallsPerInference) {
  const profiler::Profile p = profile_of(growing_loop_model(kTrips)).profile;
  const size_t parent = index_of(p, "grow");
  ASSERT_LT(parent, p.nodes.size());
  // The body's rows follow their parent's, named PARENT/body/NODE.
  for (const char* name : {"grow/body/body_relu", "grow/body/body_concat", "grow/body/body_cond"}) {
    const size_t i = index_of(p, name);
    ASSERT_LT(i, p.nodes.size()) << name;
    EXPECT_GT(i, parent) << name;
    const profiler::NodeProfile& n = p.nodes[i];
    EXPECT_EQ(n.parent, "grow");
    EXPECT_EQ(n.calls_per_iteration, std::vector<int>(kProfileIterations, int(kTrips))) << name;
    EXPECT_EQ(n.samples_ms.size(), size_t(kProfileIterations));
    EXPECT_EQ(n.call_ms.size(), size_t(kProfileIterations * kTrips));
    EXPECT_EQ(n.call_offsets_ms.size(), size_t(kProfileIterations * kTrips));
    EXPECT_GT(n.first_run_ms, 0) << name;
    const report::NodeFigures f = report::node_figures(n, {});
    EXPECT_EQ(f.calls, kProfileIterations * kTrips);
    EXPECT_EQ(report::calls_text(f), "12 (3/inf)");
  }
  EXPECT_EQ(row(p, "grow").calls_per_iteration, std::vector<int>{});  // top level: once each
  EXPECT_EQ(report::calls_text(report::node_figures(row(p, "grow"), {})), "4");
  // The body's Relu costs 4 FLOPs a call, 12 an inference.
  EXPECT_TRUE(row(p, "grow/body/body_relu").has_cost);
  EXPECT_EQ(row(p, "grow/body/body_relu").flops, 4.0 * kTrips);
}

TEST(ControlFlowProfile, ShapesThatChangeBetweenCallsAreKeptPerCallAndShownAsARange) {
  const profiler::Profile p = profile_of(growing_loop_model(kTrips)).profile;
  const profiler::NodeProfile& concat = row(p, "grow/body/body_concat");
  ASSERT_EQ(concat.shape_sets.size(), size_t(kTrips));
  EXPECT_EQ(concat.shape_sets[0].inputs,
            (std::vector<std::string>{"float32[1,4]", "float32[1,4]"}));
  EXPECT_EQ(concat.shape_sets[2].outputs, (std::vector<std::string>{"float32[4,4]"}));
  std::vector<int> expected;
  for (int i = 0; i < kProfileIterations; ++i)
    for (int k = 0; k < kTrips; ++k) expected.push_back(k);
  EXPECT_EQ(concat.call_shapes, expected);
  EXPECT_EQ(concat.input_shapes, (std::vector<std::string>{"float32[1..3,4]", "float32[1,4]"}));
  EXPECT_EQ(concat.output_shapes, (std::vector<std::string>{"float32[2..4,4]"}));
  const profiler::NodeProfile& relu = row(p, "grow/body/body_relu");
  EXPECT_EQ(relu.shape_sets.size(), 1u);
  EXPECT_EQ(relu.input_shapes, (std::vector<std::string>{"float32[1,4]"}));
}

// Per iteration: each parent's body time is what its body rows report (their own time plus their
// own bodies'), so every node's time is counted once and the rows add up to the run as before.
void expect_reconciled(const profiler::Profile& p) {
  std::map<std::string, std::vector<double>> children_ms;
  for (const profiler::NodeProfile& n : p.nodes) {
    if (n.parent.empty()) continue;
    std::vector<double>& sum = children_ms[n.parent];
    sum.resize(n.samples_ms.size());
    for (size_t i = 0; i < n.samples_ms.size(); ++i)
      sum[i] += n.samples_ms[i] + (n.body_ms.empty() ? 0 : n.body_ms[i]);
  }
  for (const auto& [parent, sums] : children_ms) {
    const profiler::NodeProfile& n = row(p, parent);
    ASSERT_EQ(n.body_ms.size(), sums.size()) << parent;
    for (size_t i = 0; i < sums.size(); ++i) {
      // Equal up to rounding clock ticks to nanoseconds (under 1 ns per event).
      EXPECT_NEAR(n.body_ms[i], sums[i], 1e-4) << parent << " iteration " << i;
      EXPECT_GE(n.samples_ms[i], 0) << parent;
    }
  }
  for (size_t i = 0; i < p.iterations_ms.size(); ++i) {
    double nodes = 0;
    for (const profiler::NodeProfile& n : p.nodes) nodes += n.samples_ms[i];
    EXPECT_LE(nodes, p.iterations_ms[i] + 1e-6) << "iteration " << i;
  }
}

TEST(ControlFlowProfile, ParentsKeepTheirOwnTimeAndTheRowsAddUp) {
  expect_reconciled(profile_of(growing_loop_model(kTrips)).profile);
  expect_reconciled(profile_of(growing_loop_model(kTrips, true)).profile);
}

TEST(ControlFlowProfile, NestedBodiesNestTheirNames) {
  const profiler::Profile p = profile_of(growing_loop_model(kTrips, true)).profile;
  EXPECT_EQ(row(p, "grow/body/gate").parent, "grow");
  EXPECT_EQ(row(p, "grow/body/gate").calls_per_iteration,
            std::vector<int>(kProfileIterations, kTrips));
  EXPECT_EQ(row(p, "grow/body/gate/then/inner_relu").parent, "grow/body/gate");
  EXPECT_EQ(row(p, "grow/body/gate/then/inner_relu").call_body_ms.size(), 0u);
  EXPECT_EQ(row(p, "grow/body/gate").call_body_ms.size(), size_t(kProfileIterations * kTrips));
  // The condition stays true: the else branch never runs, and has no row.
  EXPECT_EQ(index_of(p, "grow/body/gate/else/inner_id"), p.nodes.size());
  EXPECT_LT(index_of(p, "grow/body/gate"), index_of(p, "grow/body/gate/then/inner_relu"));
}

// Chrome trace: every call of a body node lies within an event of its parent.
TEST(ControlFlowProfile, TraceNestsBodyEventsUnderTheirParent) {
  const profiler::Profile p = profile_of(growing_loop_model(kTrips, true)).profile;
  const nlohmann::json trace = report::chrome_trace(p);
  std::map<std::string, std::vector<std::pair<double, double>>> spans;  // name → [start, end)
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "X")
      spans[e["name"].get<std::string>()].push_back(
          {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  const auto inside = [&](const std::string& child, const std::string& parent) {
    ASSERT_FALSE(spans[child].empty()) << child;
    for (const auto& [start, end] : spans[child]) {
      bool found = false;
      for (const auto& [ps, pe] : spans[parent]) found |= ps <= start && end <= pe + 1e-6;
      EXPECT_TRUE(found) << child << " at " << start << " is within no event of " << parent;
    }
  };
  EXPECT_EQ(spans["grow/body/body_concat"].size(), size_t(kProfileIterations * kTrips));
  inside("grow/body/body_concat", "grow");
  inside("grow/body/gate", "grow");
  inside("grow/body/gate/then/inner_relu", "grow/body/gate");
}

TEST(ControlFlowProfile, JsonKeepsTheControlFlowFields) {
  const profiler::Profile p = profile_of(growing_loop_model(kTrips, true)).profile;
  const profiler::Profile back = report::profile_from_json(report::profile_to_json(p));
  ASSERT_EQ(back.nodes.size(), p.nodes.size());
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    EXPECT_EQ(back.nodes[i].parent, p.nodes[i].parent);
    EXPECT_EQ(back.nodes[i].calls_per_iteration, p.nodes[i].calls_per_iteration);
    EXPECT_EQ(back.nodes[i].call_shapes, p.nodes[i].call_shapes);
    EXPECT_EQ(back.nodes[i].shape_sets, p.nodes[i].shape_sets);
    EXPECT_EQ(back.nodes[i].body_ms.size(), p.nodes[i].body_ms.size());
    EXPECT_EQ(back.nodes[i].call_ms.size(), p.nodes[i].call_ms.size());
  }
  // A call refers to a shape set that is not there: the file is refused naming the field.
  nlohmann::json j = report::profile_to_json(p);
  for (nlohmann::json& n : j["nodes"])
    if (n.contains("call_shapes")) n["call_shapes"][0] = 99;
  EXPECT_THROW(
      {
        try {
          report::profile_from_json(j);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("call_shapes"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace strata::test
