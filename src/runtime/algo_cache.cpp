#include "runtime/algo_cache.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "io/json_cache.h"
#include "kernels/onednn/version.h"
#include "profiler/machine.h"

namespace strata::runtime {

namespace {

using nlohmann::json;

io::JsonCacheKind cache_kind(const std::function<void(const std::string&)>& warn) {
  return {"strata-algo-cache",     1,   "algo cache", "replaced when --fast-run times new choices",
          "the choices were made", warn};
}

std::string attribute_text(const ir::Attribute& a) {
  using Kind = ir::Attribute::Kind;
  switch (a.kind) {
    case Kind::kFloat: return fmt::format("{}", a.f);
    case Kind::kInt: return fmt::format("{}", a.i);
    case Kind::kString: return json(a.s).dump();
    case Kind::kFloats: return fmt::format("[{}]", fmt::join(a.floats, ","));
    case Kind::kInts: return fmt::format("[{}]", fmt::join(a.ints, ","));
    case Kind::kStrings: return json(a.strings).dump();
    case Kind::kTensor:
      return fmt::format("tensor {}{}", dtype_name(a.t.dtype()), fmt::join(a.t.shape(), "x"));
    case Kind::kGraph: return "graph";
    case Kind::kType: return "type";
    case Kind::kOther: return "?";
  }
  return "?";
}

std::string value_text(const ops::Meta& m, Layout layout) {
  const std::string shape = m.shape.str();
  return fmt::format("{}{} {}{}", dtype_name(m.dtype), shape, layout_name(layout, m.shape.rank()),
                     m.value ? " const" : "");
}

bool valid_entry(const json& e) {
  return e.is_object() && e.contains("family") && e["family"].is_string() &&
         e.contains("implementation") && e["implementation"].is_number_integer() &&
         e["implementation"].get<int>() >= 0 && e.contains("threads") &&
         e["threads"].is_number_integer() && e["threads"].get<int>() >= 1 && e.contains("kernel") &&
         e["kernel"].is_string();
}

}  // namespace

std::map<std::string, std::string> AlgoCache::environment() {
  return {{"cpu", profiler::cpu_model()},
          {"onednn", kernels::onednn::library_version()},
          {"strata", STRATA_VERSION}};
}

AlgoCache::AlgoCache(std::string path, std::function<void(const std::string&)> warn_sink)
    : path_(std::move(path)), warn_(std::move(warn_sink)) {
  const io::JsonCacheFile file = io::read_json_cache(path_, cache_kind(warn_));
  may_write_ = file.may_write;
  if (file.body.empty()) return;
  const json made_with = file.body.value("environment", json());
  const std::map<std::string, std::string> here = environment();
  if (!made_with.is_object() || made_with.get<std::map<std::string, std::string>>() != here) {
    std::vector<std::string> differences;
    for (const auto& [what, value] : here) {
      const json theirs = made_with.is_object() ? made_with.value(what, json()) : json();
      if (theirs != value)
        differences.push_back(fmt::format(
            "{} {} (here {})", what, theirs.is_string() ? theirs.get<std::string>() : "?", value));
    }
    // Not rewritten until fast-run stores new choices: without them its entries would be lost.
    warn(
        fmt::format("{}: the algo cache was timed with {}; its choices are ignored (and replaced "
                    "when --fast-run times new ones)",
                    path_, fmt::join(differences, ", ")));
    return;
  }
  const json entries = file.body.value("entries", json());
  for (auto it = entries.begin(); entries.is_object() && it != entries.end(); ++it) {
    const json& e = it.value();
    if (!valid_entry(e)) {
      warn(fmt::format("{}: the algo cache entry for '{}' is corrupt; ignored", path_, it.key()));
      changed_ = true;
      continue;
    }
    entries_[it.key()] = {e["family"].get<std::string>(),
                          e["implementation"].get<int>(),
                          e["threads"].get<int>(),
                          e["kernel"].get<std::string>(),
                          e.contains("ms") && e["ms"].is_number() ? e["ms"].get<double>() : 0.0,
                          e.contains("reason") && e["reason"].is_string()
                              ? e["reason"].get<std::string>()
                              : std::string()};
  }
}

const AlgoChoice* AlgoCache::find(const std::string& key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void AlgoCache::store(const std::string& key, AlgoChoice choice) {
  entries_[key] = std::move(choice);
  changed_ = true;
}

void AlgoCache::forget(const std::string& key) {
  changed_ = entries_.erase(key) > 0 || changed_;
}

void AlgoCache::warn(const std::string& message) const {
  if (warn_) warn_(message);
}

void AlgoCache::save() {
  if (!changed_ || !may_write_) return;
  json entries = json::object();
  for (const auto& [key, c] : entries_)
    entries[key] = {{"family", c.family},   {"implementation", c.implementation},
                    {"threads", c.threads}, {"kernel", c.kernel},
                    {"ms", c.ms},           {"reason", c.reason}};
  io::write_json_cache(path_, {{"environment", environment()}, {"entries", entries}},
                       cache_kind(warn_));
  changed_ = false;
}

std::string algo_key(const kernels::NodeRequest& r) {
  std::vector<std::string> attributes;
  for (const auto& [name, a] : r.node.attributes)
    attributes.push_back(name + "=" + attribute_text(a));
  std::vector<std::string> inputs, outputs;
  for (size_t i = 0; i < r.inputs.size(); ++i)
    inputs.push_back(r.has_input(i) ? value_text(r.input(i), r.input_layouts[i]) : "none");
  for (size_t j = 0; j < r.outputs.size(); ++j)
    outputs.push_back(value_text(r.output(j), Layout::kPlain) +
                      (r.output_needs_plain[j] ? " plain" : " any"));
  return fmt::format("{}{}{}({}) in {} out {} layouts {} threads {}", r.node.domain,
                     r.node.domain.empty() ? "" : ".", r.node.op_type, fmt::join(attributes, " "),
                     fmt::join(inputs, ", "), fmt::join(outputs, ", "),
                     kernels::layout_policy_name(r.layout_policy), r.threads);
}

}  // namespace strata::runtime
