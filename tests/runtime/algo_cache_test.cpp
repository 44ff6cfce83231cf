// The algo cache (src/runtime/algo_cache.cpp) through the session: fast-run's choices are saved,
// reused on the next prepare, and a cache made elsewhere, corrupt or naming a gone implementation
// is ignored with a warning, never trusted.
#include "runtime/algo_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kernels/kernel_test_util.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using nlohmann::json;

ir::Graph conv_relu_graph() {
  std::mt19937 rng(31);
  GraphBuilder g;
  g.input("x", {1, 8, 12, 12});
  g.constant("w", random_tensor(rng, {8, 8, 3, 3}));
  ir::Node& conv = g.node("Conv", {"x", "w"}, {"c"});
  conv.attributes["pads"] = attr_ints({1, 1, 1, 1});
  g.node("Relu", {"c"}, {"y"});
  g.output("y");
  return g.build();
}

struct Prepared {
  std::vector<runtime::StepInfo> steps;
  std::vector<std::string> warnings;
  Tensor output;
};

Prepared prepare(const ir::Graph& graph, const std::string& cache_path, bool fast_run) {
  Prepared p;
  runtime::SessionOptions options;
  options.fast_run = fast_run;
  options.layout = kernels::LayoutPolicy::kChannelsLast;
  options.algo_cache = std::make_shared<runtime::AlgoCache>(
      cache_path, [&](const std::string& w) { p.warnings.push_back(w); });
  std::mt19937 rng(8);
  const Tensor x = random_tensor(rng, {1, 8, 12, 12});
  const SessionResult r = run_session(graph, {x}, options);
  p.steps = r.steps;
  p.output = r.outputs.at(0);
  return p;
}

json read(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void write(const std::string& path, const json& j) {
  std::ofstream(path) << j.dump(2);
}

TEST(AlgoCache, FastRunChoicesAreSavedAndReused) {
  TempDir dir;
  const std::string path = dir.path("algo.json");
  const ir::Graph graph = conv_relu_graph();
  const Prepared first = prepare(graph, path, true);
  EXPECT_TRUE(first.warnings.empty());
  ASSERT_TRUE(std::filesystem::exists(path));
  ASSERT_GE(first.steps.size(), 1u);
  EXPECT_EQ(first.steps[0].reason.rfind("fast-run: ", 0), 0u) << first.steps[0].reason;
  const json saved = read(path);
  EXPECT_EQ(saved["format"], "strata-algo-cache");
  EXPECT_EQ(saved["environment"]["cpu"], runtime::AlgoCache::environment()["cpu"]);
  EXPECT_EQ(saved["entries"].size(), first.steps.size());

  const Prepared second = prepare(graph, path, false);
  EXPECT_TRUE(second.warnings.empty());
  for (size_t s = 0; s < second.steps.size(); ++s) {
    EXPECT_EQ(second.steps[s].kernel, first.steps[s].kernel);
    EXPECT_EQ(second.steps[s].reason.rfind("algo cache " + path, 0), 0u) << second.steps[s].reason;
  }
  EXPECT_TRUE(runtime::compare(second.output, first.output, {1e-5, 1e-5}).ok);
}

// Fills `path` by a fast-run of `graph`, then makes it look timed on another CPU; returns it.
json foreign_cache(const ir::Graph& graph, const std::string& path) {
  prepare(graph, path, true);
  json foreign = read(path);
  foreign["environment"]["cpu"] = "Imaginary CPU 9000";
  write(path, foreign);
  return foreign;
}

TEST(AlgoCache, ACacheFromAnotherMachineIsIgnoredAndReplaced) {
  TempDir dir;
  const std::string path = dir.path("algo.json");
  const ir::Graph graph = conv_relu_graph();
  foreign_cache(graph, path);
  const Prepared p = prepare(graph, path, true);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("cpu Imaginary CPU 9000 (here "), std::string::npos)
      << p.warnings[0];
  for (const runtime::StepInfo& s : p.steps)
    EXPECT_EQ(s.reason.find("algo cache"), std::string::npos) << s.reason;
  EXPECT_EQ(read(path)["environment"]["cpu"], runtime::AlgoCache::environment()["cpu"]);
}

