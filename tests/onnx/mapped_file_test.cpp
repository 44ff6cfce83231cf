// Model files are mapped read-only, or read where mapping is impossible (a pipe); views of the
// bytes keep the file alive.
#include "onnx/mapped_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using onnx_import::MappedFile;

TEST(MappedFile, MapsARegularFile) {
  TempDir dir;
  const std::string path = dir.write("a.bin", "hello, mapping");
  const auto file = MappedFile::open(path, "a test file");
  EXPECT_TRUE(file->mapped());
  EXPECT_EQ(file->bytes(), "hello, mapping");
  EXPECT_EQ(file->path(), path);
  file->will_need(0, file->size());  // hints only: the bytes stay the same
  file->done_with(0, file->size());
  EXPECT_EQ(file->bytes(), "hello, mapping");
}

TEST(MappedFile, ReadsAPipe) {
  TempDir dir;
  const std::string path = dir.path("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string payload(200000, 'p');  // several pipe buffers
  std::thread writer([&] { std::ofstream(path, std::ios::binary) << payload; });
  const auto file = MappedFile::open(path, "a test file");
  writer.join();
  EXPECT_FALSE(file->mapped());
  EXPECT_EQ(file->bytes(), payload);
}

TEST(MappedFile, ViewOwnerKeepsTheFileAlive) {
  TempDir dir;
  const std::string path = dir.write("a.bin", "abcdefgh");
  std::shared_ptr<void> owner;
  const char* at = nullptr;
  {
    const auto file = MappedFile::open(path, "a test file");
    at = file->bytes().data() + 4;
    owner = onnx_import::view_owner(file, at);
  }
  std::filesystem::remove(path);
  EXPECT_EQ(owner.get(), at);
  EXPECT_EQ(std::string(at, 4), "efgh");
}

TEST(MappedFile, BadFilesAreNamed) {
  TempDir dir;
  expect_error([&] { MappedFile::open(dir.path("none"), "a test file"); },
               {"none", "no such file"});
  expect_error([&] { MappedFile::open(dir.mkdir("sub"), "a test file"); },
               {"sub", "is a folder, not a test file"});
  const std::string empty = dir.write("empty", "");
  expect_error([&] { MappedFile::open(empty, "a test file"); }, {"empty", "the file is empty"});
  EXPECT_EQ(MappedFile::open(empty, "a test file", /*allow_empty=*/true)->size(), 0u);
}

}  // namespace
}  // namespace strata::test
