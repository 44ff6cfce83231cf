// Golden tables: every view of the hand-made profile tests/report/data/small_profile.json, compared
// with the files in tests/report/data/golden/. After a deliberate change of the tables, regenerate
// them with STRATA_UPDATE_GOLDEN=1 and review the difference before committing it.
#include "report/views.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "report/diff.h"
#include "report/profile_json.h"
#include "testutil/expect_error.h"
#include "testutil/test_files.h"

namespace strata::report {
namespace {

using test::kReportDataDir;

const profiler::Profile& small_profile() {
  static const profiler::Profile p = read_profile(kReportDataDir + "small_profile.json");
  return p;
}

void expect_golden(const std::string& text, const std::string& name) {
  const std::string path = kReportDataDir + "golden/" + name;
  if (std::getenv("STRATA_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << text;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run with STRATA_UPDATE_GOLDEN=1 to create it";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "golden file " << path;
}

ViewOptions all_rows() {
  ViewOptions o;
  o.top = 0;
  return o;
}

TEST(Views, DefaultReportIsSummaryNodesAndTypes) {
  expect_golden(render_views(small_profile(), ViewOptions{}), "report_default.txt");
}

TEST(Views, ScopeTree) {
  expect_golden(render_scope_tree(small_profile(), ViewOptions{}), "scopes.txt");
  ViewOptions o;
  o.depth = 2;
  o.order_by = OrderBy::kFlops;
  expect_golden(render_scope_tree(small_profile(), o), "scopes_depth2_by_flops.txt");
}

TEST(Views, EveryOrderOfTheNodeTable) {
  for (OrderBy order : {OrderBy::kTime, OrderBy::kFlops, OrderBy::kBytes, OrderBy::kGflops,
                        OrderBy::kBandwidth, OrderBy::kAllocs}) {
    ViewOptions o = all_rows();
    o.order_by = order;
    expect_golden(
        render_node_table(small_profile(), o) + "\n" + render_type_table(small_profile(), o),
        std::string("order_by_") + order_by_name(order) + ".txt");
  }
}

TEST(Views, TopKAndFilters) {
  ViewOptions top;
  top.top = 3;
  expect_golden(render_node_table(small_profile(), top), "nodes_top3.txt");
  ViewOptions filtered = all_rows();
  filtered.types = {"Conv", "Relu"};
  filtered.min_time_ms = 0.5;
  filtered.name_regex = "^/(conv1|relu|layer1)";
  expect_golden(render_views(small_profile(),
                             [&] {
                               ViewOptions o = filtered;
                               o.views = {View::kNodes, View::kTypes, View::kScopes};
                               return o;
                             }()),
                "filtered_conv_relu.txt");
}

TEST(Views, WinogradNodesAboveThePeakAreANoteNotAWarning) {
  profiler::Profile p = small_profile();
  p.machine.peak_gflops = 0.5;  // below what /layer1/layer1.0/conv1/Conv achieved (1.55 GFLOP/s)
  for (profiler::NodeProfile& n : p.nodes)
    if (n.name == "/layer1/layer1.0/conv1/Conv") n.kernel = "onednn:jit_wino_4x3:avx512_core";
  const std::string summary = render_summary(p);
  EXPECT_EQ(summary.find("ran above the measured FLOP/s peak"), std::string::npos) << summary;
  EXPECT_NE(summary.find("note        1 node ran above the FLOP/s peak: Winograd convolutions"),
            std::string::npos)
      << summary;
}

TEST(Views, FiltersSelectTheRightNodes) {
  ViewOptions o;
  o.types = {"Relu"};
  EXPECT_EQ(select_nodes(small_profile(), o), (std::vector<size_t>{1, 3}));
  o = {};
  o.min_time_ms = 1.0;  // medians 4.0, 3.05, 1.0
  EXPECT_EQ(select_nodes(small_profile(), o), (std::vector<size_t>{0, 2, 6}));
  o = {};
  o.name_regex = "layer1\\.0";
  EXPECT_EQ(select_nodes(small_profile(), o), (std::vector<size_t>{2, 3}));
  o.name_regex = "(unclosed";
  test::expect_error([&] { select_nodes(small_profile(), o); },
                     {"--name '(unclosed' is not a valid regular expression"});
}

TEST(Views, SummaryWarnsAndSaysWhatIsUnknown) {
  profiler::Profile p = small_profile();
  p.machine.peak_gflops = 0.5;  // below what /layer1/layer1.0/conv1/Conv achieved (1.55 GFLOP/s)
  p.process_cpu_pct = -1;
  p.system_cpu_pct = -1;
  p.heap_counted = false;
  p.overhead_pct = 3.5;
  const std::string summary = render_summary(p);
  EXPECT_NE(summary.find("warning     1 compute-bound node ran above the measured FLOP/s peak"),
            std::string::npos)
      << summary;
  p.machine.peak_gbps = 0.1;  // below Gemm's, Add's and both Relus' achieved GB/s
  EXPECT_NE(render_summary(p).find("note        4 memory-bound nodes moved data faster than the "
                                   "measured memory bandwidth"),
            std::string::npos)
      << render_summary(p);
  EXPECT_NE(summary.find("warning     the profiling overhead (3.5%) is above 2%"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("cpu         process unknown, system unknown"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("heap allocations not counted"), std::string::npos) << summary;
  const std::string table = render_node_table(p, ViewOptions{});
  EXPECT_EQ(table.find("4.0 KiB"), std::string::npos) << table;  // Gemm's alloc bytes: now "-"
  p.machine = {};
  EXPECT_NE(render_summary(p).find("peaks unknown (no roofline)"), std::string::npos);
}

TEST(Views, SummaryNamesSamplesFarAboveTheirNodesMedian) {
  profiler::Profile p = small_profile();
  EXPECT_EQ(render_summary(p).find("their node's median"), std::string::npos);
  p.nodes[0].samples_ms[2] = 45.0;  // a preempted execution of a 4 ms node
  p.nodes[1].samples_ms[0] = 40.0;  // and two of a 0.5 ms node
  p.nodes[1].samples_ms[4] = 31.0;
  const std::string summary = render_summary(p);
  EXPECT_NE(summary.find("warning     3 samples of 2 nodes took over 10x their node's median"),
            std::string::npos)
      << summary;
  // 200x its median, but only 0.2 ms longer: a cache miss or a page fault, not a lost time slice.
  p.nodes[0].samples_ms[2] = 4.0;
  p.nodes[1].samples_ms.assign(p.nodes[1].samples_ms.size(), 0.001);
  p.nodes[1].samples_ms[3] = 0.2;
  EXPECT_EQ(render_summary(p).find("their node's median"), std::string::npos) << render_summary(p);
}

TEST(Views, DiffOfTheSmallProfiles) {
  const profiler::Profile b = read_profile(kReportDataDir + "small_profile_b.json");
  const ProfileDiff d = diff_profiles(small_profile(), b);
  expect_golden(render_diff(d, "a.json", "b.json", ViewOptions{}), "diff.txt");
  ViewOptions conv;
  conv.types = {"Conv"};
  expect_golden(render_diff(d, "a.json", "b.json", conv), "diff_conv.txt");
}

}  // namespace
}  // namespace strata::report
