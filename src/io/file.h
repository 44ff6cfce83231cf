// Small file helpers shared by the tensor readers and writers in src/io.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/error.h"

namespace strata::io {

// A file opened for reading; every failure throws Error with a message that does not repeat the
// path (callers add it with with_path_context).
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int64_t size() const { return size_; }
  int64_t position() const { return position_; }
  int64_t remaining() const { return size_ - position_; }
  // Reads exactly n bytes; the caller checks remaining() first to report truncation precisely.
  void read(void* dst, int64_t n);
  // Reads everything from the current position (at most max_bytes, else fails).
  std::string read_rest(int64_t max_bytes);

 private:
  std::FILE* file_ = nullptr;
  int64_t size_ = 0;
  int64_t position_ = 0;
};

// Writes bytes to a new file; fails with the system's reason. The bytes go to a temporary file
// beside it (NAME.tmp-PID-N), renamed into place by close(): an interrupted or failed write never
// leaves a half-written file under the name, and an existing file stays whole until then.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // without close(): the temporary file is removed, the target left untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* src, size_t n);
  // Flushes, closes and renames into place; errors surface here rather than in the destructor.
  void close();

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
};

// The whole of `bytes` written to `path` through an OutputFile.
void write_file(const std::string& path, std::string_view bytes);

// Fails with the system's reason when a file cannot be created at `path` (checked by creating and
// removing a temporary file beside it); leaves nothing behind. For commands that write a report
// after minutes of work.
void check_writable(const std::string& path);

// Runs f(); an Error thrown inside gets "path: " in front of its message, keeping its code.
template <class F>
auto with_path_context(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace strata::io
