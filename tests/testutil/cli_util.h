// Running the real `strata` binary in tests: capture stdout, stderr and the exit code, and check
// the one-sentence errors users get for bad input.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testutil/onnx_builder.h"

namespace strata::test {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string shell_quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `strata ARGS...`, capturing stdout, stderr and the exit code through files in `dir`.
inline CliResult run_strata(const TempDir& dir, const std::vector<std::string>& args) {
  std::string command = shell_quote(STRATA_BINARY);
  for (const std::string& a : args) command += " " + shell_quote(a);
  const std::string out = dir.path("cli_stdout.txt"), err = dir.path("cli_stderr.txt");
  command += " >" + shell_quote(out) + " 2>" + shell_quote(err);
  const int status = std::system(command.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

inline std::string describe(const CliResult& r) {
  return "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

// The line of `text` starting with `prefix`, or "".
inline std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

// Whether `text` contains `part` anywhere.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Exit code 2 and exactly one error line on stderr, naming every one of `details`.
inline void expect_bad_input(const CliResult& r, const std::vector<std::string>& details) {
  EXPECT_EQ(r.code, 2) << describe(r);
  const std::string line = line_starting(r.err, "strata: error: ");
  ASSERT_FALSE(line.empty()) << describe(r);
  size_t error_lines = 0;
  std::istringstream in(r.err);
  for (std::string l; std::getline(in, l);) error_lines += l.find("error") != std::string::npos;
  EXPECT_EQ(error_lines, 1u) << describe(r);
  for (const std::string& d : details)
    EXPECT_NE(line.find(d), std::string::npos) << "missing '" << d << "'\n" << describe(r);
}

}  // namespace strata::test
