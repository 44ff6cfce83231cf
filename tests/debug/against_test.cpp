// parse_against: the configurations `strata compare MODEL --against` knows.
#include "debug/against.h"

#include <gtest/gtest.h>

#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

TEST(Against, ParsesEveryKind) {
  runtime::SessionOptions base;
  base.threads = 2;
  const debug::Against ref = debug::parse_against("reference");
  EXPECT_FALSE(debug::against_options(ref, base).fast_kernels);
  EXPECT_EQ(debug::against_options(ref, base).threads, 2);
  const debug::Against nchw = debug::parse_against("nchw");
  EXPECT_EQ(nchw.kind, debug::Against::Kind::kLayout);
  EXPECT_EQ(debug::against_options(nchw, base).layout, kernels::LayoutPolicy::kPlain);
  EXPECT_TRUE(debug::against_options(nchw, base).fast_kernels);
  const debug::Against threads = debug::parse_against("threads=4");
  EXPECT_EQ(debug::against_options(threads, base).threads, 4);
  EXPECT_EQ(threads.label, "--threads 4");
  TempDir dir;
  const debug::Against dump = debug::parse_against(dir.mkdir("dump"));
  EXPECT_EQ(dump.kind, debug::Against::Kind::kDump);
  EXPECT_EQ(dump.path, dir.path("dump"));
}

TEST(Against, UnknownTextFails) {
  expect_error([] { debug::parse_against("threads=0"); }, {"threads=0", "1 to 256"});
  expect_error([] { debug::parse_against("threads=x"); }, {"threads=x"});
  expect_error([] { debug::parse_against("fast"); }, {"fast", "neither reference"});
}

}  // namespace
}  // namespace strata::test