TEST(AlgoCache, ACacheFromAnotherMachineIsKeptWhenNothingIsTimed) {
  TempDir dir;
  const std::string path = dir.path("algo.json");
  const ir::Graph graph = conv_relu_graph();
  const json foreign = foreign_cache(graph, path);
  const Prepared p = prepare(graph, path, false);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("replaced when --fast-run times new ones"), std::string::npos)
      << p.warnings[0];
  EXPECT_EQ(read(path), foreign) << "without fast-run there is nothing to write in its place";
}

TEST(AlgoCache, AnEntryNamingAnotherImplementationIsNotTrusted) {
  TempDir dir;
  const std::string path = dir.path("algo.json");
  const ir::Graph graph = conv_relu_graph();
  const Prepared first = prepare(graph, path, true);
  json stale = read(path);
  for (auto& [key, entry] : stale["entries"].items()) entry["kernel"] = "onednn:imaginary:avx9";
  write(path, stale);
  const Prepared p = prepare(graph, path, false);
  ASSERT_EQ(p.warnings.size(), first.steps.size());
  EXPECT_NE(p.warnings[0].find("chose onednn:imaginary:avx9"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("using the default kernel"), std::string::npos) << p.warnings[0];
  for (size_t s = 0; s < p.steps.size(); ++s)
    EXPECT_EQ(p.steps[s].reason.find("algo cache"), std::string::npos) << p.steps[s].reason;
  EXPECT_TRUE(read(path)["entries"].empty()) << "stale entries are dropped from the file";
}

TEST(AlgoCache, ACorruptFileIsIgnoredWithAWarning) {
  TempDir dir;
  const std::string path = dir.path("algo.json");
  std::ofstream(path) << "{ not json";
  const Prepared p = prepare(conv_relu_graph(), path, false);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("the algo cache is not valid JSON"), std::string::npos)
      << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("replaced when --fast-run times new choices"), std::string::npos)
      << p.warnings[0];
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{ not json")
      << "without fast-run nothing replaces it";
}

TEST(AlgoCache, KeysTellConfigurationsApart) {
  const ir::Graph graph = conv_relu_graph();
  const std::unique_ptr<ops::Op> op = passes::make_op(graph, graph.nodes[0]);
  std::vector<ops::Meta> metas;
  for (const ir::Value& v : graph.values) metas.push_back({v.dtype, v.shape, v.constant});
  auto key = [&](int threads, kernels::LayoutPolicy policy, Layout x_layout) {
    kernels::NodeRequest r{graph, graph.nodes[0], *op, {}, {}, {}, {}, policy, threads};
    for (ir::ValueId id : graph.nodes[0].inputs) {
      r.inputs.push_back(&metas[size_t(id)]);
      r.input_layouts.push_back(r.input_layouts.empty() ? x_layout : Layout::kPlain);
    }
    r.outputs.push_back(&metas[size_t(graph.nodes[0].outputs[0])]);
    r.output_needs_plain.push_back(false);
    return runtime::algo_key(r);
  };
  const std::string base = key(1, kernels::LayoutPolicy::kBlocked, Layout::kPlain);
  EXPECT_EQ(base, key(1, kernels::LayoutPolicy::kBlocked, Layout::kPlain));
  EXPECT_NE(base, key(2, kernels::LayoutPolicy::kBlocked, Layout::kPlain));
  EXPECT_NE(base, key(1, kernels::LayoutPolicy::kChannelsLast, Layout::kPlain));
  EXPECT_NE(base, key(1, kernels::LayoutPolicy::kBlocked, Layout::kBlocked16));
  EXPECT_NE(base.find("Conv("), std::string::npos) << base;
  EXPECT_NE(base.find("pads=[1,1,1,1]"), std::string::npos) << base;
  EXPECT_NE(base.find("float32[1,8,12,12]"), std::string::npos) << base;
}

}  // namespace
}  // namespace strata::test
