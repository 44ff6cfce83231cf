// --input DIR: a folder's files, one input set per file, round-robin; bad folders fail by name.
#include "runtime/input_folder.h"

#include <gtest/gtest.h>

#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using runtime::BindOptions;
using runtime::expand_input_folders;

TEST(InputFolder, ListsVisibleFilesInNameOrder) {
  TempDir dir;
  const std::string folder = dir.mkdir("images");
  for (const char* name : {"b.npy", "a.npy", ".hidden.npy", "c.ppm"})
    dir.write(std::string("images/") + name, "x");
  dir.mkdir("images/sub");
  EXPECT_EQ(runtime::input_folder_files(folder),
            (std::vector<std::string>{folder + "/a.npy", folder + "/b.npy", folder + "/c.ppm"}));
}

TEST(InputFolder, ExpandsEveryFolderRoundRobin) {
  TempDir dir;
  const std::string three = dir.mkdir("three"), two = dir.mkdir("two");
  for (const char* name : {"three/0.npy", "three/1.npy", "three/2.npy", "two/0.npy", "two/1.npy"})
    dir.write(name, "x");
  const std::string file = dir.write("mask.npy", "x");
  BindOptions options;
  options.inputs = {{"image", three}, {"mask", file}, {"", two}};
  EXPECT_TRUE(runtime::has_input_folder(options));
  const std::vector<BindOptions> sets = expand_input_folders(options);
  ASSERT_EQ(sets.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(sets[k].inputs[0].name, "image");
    EXPECT_EQ(sets[k].inputs[0].source, three + "/" + std::to_string(k) + ".npy");
    EXPECT_EQ(sets[k].inputs[1].source, file);
    EXPECT_EQ(sets[k].inputs[2].source, two + "/" + std::to_string(k % 2) + ".npy");
  }
}

TEST(InputFolder, WithoutFoldersOneSetAsGiven) {
  TempDir dir;
  BindOptions options;
  options.inputs = {{"x", dir.write("x.npy", "x")}, {"y", "[1,2]"}};
  EXPECT_FALSE(runtime::has_input_folder(options));
  const std::vector<BindOptions> sets = expand_input_folders(options);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].inputs[0].source, options.inputs[0].source);
  EXPECT_EQ(sets[0].inputs[1].source, "[1,2]");
}

TEST(InputFolder, EmptyOrMissingFoldersFailNamingThem) {
  TempDir dir;
  const std::string empty = dir.mkdir("empty");
  dir.write("empty/.keep", "");
  BindOptions options;
  options.inputs = {{"", empty}};
  expect_error([&] { expand_input_folders(options); }, {empty, "holds no input files"});
  options.inputs = {{"", dir.path("absent")}};
  expect_error([&] { expand_input_folders(options); }, {dir.path("absent"), "does not exist"});
  expect_error([&] { runtime::input_folder_files(dir.path("absent")); },
               {dir.path("absent"), "not a folder"});
}

}  // namespace
}  // namespace strata::test
