// The busy-machine warning (profiler::contention_warning): others' CPU use is the machine's busy
// share less the process's own, against the CPUs the run left free.
#include <gtest/gtest.h>

#include "profiler/resource_usage.h"

namespace strata::test {
namespace {

TEST(ContentionWarning, OthersUsingTheCpusTheRunNeedsAreNamed) {
  // 2 CPUs, 2 threads: the process used 1.0 CPU, the machine was busy 90% (1.8 CPUs): others 0.8.
  const std::string w = profiler::contention_warning(2, 2, 100, 90);
  EXPECT_NE(w.find("other processes kept 0.8 of the 2 CPUs busy"), std::string::npos) << w;
  EXPECT_NE(w.find("ran 2 threads"), std::string::npos) << w;
  // Alone: the machine's busy share is the process's own.
  EXPECT_EQ(profiler::contention_warning(2, 2, 195, 98), "");
  // One thread leaves a CPU free: others must take more than 1.5 of them.
  EXPECT_EQ(profiler::contention_warning(1, 2, 100, 90), "");
  EXPECT_NE(profiler::contention_warning(1, 2, 40, 100), "");
  // Unknown readings say nothing.
  EXPECT_EQ(profiler::contention_warning(2, 2, -1, 90), "");
  EXPECT_EQ(profiler::contention_warning(2, 2, 100, -1), "");
}

}  // namespace
}  // namespace strata::test
