// SHA-256 (FIPS 180-4), to identify the exact model file a profile was measured on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::io {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  // The digest as 64 lowercase hex digits; the object is spent afterwards.
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);
  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);
// Reads the file in chunks; fails (exit 2) naming the path when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace strata::io
