// The HTML reports of `strata profile/report/analyze/diff --html`, rendered in a real browser:
// headless chromium dumps the DOM after the page's script ran, and the tests check that it ran
// without an error and drew the top nodes, the charts and the tables. Without chromium
// (apt-get install chromium) the browser tests skip and say so; the rest still runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

using nlohmann::json;

std::string chromium_path() {
  if (const char* env = std::getenv("STRATA_CHROMIUM")) return env;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

#define REQUIRE_CHROMIUM()                                                          \
  if (chromium_path().empty())                                                      \
  GTEST_SKIP() << "chromium is not installed (apt-get install chromium): the HTML " \
                  "report is not checked in a browser"

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The DOM after the page's script ran (a virtual-time budget lets it finish, no network).
std::string rendered_dom(const TempDir& dir, const std::string& page) {
  std::string command = shell_quote(chromium_path()) +
                        " --headless --no-sandbox --disable-gpu --no-first-run"
                        " --disable-extensions --virtual-time-budget=3000 --user-data-dir=" +
                        shell_quote(dir.path("chromium-profile")) + " --dump-dom " +
                        shell_quote("file://" + page) + " >" + shell_quote(dir.path("dom.html")) +
                        " 2>" + shell_quote(dir.path("chromium.log"));
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << read_text(dir.path("chromium.log"));
  return read_text(dir.path("dom.html"));
}

// Rendered without a script error, as the page kind.
void expect_rendered(const std::string& dom, const std::string& kind) {
  EXPECT_EQ(dom.find("id=\"strata-error\""), std::string::npos)
      << dom.substr(0, std::min<size_t>(dom.size(), 3000));
  EXPECT_NE(dom.find("data-rendered=\"" + kind + "\""), std::string::npos)
      << dom.substr(0, std::min<size_t>(dom.size(), 3000));
}

// Nothing loaded from elsewhere: no external scripts, styles, images or fetches.
void expect_self_contained(const std::string& page) {
  for (const char* ref :
       {"<script src", "<link", "<img", "@import", "url(", "fetch(", "XMLHttpRequest", "https://"})
    EXPECT_EQ(page.find(ref), std::string::npos) << ref;
  EXPECT_EQ(count(page, "http://"), count(page, "http://www.w3.org/2000/svg")) << "a URL";
}

// The node with the largest total time in a profile file.
std::string top_node(const std::string& profile_path) {
  const json p = json::parse(read_text(profile_path));
  std::string name;
  double best = -1;
  for (const json& n : p["nodes"]) {
    double total = 0;  // the samples' sum (hand-written profiles have no derived fields)
    for (const json& s : n["samples_ms"]) total += s.get<double>();
    if (total > best) {
      best = total;
      name = n["name"].get<std::string>();
    }
  }
  return name;
}

TEST(HtmlReportCli, ProfilePageRendersEveryView) {
  TempDir dir;
  const std::string page = dir.path("profile.html"), saved = dir.path("profile.json");
  const CliResult r =
      run_strata(dir, {"profile", kExampleModel, "-i", kExampleDir + "/pattern.ppm", "--iter", "12",
                       "--warmup", "1", "--no-roofline", "-o", saved, "--html", page});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("report written to " + page), std::string::npos) << describe(r);
  const std::string html = read_text(page);
  expect_self_contained(html);
  REQUIRE_CHROMIUM();
  const std::string dom = rendered_dom(dir, page);
  expect_rendered(dom, "profile");
  for (const char* id :
       {"summary", "nodes", "types", "scopes", "timeline", "roofline", "memory", "predicted"})
    EXPECT_NE(dom.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_NE(dom.find("<td class=\"left\">" + top_node(saved) + "</td>"), std::string::npos)
      << "top node " << top_node(saved);
  EXPECT_GE(count(dom, "<svg"), 7u);
  EXPECT_GE(count(dom, "<table"), 3u);
  EXPECT_GE(count(dom, "class=\"bar\""), 5u);     // histogram and op types
  EXPECT_GE(count(dom, "class=\"event\""), 10u);  // the timeline
  EXPECT_GE(count(dom, "class=\"point\""), 5u);   // the roofline
  EXPECT_EQ(count(dom, "class=\"peak\""), 1u);    // memory across the run
  EXPECT_GE(count(dom, "class=\"scope\""), 5u);   // the icicle
  EXPECT_NE(dom.find("class=\"live\""), std::string::npos);
}

TEST(HtmlReportCli, ReportAndDiffPagesRender) {
  TempDir dir;
  const std::string report_page = dir.path("report.html"), diff_page = dir.path("diff.html");
  CliResult r = run_strata(dir, {"report", kSmallProfile, "--html", report_page});
  ASSERT_EQ(r.code, 0) << describe(r);
  r = run_strata(dir, {"diff", kSmallProfile, kSmallProfileB, "--html", diff_page});
  ASSERT_EQ(r.code, 0) << describe(r);
  expect_self_contained(read_text(report_page));
  expect_self_contained(read_text(diff_page));
  REQUIRE_CHROMIUM();
  const std::string report_dom = rendered_dom(dir, report_page);
  expect_rendered(report_dom, "profile");
  EXPECT_NE(report_dom.find("<td class=\"left\">" + top_node(kSmallProfile) + "</td>"),
            std::string::npos);
  // A profile from before per-step arena figures: the memory view says so instead of a chart.
  EXPECT_NE(report_dom.find("no per-step arena figures"), std::string::npos);

  const std::string diff_dom = rendered_dom(dir, diff_page);
  expect_rendered(diff_dom, "diff");
  EXPECT_GE(count(diff_dom, "class=\"ci\""), 5u);  // a confidence interval per node
  EXPECT_NE(diff_dom.find("95% CI"), std::string::npos);
  EXPECT_GE(count(diff_dom, "<table"), 2u);
}

TEST(HtmlReportCli, AnalyzePageShowsCostsMemoryAndFormulas) {
  TempDir dir;
  const std::string sized = dir.path("analyze.html"), symbolic = dir.path("symbolic.html");
  CliResult r = run_strata(dir, {"analyze", kExampleModel, "--html", sized});
  ASSERT_EQ(r.code, 0) << describe(r);
  ModelBuilder m;  // y = x[N,64] · W[64,32]: FLOPs are a formula in N
  m.add_input("x", DType::kF32, {"N", 64});
  m.add_initializer("W", Tensor::zeros(DType::kF32, {64, 32}));
  m.add_node("MatMul", {"x", "W"}, {"y"}, "/block/proj/MatMul");
  m.add_output("y");
  r = run_strata(dir, {"analyze", m.save(dir.path("matmul.onnx")), "--html", symbolic});
  ASSERT_EQ(r.code, 0) << describe(r);
  expect_self_contained(read_text(sized));
  REQUIRE_CHROMIUM();
  const std::string dom = rendered_dom(dir, sized);
  expect_rendered(dom, "analysis");
  EXPECT_GE(count(dom, "class=\"bar\""), 3u);    // costs by type
  EXPECT_GE(count(dom, "class=\"scope\""), 3u);  // by scope
  EXPECT_EQ(count(dom, "class=\"peak\""), 1u);   // memory over the graph
  EXPECT_GE(count(dom, "<table"), 3u);
  const std::string formulas = rendered_dom(dir, symbolic);
  expect_rendered(formulas, "analysis");
  EXPECT_NE(formulas.find("4096·N"), std::string::npos);  // 2 FLOPs per MAC
}

TEST(HtmlReportCli, AScriptErrorLeavesAMarker) {
  // The check above must be able to fail: a page whose data the script cannot read.
  TempDir dir;
  const std::string page = dir.path("report.html");
  ASSERT_EQ(run_strata(dir, {"report", kSmallProfile, "--html", page}).code, 0);
  std::string html = read_text(page);
  const size_t end = html.find("}</script>");  // the end of the data: a later key wins
  ASSERT_NE(end, std::string::npos);
  html.insert(end, ",\"latency\":null");
  std::ofstream(page, std::ios::trunc) << html;
  REQUIRE_CHROMIUM();
  const std::string dom = rendered_dom(dir, page);
  EXPECT_NE(dom.find("id=\"strata-error\""), std::string::npos) << dom.substr(0, 2000);
}

TEST(HtmlReportCli, UnwritablePathIsBadInput) {
  TempDir dir;
  const std::string page = dir.path("missing/dir/report.html");
  expect_bad_input(run_strata(dir, {"report", kSmallProfile, "--html", page}), {page});
  expect_bad_input(run_strata(dir, {"diff", kSmallProfile, kSmallProfileB, "--html", page}),
                   {page});
  expect_bad_input(run_strata(dir, {"analyze", kExampleModel, "--html", page}), {page});
}

}  // namespace
}  // namespace strata::test
