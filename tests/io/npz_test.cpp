// read_npz: archives written by numpy's savez (stored) and savez_compressed (deflated), and
// damaged ones.
#include "io/npz.h"

#include <gtest/gtest.h>

#include "testutil/cli_util.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

const std::string kData = std::string(STRATA_SOURCE_DIR) + "/tests/io/data/";

TEST(Npz, ReadsStoredArraysInOrderWithTheirNames) {
  const auto arrays = io::read_npz(kData + "stored.npz");
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].first, "a");
  EXPECT_EQ(arrays[0].second.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(arrays[0].second.to_double(), (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(arrays[1].first, "layer/out:0");
  EXPECT_EQ(arrays[1].second.dtype(), DType::kI64);
  EXPECT_EQ(arrays[1].second.to_double(), (std::vector<double>{1, -2, 3}));
}

TEST(Npz, InflatesCompressedArrays) {
  const auto arrays = io::read_npz(kData + "compressed.npz");
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].second.to_double(), (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(arrays[1].first, "c");
  const std::vector<double> c = arrays[1].second.to_double();
  ASSERT_EQ(c.size(), 1600u);
  for (double v : c) ASSERT_EQ(v, 0.5);
}

TEST(Npz, DamagedArchivesFailNamingThePath) {
  TempDir dir;
  const std::string bytes = read_text(kData + "compressed.npz");
  expect_error([&] { io::read_npz(dir.write("empty.npz", "")); }, {"empty.npz", "not an .npz"});
  expect_error([&] { io::read_npz(dir.write("text.npz", "hello, world, not a zip at all")); },
               {"text.npz", "no zip directory"});
  // Cut in the middle: the directory at the end is gone.
  expect_error([&] { io::read_npz(dir.write("cut.npz", bytes.substr(0, bytes.size() / 2))); },
               {"cut.npz"});
  // The deflated data of the first entry corrupted (its 86 bytes start after the 30-byte local
  // header, the name "a.npy" and numpy's 20-byte zip64 extra field).
  std::string corrupt = bytes;
  for (size_t i = 60; i < 120; ++i) corrupt[i] = char(0xff);
  expect_error([&] { io::read_npz(dir.write("corrupt.npz", corrupt)); }, {"corrupt.npz", "'a"});
  expect_error([&] { io::read_npz(dir.path("missing.npz")); }, {"missing.npz"});
}

}  // namespace
}  // namespace strata::test
