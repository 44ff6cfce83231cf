// Helpers for the file reader tests: a scratch directory under /tmp and error-message checks.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/error.h"

namespace strata::test {

// A fresh directory for one test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        std::filesystem::temp_directory_path() / ("strata_io_" + std::to_string(::getpid()) + "_" +
                                                  info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes raw bytes to a file in the directory and returns its path.
  std::string write(const std::string& name, std::string_view bytes) const {
    std::ofstream out(path(name), std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    return path(name);
  }

 private:
  std::filesystem::path dir_;
};

// Expects f() to throw Error whose message starts with "<what>: " and contains `detail`.
template <class F>
void expect_error(F&& f, const std::string& what, std::string_view detail) {
  try {
    f();
    ADD_FAILURE() << "no error thrown; expected one about: " << detail;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.starts_with(what + ": ")) << message;
    EXPECT_NE(message.find(detail), std::string::npos) << message;
    EXPECT_EQ(e.code(), ErrorCode::kBadInput) << message;
  }
}

}  // namespace strata::test
