#include "io/file.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace strata::io {

namespace {
std::string system_reason() {
  return std::strerror(errno);
}
}  // namespace

InputFile::InputFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("cannot open file: it is a directory");
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) fail("cannot open file: {}", system_reason());
  if (std::fseek(file_, 0, SEEK_END) != 0 || (size_ = std::ftell(file_)) < 0 ||
      std::fseek(file_, 0, SEEK_SET) != 0) {
    const std::string reason = system_reason();
    std::fclose(file_);
    fail("cannot determine the file size: {}", reason);
  }
}

InputFile::~InputFile() {
  std::fclose(file_);
}

void InputFile::read(void* dst, int64_t n) {
  if (n < 0 || n > remaining())
    fail_internal("read of {} bytes at offset {} is past the end of the file", n, position_);
  if (n > 0 && std::fread(dst, 1, size_t(n), file_) != size_t(n))
    fail("read error at offset {}: {}", position_, system_reason());
  position_ += n;
}

std::string InputFile::read_rest(int64_t max_bytes) {
  if (remaining() > max_bytes) fail("file is too large ({} bytes, limit {})", size_, max_bytes);
  std::string bytes(size_t(remaining()), '\0');
  read(bytes.data(), int64_t(bytes.size()));
  return bytes;
}

namespace {

std::string temporary_beside(const std::string& path) {
  static std::atomic<int> counter{0};
  return fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter.fetch_add(1));
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), temp_(temporary_beside(path)) {
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) fail("cannot create file: {}", system_reason());
}

OutputFile::~OutputFile() {
  if (!file_) return;
  std::fclose(file_);
  std::remove(temp_.c_str());
}

void OutputFile::write(const void* src, size_t n) {
  if (n > 0 && std::fwrite(src, 1, n, file_) != n) fail("write error: {}", system_reason());
}

void OutputFile::close() {
  const int result = std::fclose(file_);
  file_ = nullptr;
  if (result != 0) {
    const std::string reason = system_reason();
    std::remove(temp_.c_str());
    fail("write error: {}", reason);
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string reason = system_reason();
    std::remove(temp_.c_str());
    fail("cannot create file: {}", reason);
  }
}

void write_file(const std::string& path, std::string_view bytes) {
  with_path_context(path, [&] {
    OutputFile out(path);
    out.write(bytes.data(), bytes.size());
    out.close();
  });
}

void check_writable(const std::string& path) {
  with_path_context(path, [&] {
    OutputFile probe(path);  // its destructor removes the temporary file
  });
}

}  // namespace strata::io
