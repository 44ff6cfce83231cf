#include "debug/against.h"

#include <filesystem>

#include "core/error.h"

namespace strata::debug {

Against parse_against(const std::string& text) {
  Against a;
  if (text == "reference") {
    a.kind = Against::Kind::kReference;
    a.label = "--reference-kernels";
    return a;
  }
  for (const char* layout : {"nchw", "nhwc", "blocked", "auto"})
    if (text == layout) {
      a.kind = Against::Kind::kLayout;
      a.layout = kernels::parse_layout_policy(text);
      a.label = "--layout " + text;
      return a;
    }
  if (text.starts_with("threads=")) {
    const std::string n = text.substr(8);
    if (n.empty() || n.size() > 3 || n.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(n) < 1 || std::stoi(n) > 256)
      fail("--against {}: the thread count must be a whole number from 1 to 256", text);
    a.kind = Against::Kind::kThreads;
    a.threads = std::stoi(n);
    a.label = "--threads " + n;
    return a;
  }
  std::error_code ec;
  if (!std::filesystem::exists(text, ec))
    fail(
        "--against {}: neither reference, a layout (nchw, nhwc, blocked, auto), threads=N nor "
        "an existing dump folder or .npz file",
        text);
  a.kind = Against::Kind::kDump;
  a.path = text;
  a.label = text;
  return a;
}

runtime::SessionOptions against_options(const Against& against, runtime::SessionOptions base) {
  switch (against.kind) {
    case Against::Kind::kReference:
      base.fast_kernels = false;
      base.fast_run = false;
      base.algo_cache.reset();
      break;
    case Against::Kind::kLayout: base.layout = against.layout; break;
    case Against::Kind::kThreads: base.threads = against.threads; break;
    case Against::Kind::kDump: break;
  }
  return base;
}

}  // namespace strata::debug
