// Paths of the files in the source tree that several tests read: the example model and image, the
// report tests' profiles, and the ONNX test data.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace strata::test {

inline const std::string kExampleDir = std::string(STRATA_SOURCE_DIR) + "/examples";
inline const std::string kExampleModel = kExampleDir + "/tiny_resnet.onnx";
inline const std::string kExampleImage = kExampleDir + "/pattern.ppm";

// The report tests' data folder, with a trailing slash, and its two small profiles.
inline const std::string kReportDataDir = std::string(STRATA_SOURCE_DIR) + "/tests/report/data/";
inline const std::string kSmallProfile = kReportDataDir + "small_profile.json";
inline const std::string kSmallProfileB = kReportDataDir + "small_profile_b.json";

// The ONNX test data (../shared/onnx-tests), or where STRATA_ONNX_TESTS says it is.
inline std::filesystem::path onnx_tests_root() {
  if (const char* env = std::getenv("STRATA_ONNX_TESTS")) return env;
  return std::filesystem::path(STRATA_SOURCE_DIR) / ".." / "shared" / "onnx-tests";
}

}  // namespace strata::test
