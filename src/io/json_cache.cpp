#include "io/json_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file.h"

namespace strata::io {

namespace {
void warn_if(const JsonCacheKind& kind, const std::string& message) {
  if (kind.warn) kind.warn(message);
}
}  // namespace

JsonCacheFile read_json_cache(const std::string& path, const JsonCacheKind& kind) {
  using nlohmann::json;
  JsonCacheFile cache;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return cache;
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::exception&) {
    warn_if(kind,
            fmt::format("{}: the {} is not valid JSON; ignored ({})", path, kind.what, kind.redo));
    return cache;
  }
  if (!j.is_object() || j.value("format", json()) != kind.format) {
    warn_if(kind, fmt::format("{}: not a strata {} (no \"format\": \"{}\"); ignored and left "
                              "unchanged",
                              path, kind.what, kind.format));
    cache.may_write = false;
    return cache;
  }
  if (j.value("version", json()) != kind.version) {
    warn_if(kind, fmt::format("{}: {} version {} is not the version {} this strata reads; ignored "
                              "and left unchanged",
                              path, kind.what, j.value("version", json()).dump(), kind.version));
    cache.may_write = false;
    return cache;
  }
  cache.body = std::move(j);
  return cache;
}

void write_json_cache(const std::string& path, nlohmann::json body, const JsonCacheKind& kind) {
  body["format"] = kind.format;
  body["version"] = kind.version;
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  try {
    write_file(path, body.dump(2) + "\n");
  } catch (const Error& e) {
    warn_if(kind, fmt::format("{} ({}); {} but not saved", e.what(), kind.what, kind.loss));
  }
}

}  // namespace strata::io
