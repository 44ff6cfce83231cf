// `strata` in a terminal and in a pipe: under a pseudo-terminal (util-linux `script`) the progress
// line shows and is erased, tables fit COLUMNS and warnings are coloured unless NO_COLOR; piped or
// redirected output has no carriage return and no escape code, and every column.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "report/table.h"
#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

bool have_script() {
  return std::system("script --version >/dev/null 2>&1") == 0;
}

// Runs `env ENV strata ARGS...` with stdout and stderr on a pseudo-terminal; returns what the
// terminal received (both streams, lines ending in \r\n as a terminal's line discipline makes).
CliResult run_in_terminal(const TempDir& dir, const std::string& env,
                          const std::vector<std::string>& args) {
  std::string inner = "env " + env + " " + shell_quote(STRATA_BINARY);
  for (const std::string& a : args) inner += " " + shell_quote(a);
  const std::string out = dir.path("tty_out.txt");
  const std::string command =
      "script -qec " + shell_quote(inner) + " /dev/null </dev/null >" + shell_quote(out);
  const int status = std::system(command.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  return r;
}

// The lines of terminal output, with the \r of \r\n removed.
std::vector<std::string> terminal_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> terminal_profile_args(std::vector<std::string> extra = {},
                                               const std::string& iterations = "20") {
  std::vector<std::string> a = {"profile",  kExampleModel, "-i", kExampleImage,   "--iter",
                                iterations, "--warmup",    "1",  "--no-roofline", "--isolate"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(TerminalCli, ProgressLineShowsEachPhaseAndIsErased) {
  if (!have_script()) GTEST_SKIP() << "util-linux script is not installed";
  TempDir dir;
  const CliResult r = run_in_terminal(dir, "COLUMNS=100", terminal_profile_args());
  ASSERT_EQ(r.code, 0) << r.out;
  // Each phase draws at once; updates within a phase are throttled, so the last count may not show.
  for (const char* phase : {"load", "prepare", "first run", "warm-up", "iterations ", "isolation"})
    EXPECT_NE(r.out.find(std::string("\rstrata: ") + phase), std::string::npos) << phase << r.out;
  // Every progress line is drawn over (\r) and erased (\r ESC[K) before a newline: none stays on
  // screen. (A line that starts after a newline is a warning, not progress.)
  size_t drawn = 0;
  for (size_t p = r.out.find("\rstrata: "); p != std::string::npos;
       p = r.out.find("\rstrata: ", p + 1)) {
    if (p > 0 && r.out[p - 1] == '\n') continue;
    ++drawn;
    EXPECT_LT(r.out.find("\r\033[K", p + 1), r.out.find('\n', p)) << r.out.substr(p, 80);
  }
  EXPECT_GE(drawn, 5u);
  EXPECT_LT(r.out.rfind("\r\033[K"), r.out.find("latency")) << r.out;
}

TEST(TerminalCli, TablesFitEightyColumnsAndNameWhatTheyLeaveOut) {
  if (!have_script()) GTEST_SKIP() << "util-linux script is not installed";
  TempDir dir;
  const CliResult r =
      run_in_terminal(dir, "COLUMNS=80", terminal_profile_args({"--by", "all", "--top", "0"}));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::vector<std::string> lines = terminal_lines(r.out);
  size_t first_table = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind("nodes by time", 0) == 0) first_table = std::min(first_table, i);
  ASSERT_LT(first_table, lines.size()) << r.out;
  for (size_t i = first_table; i < lines.size(); ++i)
    EXPECT_LE(report::text_width(lines[i]), 80u) << lines[i];
  EXPECT_NE(r.out.find("not shown to fit 80 columns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--wide shows all"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/layer1/"), std::string::npos) << r.out;  // names stay, shortened or not

  // --wide: every column even on the terminal.
  const CliResult wide = run_in_terminal(dir, "COLUMNS=80", terminal_profile_args({"--wide"}, "3"));
  ASSERT_EQ(wide.code, 0) << wide.out;
  EXPECT_NE(wide.out.find("alloc bytes"), std::string::npos) << wide.out;
  EXPECT_EQ(wide.out.find("not shown to fit"), std::string::npos) << wide.out;
}

// Every line from the first one starting with `first` on is at most `width` wide.
void expect_lines_fit(const std::string& out, const std::string& first, size_t width) {
  std::vector<std::string> lines = terminal_lines(out);
  for (std::string& line : lines) {  // what stays on screen after an erased progress line
    if (line.rfind('\r') != std::string::npos) line = line.substr(line.rfind('\r') + 1);
    if (line.rfind("\033[K", 0) == 0) line = line.substr(3);
  }
  size_t from = lines.size();
  for (size_t i = 0; i < lines.size() && from == lines.size(); ++i)
    if (lines[i].rfind(first, 0) == 0) from = i;
  ASSERT_LT(from, lines.size()) << out;
  for (size_t i = from; i < lines.size(); ++i)
    EXPECT_LE(report::text_width(lines[i]), width) << lines[i];
}

TEST(TerminalCli, DiffTablesFitEightyColumns) {
  if (!have_script()) GTEST_SKIP() << "util-linux script is not installed";
  TempDir dir;
  const CliResult r = run_in_terminal(dir, "COLUMNS=80", {"diff", kSmallProfile, kSmallProfileB});
  ASSERT_EQ(r.code, 0) << r.out;
  expect_lines_fit(r.out, "nodes by change", 80);
  EXPECT_NE(r.out.find("not shown to fit 80 columns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--wide shows all,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--columns LIST picks"), std::string::npos) << r.out;
  const std::string header = line_starting(r.out, "#  node");
  for (const char* kept : {"change", "verdict"})
    EXPECT_NE(header.find(kept), std::string::npos) << kept << "\n" << r.out;
  EXPECT_NE(r.out.find("/layer1/"), std::string::npos) << r.out;  // long names shortened, kept

  const CliResult wide =
      run_in_terminal(dir, "COLUMNS=80", {"diff", kSmallProfile, kSmallProfileB, "--wide"});
  ASSERT_EQ(wide.code, 0) << wide.out;
  EXPECT_NE(wide.out.find("95% CI"), std::string::npos) << wide.out;
  EXPECT_EQ(wide.out.find("not shown to fit"), std::string::npos) << wide.out;

  const CliResult picked =
      run_strata(dir, {"diff", kSmallProfile, kSmallProfileB, "--columns", "ci"});
  ASSERT_EQ(picked.code, 0) << describe(picked);
  const std::string picked_header = line_starting(picked.out, "#  node");
  EXPECT_NE(picked_header.find("95% CI"), std::string::npos) << picked.out;
  EXPECT_EQ(picked_header.find("A ms"), std::string::npos) << picked.out;
  expect_bad_input(run_strata(dir, {"diff", kSmallProfile, kSmallProfileB, "--columns", "bogus"}),
                   {"--columns", "'bogus'", "delta_ms"});
}

TEST(TerminalCli, LoadShowsItsElapsedTime) {
  if (!have_script()) GTEST_SKIP() << "util-linux script is not installed";
  TempDir dir;
  const CliResult r = run_in_terminal(dir, "COLUMNS=100", terminal_profile_args({}, "2"));
  ASSERT_EQ(r.code, 0) << r.out;
  const size_t load = r.out.find("\rstrata: load  ");
  ASSERT_NE(load, std::string::npos) << r.out;
  const std::string line = r.out.substr(load + 1, r.out.find('\033', load) - load - 1);
  EXPECT_TRUE(line.size() > 5 && line.substr(line.size() - 2) == " s" &&
              std::isdigit(static_cast<unsigned char>(line[line.size() - 3])))
      << line;
}

TEST(TerminalCli, MachineShowsProgressAndFits) {
  if (!have_script()) GTEST_SKIP() << "util-linux script is not installed";
  TempDir dir;
  const CliResult r = run_in_terminal(
      dir, "COLUMNS=80", {"machine", "--threads", "1", "--refresh", "--cache", dir.path("m.json")});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\rstrata: machine peaks 0/3 (0%)"), std::string::npos) << r.out;
  expect_lines_fit(r.out, "threads", 80);
  EXPECT_LT(r.out.rfind("\r\033[K"), r.out.find("threads")) << r.out;
}

TEST(TerminalCli, ColumnsOptionPicksTheColumns) {
  TempDir dir;
  const CliResult r =
      run_strata(dir, terminal_profile_args({"--columns", "median,kernel", "--top", "5"}, "3"));
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string header = line_starting(r.out, "#  node");
  EXPECT_NE(header.find("median"), std::string::npos) << r.out;
  EXPECT_NE(header.find("kernel"), std::string::npos) << r.out;
  EXPECT_EQ(header.find("total ms"), std::string::npos) << r.out;
  expect_bad_input(run_strata(dir, terminal_profile_args({"--columns", "median,bogus"})),
                   {"--columns", "'bogus'", "total_ms"});
}

TEST(TerminalCli, WarningsAreColouredOnATerminalUnlessNoColor) {
  if (!have_script()) GTEST_SKIP() << "util-linux script is not installed";
  TempDir dir;
  // An algo cache that does not exist yet warns.
  const std::vector<std::string> args = {
      "run", kExampleModel, "-i", kExampleImage, "--iter", "2", "--algo-cache", dir.path("c.json")};
  const CliResult colour = run_in_terminal(dir, "NO_COLOR=", args);
  ASSERT_EQ(colour.code, 0) << colour.out;
  EXPECT_NE(colour.out.find("\033[1;33mstrata: warning:\033[0m"), std::string::npos) << colour.out;
  const CliResult plain = run_in_terminal(dir, "NO_COLOR=1", args);
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_NE(plain.out.find("strata: warning: "), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("\033[1;33m"), std::string::npos) << plain.out;
}

TEST(TerminalCli, PipedOutputHasNoCarriageReturnNoEscapeAndEveryColumn) {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {terminal_profile_args({"--by", "all"}),
        std::vector<std::string>{"run", kExampleModel, "-i", kExampleImage, "--iter", "20",
                                 "--algo-cache", dir.path("c.json")},
        std::vector<std::string>{"diff", kSmallProfile, kSmallProfileB},
        std::vector<std::string>{"machine", "--threads", "1", "--cache", dir.path("m.json")}}) {
    const CliResult r = run_strata(dir, args);
    ASSERT_EQ(r.code, 0) << describe(r);
    for (const std::string* text : {&r.out, &r.err}) {
      EXPECT_EQ(text->find('\r'), std::string::npos) << describe(r);
      EXPECT_EQ(text->find('\033'), std::string::npos) << describe(r);
      EXPECT_EQ(text->find("strata: iterations"), std::string::npos) << describe(r);
    }
    if (args[0] == "diff") {
      EXPECT_NE(r.out.find("95% CI"), std::string::npos) << r.out;
    }
    if (args[0] == "profile") {
      EXPECT_NE(r.out.find("alloc bytes"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("shapes"), std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("not shown"), std::string::npos) << r.out;
    }
  }
}

}  // namespace
}  // namespace strata::test
