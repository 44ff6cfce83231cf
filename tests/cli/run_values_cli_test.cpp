// `strata run` on models whose outputs are not plain numeric tensors (strings, sequences): they
// are printed, verified and reported as before the command moved onto the public API; .npy
// cannot hold a sequence, which --dump-outputs says in one sentence.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "testutil/cli_util.h"

namespace strata::test {
namespace {

// x float32[2] → Cast(to string) → text; SequenceConstruct(x, x) → pair (each when asked for)
std::string list_model(const TempDir& dir, bool text = true, bool pair = true) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  if (text) {
    set_attr(m.add_node("Cast", {"x"}, {"text"}, "cast"), "to", int64_t(8));  // STRING
    m.add_output("text", DType::kString, {2});
  }
  if (pair) {
    m.add_node("SequenceConstruct", {"x", "x"}, {"pair"}, "construct");
    m.add_output("pair");
  }
  return m.save(dir.path("lists.onnx"));
}

// The line of stderr that says what went wrong ("" when none).
std::string error_line(const std::string& err) {
  const size_t at = err.find("strata: error: ");
  return at == std::string::npos ? "" : err.substr(at, err.find('\n', at) - at);
}

TEST(RunValuesCli, StringAndSequenceOutputsArePrintedAndReported) {
  TempDir dir;
  const std::string model = list_model(dir);
  const CliResult r = run_strata(
      dir, {"run", model, "-i", "x=[1.5,2]", "--iter", "1", "--json", dir.path("r.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "outputs    text: string[2]\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "           pair: float32[sequence of 2]\n")) << r.out;
  const nlohmann::json report = nlohmann::json::parse(read_text(dir.path("r.json")));
  ASSERT_EQ(report["outputs"].size(), 2u);
  EXPECT_EQ(report["outputs"][0]["dtype"], "string");
  EXPECT_EQ(report["outputs"][0]["shape"], nlohmann::json({2}));
  EXPECT_EQ(report["outputs"][1]["dtype"], "float32");
  EXPECT_EQ(report["outputs"][1]["shape"], nlohmann::json::array());
}

TEST(RunValuesCli, StringAndSequenceOutputsAreVerifiedAgainstTheirPb) {
  TempDir dir;
  const std::string model = list_model(dir);
  // strata pack writes the outputs computed (a sequence as a SequenceProto); running the case
  // checks them, strings and sequences included.
  const CliResult p = run_strata(dir, {"pack", model, "-i", "x=[1.5,2]", "-o", dir.path("case")});
  ASSERT_EQ(p.code, 0) << p.err;
  const CliResult r = run_strata(dir, {"run", dir.path("case"), "--iter", "1"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "verify     text: ok")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n           pair: ok")) << r.out;
  // The expected sequence is really checked: another input's sequence in its place fails.
  ASSERT_EQ(run_strata(dir, {"pack", model, "-i", "x=[1.5,3]", "-o", dir.path("other")}).code, 0);
  std::filesystem::copy_file(dir.path("other/test_data_set_0/output_1.pb"),
                             dir.path("case/test_data_set_0/output_1.pb"),
                             std::filesystem::copy_options::overwrite_existing);
  const CliResult wrong = run_strata(dir, {"run", dir.path("case"), "--iter", "1"});
  EXPECT_NE(wrong.code, 0) << wrong.out << wrong.err;
  EXPECT_TRUE(contains(wrong.out + wrong.err, "pair")) << wrong.out << wrong.err;
}

TEST(RunValuesCli, DumpOutputsOfAStringOrASequenceIsOneSentenceAndExit2) {
  TempDir dir;
  for (const bool text : {true, false}) {
    const std::string model = list_model(dir, text, !text);
    const CliResult r = run_strata(
        dir, {"run", model, "-i", "x=[1.5,2]", "--iter", "1", "--dump-outputs", dir.path("out")});
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_EQ(
        error_line(r.err),
        text ? "strata: error: " + dir.path("out/text.npy") + ": dtype string has no npy equivalent"
             : "strata: error: " + dir.path("out/pair.npy") +
                   ": a float32[sequence of 2] value cannot be written as .npy (a file of "
                   "one tensor)")
        << r.err;
  }
}

}  // namespace
}  // namespace strata::test
