// A whole file, read-only, memory-mapped where possible: tensors can then be views of its bytes
// (keeping it alive through their owner) and bytes nobody touches are never read from disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::onnx_import {

class MappedFile {
 public:
  // Maps (or, where mapping is impossible, reads) the file. Fails naming the path when it is
  // missing, unreadable, a folder, or empty unless `allow_empty`. `kind` names what was expected
  // ("an ONNX model").
  static std::shared_ptr<const MappedFile> open(const std::string& path, const char* kind,
                                                bool allow_empty = false);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  std::string_view bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }
  bool mapped() const { return mapped_; }

  // Hints that bytes [offset, offset+length) will be read soon (run mode prefetches weights).
  void will_need(size_t offset, size_t length) const;
  // Hints that bytes [offset, offset+length) will not be read again (they were copied), so the
  // kernel may drop the pages lying wholly inside from this process's resident set. The bytes stay
  // readable (from the file, on the next access). A no-op for read files.
  void done_with(size_t offset, size_t length) const;
  // The same for every page the bytes touch, neighbours' bytes included: for a walk that will not
  // come back (the analysis skipping weights).
  void done_with_pages_of(size_t offset, size_t length) const;

 private:
  MappedFile() = default;

  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<char> read_;  // the bytes, when the file could not be mapped
};

// An owner for a Tensor::view of bytes inside `file`: keeps the file mapped while the view lives.
std::shared_ptr<void> view_owner(const std::shared_ptr<const MappedFile>& file, const char* at);

}  // namespace strata::onnx_import
