#include "io/npz.h"

#include <zlib.h>

#include <cstring>
#include <string_view>

#include "core/checked.h"
#include "io/file.h"
#include "io/npy.h"

namespace strata::io {

namespace {

// Zip record signatures and fixed sizes (PKWARE APPNOTE 4.3).
constexpr uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr uint32_t kCentralFileHeader = 0x02014b50;
constexpr uint32_t kLocalFileHeader = 0x04034b50;
constexpr size_t kEndRecordBytes = 22;
constexpr size_t kCentralHeaderBytes = 46;
constexpr size_t kLocalHeaderBytes = 30;
constexpr size_t kMaxCommentBytes = 65535;
constexpr uint16_t kStored = 0, kDeflated = 8;
// Deflate expands at most about 1032 times; a larger claimed size is a damaged header.
constexpr uint32_t kMaxDeflateRatio = 1100;
// Largest archive read into memory.
constexpr int64_t kMaxArchiveBytes = int64_t(16) << 30;

uint32_t le(std::string_view bytes, size_t at, size_t n) {
  if (at + n > bytes.size()) fail("not a valid .npz file (a zip record is cut short)");
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t(uint8_t(bytes[at + i])) << (8 * i);
  return v;
}

std::string inflate_entry(std::string_view compressed, uint32_t size, const std::string& name) {
  std::string out(size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail("cannot start zlib for entry '{}'", name);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = uInt(compressed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  const int status = inflate(&z, Z_FINISH);
  const uLong produced = z.total_out;
  inflateEnd(&z);
  if (status != Z_STREAM_END || produced != size)
    fail("entry '{}' is corrupt (its deflated data does not inflate to {} bytes)", name, size);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> read_npz(const std::string& path) {
  return with_path_context(path, [&] {
    InputFile file(path);
    const std::string archive = file.read_rest(kMaxArchiveBytes);
    const std::string_view bytes(archive);
    // The end record sits in the last 22 bytes plus an optional comment.
    size_t end = std::string_view::npos;
    if (bytes.size() >= kEndRecordBytes) {
      const size_t lowest = bytes.size() > kEndRecordBytes + kMaxCommentBytes
                                ? bytes.size() - kEndRecordBytes - kMaxCommentBytes
                                : 0;
      for (size_t at = bytes.size() - kEndRecordBytes + 1; at-- > lowest;)
        if (le(bytes, at, 4) == kEndOfCentralDirectory) {
          end = at;
          break;
        }
    }
    if (end == std::string_view::npos) fail("not an .npz file (no zip directory at its end)");
    const uint32_t entries = le(bytes, end + 10, 2);
    size_t at = le(bytes, end + 16, 4);
    if (entries == 0xffff || at == 0xffffffff)
      fail("zip64 archives (over 4 GiB or 65535 arrays) are not supported");
    std::vector<std::pair<std::string, Tensor>> arrays;
    for (uint32_t e = 0; e < entries; ++e) {
      if (le(bytes, at, 4) != kCentralFileHeader)
        fail("not a valid .npz file (zip directory entry {} is damaged)", e);
      const uint16_t method = uint16_t(le(bytes, at + 10, 2));
      const uint32_t packed = le(bytes, at + 20, 4), size = le(bytes, at + 24, 4);
      const size_t name_len = le(bytes, at + 28, 2), extra_len = le(bytes, at + 30, 2),
                   comment_len = le(bytes, at + 32, 2);
      const size_t local = le(bytes, at + 42, 4);
      if (at + kCentralHeaderBytes + name_len > bytes.size())
        fail("not a valid .npz file (zip directory entry {} is cut short)", e);
      std::string name(bytes.substr(at + kCentralHeaderBytes, name_len));
      at += kCentralHeaderBytes + name_len + extra_len + comment_len;
      if (le(bytes, local, 4) != kLocalFileHeader)
        fail("not a valid .npz file (entry '{}' points at no local header)", name);
      const size_t data =
          local + kLocalHeaderBytes + le(bytes, local + 26, 2) + le(bytes, local + 28, 2);
      if (packed == 0xffffffff || size == 0xffffffff)
        fail("entry '{}' is a zip64 entry (over 4 GiB), which is not supported", name);
      if (data > bytes.size() || packed > bytes.size() - data)
        fail("not a valid .npz file (entry '{}' runs past the end of the file)", name);
      const std::string_view stored = bytes.substr(data, packed);
      std::string inflated;
      if (method == kDeflated && size / kMaxDeflateRatio > packed)
        fail("entry '{}' claims {} bytes from {} deflated ones, more than deflate can expand to",
             name, size, packed);
      if (method == kDeflated)
        inflated = inflate_entry(stored, size, name);
      else if (method != kStored)
        fail("entry '{}' uses zip compression method {} (only stored and deflated are read)", name,
             method);
      const std::string_view npy = method == kDeflated ? std::string_view(inflated) : stored;
      if (name.size() > 4 && name.ends_with(".npy")) name.resize(name.size() - 4);
      arrays.emplace_back(name, read_npy_bytes(npy, "entry '" + name + "'"));
    }
    return arrays;
  });
}

}  // namespace strata::io
