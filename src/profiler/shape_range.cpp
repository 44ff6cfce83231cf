#include "profiler/shape_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace strata::profiler {

namespace {

struct ParsedType {
  std::string dtype;
  std::vector<int64_t> dims;
};

// "float32[1,3,224,224]" (or "float32[]"); nullopt for anything else (sequences, optionals).
std::optional<ParsedType> parse_type(const std::string& type) {
  const size_t open = type.find('[');
  if (open == std::string::npos || type.back() != ']') return std::nullopt;
  ParsedType p;
  p.dtype = type.substr(0, open);
  const std::string dims = type.substr(open + 1, type.size() - open - 2);
  size_t begin = 0;
  while (begin < dims.size()) {
    size_t end = dims.find(',', begin);
    if (end == std::string::npos) end = dims.size();
    const std::string dim = dims.substr(begin, end - begin);
    if (dim.empty() ||
        !std::all_of(dim.begin(), dim.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    p.dims.push_back(std::strtoll(dim.c_str(), nullptr, 10));
    begin = end + 1;
  }
  return p;
}

std::string distinct_types(const std::vector<std::string>& types) {
  std::vector<std::string> seen;
  for (const std::string& t : types)
    if (std::find(seen.begin(), seen.end(), t) == seen.end()) seen.push_back(t);
  return fmt::format("{}", fmt::join(seen, " | "));
}

}  // namespace

std::string shape_range(const std::vector<std::string>& types) {
  if (types.empty()) return "";
  std::vector<ParsedType> parsed;
  for (const std::string& t : types) {
    std::optional<ParsedType> p = parse_type(t);
    if (!p || (!parsed.empty() &&
               (p->dtype != parsed[0].dtype || p->dims.size() != parsed[0].dims.size())))
      return distinct_types(types);
    parsed.push_back(std::move(*p));
  }
  std::vector<std::string> dims;
  for (size_t d = 0; d < parsed[0].dims.size(); ++d) {
    int64_t lo = parsed[0].dims[d], hi = lo;
    for (const ParsedType& p : parsed) {
      lo = std::min(lo, p.dims[d]);
      hi = std::max(hi, p.dims[d]);
    }
    dims.push_back(lo == hi ? fmt::format("{}", lo) : fmt::format("{}..{}", lo, hi));
  }
  return fmt::format("{}[{}]", parsed[0].dtype, fmt::join(dims, ","));
}

}  // namespace strata::profiler
