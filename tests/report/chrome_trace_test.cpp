// The Chrome trace: complete events per node per iteration inside their iteration, with the
// node's shapes, kernel and cost; user scopes on the profile's clock; thread and process names.
#include "report/chrome_trace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "profiler/profile_session.h"
#include "profiler/profiler_test_model.h"

namespace strata::test {
namespace {

using nlohmann::json;

std::vector<json> events_of(const json& trace, const std::string& phase,
                            const std::string& category = "") {
  std::vector<json> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.at("ph") == phase && (category.empty() || e.value("cat", "") == category))
      out.push_back(e);
  return out;
}

TEST(ChromeTrace, OneEventPerNodePerIterationInsideItsIteration) {
  ProfilerTestSession t;
  profiler::ProfileRunOptions options;
  options.iterations = 3;
  profiler::Profile p = profiler::profile_session(t.session, t.inputs, options);
  p.model = "profiled.onnx";
  const json trace = report::chrome_trace(p);

  const std::vector<json> iterations = events_of(trace, "X", "iteration");
  ASSERT_EQ(iterations.size(), 3u);
  std::map<std::string, int> per_node;
  for (const json& e : events_of(trace, "X")) {
    if (e.at("cat") == "iteration") continue;
    per_node[e.at("name")]++;
    const json& args = e.at("args");
    const int i = args.at("iteration").get<int>() - 1;
    ASSERT_GE(i, 0);
    ASSERT_LT(i, 3);
    const double ts = e.at("ts"), dur = e.at("dur");
    const double it_ts = iterations[size_t(i)].at("ts"), it_dur = iterations[size_t(i)].at("dur");
    EXPECT_GE(ts, it_ts - 1e-6);
    EXPECT_LE(ts + dur, it_ts + it_dur + 1e-6);
    EXPECT_EQ(e.at("tid"), iterations[size_t(i)].at("tid"));
    EXPECT_TRUE(args.contains("kernel"));
    EXPECT_TRUE(args.contains("inputs"));
    EXPECT_TRUE(args.contains("outputs"));
    if (e.at("name") == "matmul") {
      EXPECT_EQ(e.at("cat"), "MatMul");
      EXPECT_EQ(args.at("macs"), 12);
      EXPECT_EQ(args.at("flops"), 24);
      EXPECT_EQ(args.at("inputs"), json({"float32[2,3]", "float32[3,2]"}));
      EXPECT_TRUE(args.contains("bytes_read"));
      EXPECT_TRUE(args.contains("bytes_written"));
    }
  }
  EXPECT_EQ(per_node, (std::map<std::string, int>{{"matmul", 3}, {"relu", 3}, {"reshape", 3}}));

  const std::vector<json> names = events_of(trace, "M");
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0].at("name"), "process_name");
  EXPECT_EQ(names[0].at("args").at("name"), "strata profile: profiled.onnx");
  EXPECT_EQ(names[1].at("name"), "thread_name");
  EXPECT_EQ(names[1].at("tid"), p.nodes[0].thread);
}

TEST(ChromeTrace, ScopesUseTheProfileClockOnTheirThread) {
  profiler::Profile p;
  profiler::NodeProfile scope;
  scope.name = "preprocess/resize";
  scope.op_type = "scope";
  scope.thread = 77;
  scope.samples_ms = {0.5, 0.25};
  scope.start_offsets_ms = {1.0, 3.0};
  p.nodes.push_back(scope);
  const json trace = report::chrome_trace(p);
  const std::vector<json> events = events_of(trace, "X", "scope");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].at("name"), "preprocess/resize");
  EXPECT_DOUBLE_EQ(events[0].at("ts").get<double>(), 1000);
  EXPECT_DOUBLE_EQ(events[0].at("dur").get<double>(), 500);
  EXPECT_DOUBLE_EQ(events[1].at("ts").get<double>(), 3000);
  EXPECT_EQ(events[1].at("tid"), 77);
  bool named = false;
  for (const json& e : events_of(trace, "M"))
    named |= e.at("name") == "thread_name" && e.value("tid", -1) == 77;
  EXPECT_TRUE(named);
}

TEST(ChromeTrace, WritesParsableFileAndFailsOnBadPath) {
  profiler::Profile p;
  TempDir dir;
  const std::string path = dir.path("trace.json");
  report::write_chrome_trace(p, path);
  std::ifstream in(path);
  const json parsed = json::parse(in);
  EXPECT_TRUE(parsed.at("traceEvents").is_array());
  EXPECT_THROW(report::write_chrome_trace(p, dir.path("missing/dir/trace.json")), Error);
}

}  // namespace
}  // namespace strata::test
