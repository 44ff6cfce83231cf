// The HTML report's page and data: the tables are the text views' cells, the charts' figures come
// from the report layer, and no node name can break out of the inline data.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "report/node_figures.h"
#include "report/profile_json.h"
#include "report/views.h"
#include "testutil/test_files.h"

namespace strata::report {
namespace {

using nlohmann::json;

using test::kReportDataDir;

// The data blob of a page, parsed back.
json page_data(const std::string& page) {
  const std::string open = "<script id=\"strata-data\" type=\"application/json\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  return json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, NodeNamesCannotEndTheScript) {
  profiler::Profile p = read_profile(kReportDataDir + "small_profile.json");
  p.nodes[0].name = "</script><script>alert(1)</script><!--";
  const std::string page = html_page("t </title>", profile_page_data(p));
  EXPECT_EQ(count(page, "</script>"), 2u);  // the data's and the code's own
  EXPECT_EQ(count(page, "<!--"), 0u);
  EXPECT_NE(page.find("<title>t &lt;/title&gt;</title>"), std::string::npos);
  const json data = page_data(page);
  bool found = false;
  for (const json& row : data["nodes"]["rows"]) found |= row[1] == p.nodes[0].name;
  EXPECT_TRUE(found);
}

TEST(HtmlReport, ProfileTablesAreTheTextViewsCells) {
  const profiler::Profile p = read_profile(kReportDataDir + "small_profile.json");
  const json data = profile_page_data(p);
  ViewOptions all;
  all.top = 0;
  std::string title;
  const Table nodes = node_table(p, all, &title);
  EXPECT_EQ(data["nodes"]["rows"], json(nodes.cells()));
  EXPECT_EQ(data["nodes"]["title"], title);
  EXPECT_EQ(data["nodes"]["rows"].size(), p.nodes.size());
  EXPECT_EQ(data["types"]["rows"], json(type_table(p, all, &title).cells()));
  // The summary block, line by line.
  EXPECT_EQ(data["summary"][0][0], "model");
  const std::string summary = render_summary(p);
  EXPECT_EQ(data["summary"].size(), size_t(std::count(summary.begin(), summary.end(), '\n')));
}

TEST(HtmlReport, ChartsCarryTheProfilesFigures) {
  profiler::Profile p = read_profile(kReportDataDir + "small_profile.json");
  for (size_t i = 0; i < p.nodes.size(); ++i) p.nodes[i].arena_live_bytes = int64_t(100 * (i % 3));
  p.nodes[4].arena_live_bytes = 5000;
  // Where each node started in each iteration (the file has no trace figures).
  p.iteration_starts_ms.clear();
  for (size_t i = 0; i < p.iterations_ms.size(); ++i) p.iteration_starts_ms.push_back(20.0 * i);
  for (profiler::NodeProfile& n : p.nodes)
    if (!is_user_scope(n)) n.start_offsets_ms.assign(n.samples_ms.size(), 0.5);
  p.machine.peak_gflops = 100;
  p.machine.peak_gbps = 20;
  const json data = profile_page_data(p);
  EXPECT_EQ(data["memory"]["peak"], 5000);
  EXPECT_EQ(data["memory"]["names"][data["memory"]["peak_step"].get<size_t>()], p.nodes[4].name);
  EXPECT_EQ(data["roofline"]["peak_gflops"], 100);
  size_t with_cost = 0;
  for (const profiler::NodeProfile& n : p.nodes) with_cost += n.has_cost && n.flops > 0;
  EXPECT_EQ(data["roofline"]["points"].size(), with_cost);
  // Latency: every iteration in the histogram, outliers past the stability rule's threshold.
  size_t binned = 0;
  for (const json& c : data["latency"]["histogram"]["counts"]) binned += c.get<size_t>();
  EXPECT_EQ(binned, p.iterations_ms.size());
  const double above = data["latency"]["outlier_above"];
  for (const json& i : data["latency"]["outliers"])
    EXPECT_GT(p.iterations_ms[i.get<size_t>()], above);
  // The timeline is one iteration: a bar per graph node.
  size_t graph_nodes = 0;
  for (const profiler::NodeProfile& n : p.nodes) graph_nodes += !is_user_scope(n);
  EXPECT_EQ(data["timeline"]["events"].size(), graph_nodes);
  // The scope tree's top rows add up to the nodes' total time.
  double top = 0, nodes = 0;
  for (const json& r : data["scopes"])
    if (r["parent"] == -1) top += r["value"].get<double>();
  for (const profiler::NodeProfile& n : p.nodes)
    for (double s : n.samples_ms) nodes += is_user_scope(n) ? 0 : s;
  EXPECT_NEAR(top, nodes, 1e-9 * nodes);
}

TEST(HtmlReport, DiffCarriesIntervalsLargestChangeFirst) {
  const profiler::Profile a = read_profile(kReportDataDir + "small_profile.json");
  const profiler::Profile b = read_profile(kReportDataDir + "small_profile_b.json");
  const ProfileDiff d = diff_profiles(a, b);
  const json data = diff_page_data(d, "a.json", "b.json");
  ASSERT_EQ(data["nodes"].size(), d.nodes.size());
  double previous = 1e300;
  for (const json& n : data["nodes"]) {
    const double delta = std::fabs(n["median_b"].get<double>() - n["median_a"].get<double>());
    EXPECT_LE(delta, previous);
    previous = delta;
    if (n["in_a"] && n["in_b"] && n["verdict"] != "too few samples") {
      EXPECT_LE(n["low"].get<double>(), n["high"].get<double>());
    }
  }
  EXPECT_EQ(data["whole"]["ratio"], d.whole.ratio);
}

}  // namespace
}  // namespace strata::report
