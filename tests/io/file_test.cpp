// Files written atomically (src/io/file.cpp): a write lands whole under its name or not at all.
#include "io/file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testutil/cli_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

size_t entries(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(OutputFile, AWriteLandsWholeOnCloseAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.path("report.json");
  io::write_file(path, "first");
  io::write_file(path, "second, longer");
  EXPECT_EQ(read_text(path), "second, longer");
  EXPECT_EQ(entries(dir.root()), 1u);
}

TEST(OutputFile, AnUnfinishedWriteLeavesTheOldFileAsItWas) {
  TempDir dir;
  const std::string path = dir.path("profile.json");
  io::write_file(path, "complete");
  {
    io::OutputFile out(path);
    out.write("half", 4);
    EXPECT_EQ(read_text(path), "complete");  // nothing under the name while writing
  }                                          // destroyed without close(): as if interrupted
  EXPECT_EQ(read_text(path), "complete");
  EXPECT_EQ(entries(dir.root()), 1u);
}

TEST(OutputFile, CheckWritableFailsNamingThePathAndCreatesNothing) {
  TempDir dir;
  io::check_writable(dir.path("ok.json"));
  EXPECT_EQ(entries(dir.root()), 0u);
  expect_error([&] { io::check_writable(dir.path("missing/x.json")); },
               {dir.path("missing/x.json"), "cannot create file"});
}

}  // namespace
}  // namespace strata::test
