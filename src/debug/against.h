// What `strata compare MODEL --against X` compares a run with: another configuration of the
// same session, or a saved dump.
#pragma once

#include <string>

#include "runtime/session.h"

namespace strata::debug {

struct Against {
  enum class Kind { kReference, kLayout, kThreads, kDump };
  Kind kind = Kind::kReference;
  kernels::LayoutPolicy layout = kernels::LayoutPolicy::kAuto;  // kLayout
  int threads = 1;                                              // kThreads
  std::string path;                                             // kDump
  std::string label;  // for the report: "--reference-kernels", "--layout nchw", "--threads 4"
};

// "reference", a layout ("nchw", "nhwc", "blocked", "auto"), "threads=N" or a dump folder or
// .npz file. Fails (exit 2) naming the text otherwise.
Against parse_against(const std::string& text);

// `base` changed as `against` says (kDump leaves it as it is).
runtime::SessionOptions against_options(const Against& against, runtime::SessionOptions base);

}  // namespace strata::debug
