// Replays through the fuzz targets' bodies (fuzz/) every input the fuzzers found a crash with
// (tests/data/fuzz-regressions/TARGET/, each fixed since) and the hand-made seeds (fuzz/seeds/):
// each must end in a clean refusal or success. A failure aborts the test binary, as the fuzzer
// would, naming the input on stderr.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../../fuzz/fuzz_targets.h"  // the fuzz targets are not a library of their own

namespace strata::test {
namespace {

using Body = void (*)(const uint8_t*, size_t);

// Runs `body` on every file under `dir` and returns how many there were.
size_t replay(const std::filesystem::path& dir, Body body) {
  if (!std::filesystem::exists(dir)) return 0;
  size_t count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    std::fprintf(stderr, "replaying %s\n", entry.path().c_str());
    body(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++count;
  }
  return count;
}

const std::filesystem::path kSource = STRATA_SOURCE_DIR;
const std::filesystem::path kRegressions = kSource / "tests/data/fuzz-regressions";

TEST(FuzzRegressions, LoadModel) {
  replay(kRegressions / "fuzz_load_model", fuzz::load_model_one);
  EXPECT_GE(replay(kSource / "fuzz/seeds/load_model", fuzz::load_model_one), 1u);
}

TEST(FuzzRegressions, TensorFiles) {
  replay(kRegressions / "fuzz_tensor_files", fuzz::tensor_files_one);
  EXPECT_GE(replay(kSource / "fuzz/seeds/tensor_files", fuzz::tensor_files_one), 10u);
}

TEST(FuzzRegressions, ProfileJson) {
  replay(kRegressions / "fuzz_profile_json", fuzz::profile_json_one);
  EXPECT_GE(replay(kSource / "tests/report/data", fuzz::profile_json_one), 2u);
}

TEST(FuzzRegressions, Graph) {
  replay(kRegressions / "fuzz_graph", fuzz::graph_one);
  const std::string bytes(64, '\x5a');  // a graph of a few nodes from plain bytes
  fuzz::graph_one(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace
}  // namespace strata::test
