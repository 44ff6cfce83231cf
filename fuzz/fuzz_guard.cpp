#include "fuzz_guard.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>

#include "core/error.h"

namespace strata::fuzz {

void guarded(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kBadInput) return;
    std::fprintf(stderr, "fuzz: internal error (exit %d): %s\n", int(e.code()), e.what());
    std::abort();
  } catch (const std::bad_alloc&) {
    return;  // the CLI reports "out of memory" with exit 2
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected exception: %s\n", e.what());
    std::abort();
  }
}

const std::string& scratch_dir() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string* dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    const std::filesystem::path p = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                                    ("strata-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(p);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return new std::string(p.string());
  }();
  return *dir;
}

std::string write_scratch(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return path;
}

}  // namespace strata::fuzz
