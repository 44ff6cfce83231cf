#include "onnx/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace strata::onnx_import {

namespace {

// Largest stream (pipe, device) read whole: protobuf's own limit for one message. Regular files
// are mapped or read at their real size instead.
constexpr size_t kMaxStreamBytes = size_t(1) << 31;

// Reads up to `limit` bytes from fd until end of file; fails naming the path on an error.
std::vector<char> read_all(int fd, const std::string& path, size_t limit) {
  std::vector<char> bytes;
  size_t used = 0;
  for (;;) {
    if (used == bytes.size()) {
      if (bytes.size() >= limit) fail("{}: the file is larger than {} bytes", path, limit);
      bytes.resize(std::min(limit, std::max<size_t>(bytes.size() * 2, 1 << 16)));
    }
    const ssize_t n = ::read(fd, bytes.data() + used, bytes.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("{}: read error", path);
    if (n == 0) break;
    used += size_t(n);
  }
  bytes.resize(used);
  return bytes;
}

// Owns the file descriptor for the duration of open().
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Page-aligned bounds of [offset, offset+length) for madvise: outward (all pages touched) or
// inward (only pages lying wholly inside).
struct PageRange {
  size_t begin = 0, end = 0;
};
PageRange pages(size_t offset, size_t length, bool inward) {
  static const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  const size_t first = inward ? (offset + page - 1) / page * page : offset / page * page;
  const size_t last =
      inward ? (offset + length) / page * page : (offset + length + page - 1) / page * page;
  return {first, std::max(first, last)};
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, const char* kind,
                                                   bool allow_empty) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail("{}: no such file", path);
  if (fs::is_directory(status)) fail("{}: is a folder, not {}", path, kind);
  const Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail("{}: cannot be opened for reading", path);
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail("{}: cannot be opened for reading", path);

  std::shared_ptr<MappedFile> out(new MappedFile());
  out->path_ = path;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, file.fd, 0);
    if (p != MAP_FAILED) {
      out->data_ = static_cast<const char*>(p);
      out->size_ = size_t(st.st_size);
      out->mapped_ = true;
      return out;
    }
  }
  // Not mappable: read it. A regular file is read at its size; a stream up to kMaxStreamBytes.
  const size_t limit = S_ISREG(st.st_mode) && st.st_size > 0 ? size_t(st.st_size) : kMaxStreamBytes;
  out->read_ = read_all(file.fd, path, limit);
  if (out->read_.empty() && !allow_empty) fail("{}: the file is empty", path);
  out->data_ = out->read_.data();
  out->size_ = out->read_.size();
  return out;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::will_need(size_t offset, size_t length) const {
  if (!mapped_ || length == 0) return;
  const PageRange r = pages(offset, length, /*inward=*/false);
  ::madvise(const_cast<char*>(data_) + r.begin, std::min(r.end, size_) - r.begin, MADV_WILLNEED);
}

void MappedFile::done_with(size_t offset, size_t length) const {
  if (!mapped_) return;
  const PageRange r = pages(offset, length, /*inward=*/true);
  if (r.end > r.begin)
    ::madvise(const_cast<char*>(data_) + r.begin, r.end - r.begin, MADV_DONTNEED);
}

void MappedFile::done_with_pages_of(size_t offset, size_t length) const {
  if (!mapped_ || length == 0) return;
  const PageRange r = pages(offset, length, /*inward=*/false);
  ::madvise(const_cast<char*>(data_) + r.begin, std::min(r.end, size_) - r.begin, MADV_DONTNEED);
}

std::shared_ptr<void> view_owner(const std::shared_ptr<const MappedFile>& file, const char* at) {
  return std::shared_ptr<void>(file, const_cast<char*>(at));
}

}  // namespace strata::onnx_import
