// Fast-run's choices kept between runs (--algo-cache FILE): per node configuration, the kernel
// family and implementation that won and the timings that made it win. A configuration is the op
// and its attributes, the dtypes, shapes and layouts of its inputs and outputs, the layout policy
// and the threads; the file records the CPU and the library versions it was timed with. A file
// made elsewhere (another CPU, oneDNN or strata) or unreadable is ignored with a warning, and
// replaced once fast-run stores new choices; an entry naming an implementation that is no longer
// built is ignored with a warning and dropped from the file.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "kernels/kernel.h"

namespace strata::runtime {

struct AlgoChoice {
  std::string family;      // kernel family ("onednn_conv")
  int implementation = 0;  // NodeRequest::implementation
  int threads = 1;         // the threads it was built for: the session's, or 1 where that won
  std::string kernel;      // the implementation's name when chosen, checked on reuse
  double ms = 0;           // its fastest timed run (0: the only candidate, not timed)
  std::string reason;      // the fast-run's account (every candidate's time)
};

class AlgoCache {
 public:
  // Reads `path` when it exists; problems go to `warn_sink` (nullptr: dropped).
  AlgoCache(std::string path, std::function<void(const std::string&)> warn_sink);

  const std::string& path() const { return path_; }
  const AlgoChoice* find(const std::string& key) const;
  void store(const std::string& key, AlgoChoice choice);
  // Forgets an entry found stale (its implementation is gone), so that save() drops it.
  void forget(const std::string& key);
  void warn(const std::string& message) const;
  size_t size() const { return entries_.size(); }
  // Writes the file when an entry was stored or forgotten since it was read.
  void save();

  // What a cache must have been made with to be trusted here: this CPU and these versions.
  static std::map<std::string, std::string> environment();

 private:
  std::string path_;
  std::function<void(const std::string&)> warn_;
  std::map<std::string, AlgoChoice> entries_;
  bool may_write_ = true;
  bool changed_ = false;
};

// The configuration of a node as fast-run timed it: the cache's key (with request.threads the
// session's thread count).
std::string algo_key(const kernels::NodeRequest& request);

}  // namespace strata::runtime
