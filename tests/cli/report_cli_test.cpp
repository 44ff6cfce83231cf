// The real `strata report`, `strata diff` and `strata machine` binaries: outputs, options, caches
// and bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "report/diff.h"
#include "report/profile_json.h"
#include "report/views.h"
#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

TEST(ReportCli, DefaultViewsMatchTheLibrary) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"report", kSmallProfile});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(r.out, report::render_views(report::read_profile(kSmallProfile), {}));
  EXPECT_EQ(r.err, "");
}

TEST(ReportCli, ViewOptionsReachTheViews) {
  TempDir dir;
  const CliResult r = run_strata(
      dir, {"report", kSmallProfile, "--by", "node,scope", "--order-by", "flops", "--type",
            "Conv,Relu", "--min-time", "0.45", "--name", "layer1", "--depth", "2", "--top", "1"});
  ASSERT_EQ(r.code, 0) << describe(r);
  report::ViewOptions o;
  o.views = {report::View::kNodes, report::View::kScopes};
  o.order_by = report::OrderBy::kFlops;
  o.types = {"Conv", "Relu"};
  o.min_time_ms = 0.45;
  o.name_regex = "layer1";
  o.depth = 2;
  o.top = 1;
  EXPECT_EQ(r.out, report::render_views(report::read_profile(kSmallProfile), o));
  EXPECT_NE(r.out.find("nodes by flops: 1 of 1 node selected of 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/layer1/layer1.0/conv1/Conv"), std::string::npos) << r.out;

  const CliResult all =
      run_strata(dir, {"report", kSmallProfile, "--by", "all", "--order", "allocs"});
  ASSERT_EQ(all.code, 0) << describe(all);
  EXPECT_NE(all.out.find("scopes by allocs"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("op types by allocs"), std::string::npos) << all.out;
}

TEST(ReportCli, BadProfilesAndOptionsExitTwo) {
  TempDir dir;
  expect_bad_input(run_strata(dir, {"report", dir.path("none.json")}),
                   {"none.json", "cannot open"});
  const std::string text = dir.write("text.json", "hello");
  expect_bad_input(run_strata(dir, {"report", text}), {"text.json", "not a JSON file"});
  nlohmann::json j = nlohmann::json::parse(read_text(kSmallProfile));
  j["schema_version"] = 99;
  const std::string future = dir.write("future.json", j.dump());
  expect_bad_input(run_strata(dir, {"report", future}),
                   {"future.json", "schema_version 99 is newer than this strata reads"});
  j = nlohmann::json::parse(read_text(kSmallProfile));
  j["nodes"][6]["op_type"] = 5;
  const std::string mistyped = dir.write("mistyped.json", j.dump());
  expect_bad_input(run_strata(dir, {"report", mistyped}),
                   {"mistyped.json", "field 'nodes[6].op_type' should be a string, not a number"});
  expect_bad_input(run_strata(dir, {"report", kSmallProfile, "--order-by", "speed"}), {"speed"});
  expect_bad_input(run_strata(dir, {"report", kSmallProfile, "--by", "tree"}), {"tree"});
  expect_bad_input(run_strata(dir, {"report", kSmallProfile, "--name", "(x"}),
                   {"--name '(x' is not a valid regular expression"});
  expect_bad_input(run_strata(dir, {"report", kSmallProfile, "--min-time", "-1"}), {"--min-time"});
  expect_bad_input(run_strata(dir, {"report"}), {"profile"});
}

TEST(DiffCli, VerdictsMatchTheLibrary) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"diff", kSmallProfile, kSmallProfileB});
  ASSERT_EQ(r.code, 0) << describe(r);
  const report::ProfileDiff d = report::diff_profiles(report::read_profile(kSmallProfile),
                                                      report::read_profile(kSmallProfileB));
  EXPECT_EQ(r.out, report::render_diff(d, kSmallProfile, kSmallProfileB, {}));
  EXPECT_NE(line_starting(r.out, "whole run").find("faster"), std::string::npos) << r.out;

  const CliResult conv =
      run_strata(dir, {"diff", kSmallProfile, kSmallProfileB, "--type", "Conv", "--top", "1",
                       "--confidence", "0.99", "--resamples", "500", "--min-change", "5"});
  ASSERT_EQ(conv.code, 0) << describe(conv);
  report::ViewOptions o;
  o.types = {"Conv"};
  o.top = 1;
  EXPECT_EQ(conv.out,
            report::render_diff(report::diff_profiles(report::read_profile(kSmallProfile),
                                                      report::read_profile(kSmallProfileB),
                                                      {0.99, 500, 0x5EED, 0.05}),
                                kSmallProfile, kSmallProfileB, o));
  EXPECT_NE(conv.out.find("99% CI"), std::string::npos) << conv.out;
  EXPECT_NE(conv.out.find("beyond ±5.0%"), std::string::npos) << conv.out;
}

TEST(DiffCli, BadInputExitsTwo) {
  TempDir dir;
  const std::string bad = dir.write("b.json", "{\"schema_version\": 1}");
  expect_bad_input(run_strata(dir, {"diff", kSmallProfile, bad}),
                   {"b.json", "field 'strata_version' is missing"});
  expect_bad_input(run_strata(dir, {"diff", kSmallProfile}), {"b"});
  expect_bad_input(run_strata(dir, {"diff", kSmallProfile, kSmallProfileB, "--confidence", "2"}),
                   {"--confidence"});
}

TEST(MachineCli, MeasuresThenUsesTheCache) {
  TempDir dir;
  const std::string cache = dir.path("cache/machine.json");
  const CliResult first = run_strata(dir, {"machine", "--threads", "1", "--cache", cache});
  ASSERT_EQ(first.code, 0) << describe(first);
  EXPECT_NE(line_starting(first.out, "cache").find(cache), std::string::npos) << first.out;
  const std::string row = line_starting(first.out, "      1");
  EXPECT_NE(row.find("measured"), std::string::npos) << first.out;
  const CliResult second = run_strata(dir, {"machine", "--threads", "1", "--cache", cache});
  ASSERT_EQ(second.code, 0) << describe(second);
  EXPECT_NE(line_starting(second.out, "      1").find("cache"), std::string::npos) << second.out;
  // Same figures from the cache.
  EXPECT_EQ(line_starting(second.out, "      1").substr(0, 40), row.substr(0, 40));
  const CliResult refreshed =
      run_strata(dir, {"machine", "--threads", "1", "--cache", cache, "--refresh"});
  EXPECT_NE(line_starting(refreshed.out, "      1").find("measured"), std::string::npos)
      << refreshed.out;
}

TEST(MachineCli, EnvironmentVariableAndCorruptCache) {
  TempDir dir;
  const std::string cache = dir.write("env.json", "[1, 2");
  ::setenv("STRATA_MACHINE_CACHE", cache.c_str(), 1);
  const CliResult r = run_strata(dir, {"machine", "--threads", "1"});
  ::unsetenv("STRATA_MACHINE_CACHE");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "cache").find(cache), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("strata: warning: " + cache + ": the machine cache is not valid JSON"),
            std::string::npos)
      << describe(r);
  EXPECT_EQ(nlohmann::json::parse(read_text(cache))["format"], "strata-machine-cache");
  expect_bad_input(run_strata(dir, {"machine", "--threads", "0"}), {"--threads"});
}

}  // namespace
}  // namespace strata::test
