// Small JSON cache files strata keeps between runs (measured machine peaks, fast-run's kernel
// choices): {"format": ..., "version": ..., ...}. A cache is only ever a shortcut, so a bad one is
// never an error: it is ignored with a warning, and replaced when it is ours.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace strata::io {

// What a cache file is and what happens when it is ignored, for the warnings.
struct JsonCacheKind {
  const char* format;  // the "format" string, e.g. "strata-machine-cache"
  int version;
  const char* what;  // "machine cache"
  const char* redo;  // what strata does instead: "re-measuring and replacing it"
  const char* loss;  // what is lost when it cannot be written: "the peaks were measured"
  std::function<void(const std::string&)> warn;  // nullptr: warnings dropped
};

struct JsonCacheFile {
  nlohmann::json body = nlohmann::json::object();  // the whole object; empty when none was read
  bool may_write = true;  // false for another program's file or another version's: left alone
};

// Reads `path`. Absent: empty, silently. Not JSON: empty, a warning, may be replaced. Another
// format or version: empty, a warning, left unchanged.
JsonCacheFile read_json_cache(const std::string& path, const JsonCacheKind& kind);

// Writes `body` (format and version added) through a temporary file and a rename, so a reader
// never sees half a cache; warns when it cannot.
void write_json_cache(const std::string& path, nlohmann::json body, const JsonCacheKind& kind);

}  // namespace strata::io
