#include "io/sha256.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

// Digests from FIPS 180-4's examples and `sha256sum`.
TEST(Sha256, KnownDigests) {
  EXPECT_EQ(io::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(io::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding spills into a second block.
  EXPECT_EQ(io::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(io::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FileInChunksMatchesBytes) {
  TempDir dir;
  std::string bytes;
  for (int i = 0; i < 3000000; ++i) bytes += char(i * 7 + 3);
  const std::string path = dir.write("data.bin", bytes);
  EXPECT_EQ(io::sha256_file(path), io::sha256_hex(bytes));
}

TEST(Sha256, MissingFileNamesThePath) {
  TempDir dir;
  const std::string path = dir.path("absent.onnx");
  try {
    io::sha256_file(path);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::test
