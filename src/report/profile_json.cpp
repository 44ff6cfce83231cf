#include "report/profile_json.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "io/file.h"
#include "report/node_figures.h"
#include "report/summary_json.h"

namespace strata::report {

namespace {

using nlohmann::json;
using profiler::NodeProfile;
using profiler::Profile;

constexpr int64_t kMaxProfileBytes = int64_t(1) << 30;  // profiles of huge models stay far below

json or_null(double value, bool known) {
  return known ? json(value) : json(nullptr);
}

// Control-flow fields: written only for the rows that have them (profiles without control flow
// read as before).
void add_control_flow(json& j, const NodeProfile& n) {
  if (!n.body_ms.empty()) j["body_ms"] = n.body_ms;
  if (n.parent.empty()) return;
  j["parent"] = n.parent;
  j["calls_per_iteration"] = n.calls_per_iteration;
  j["call_ms"] = n.call_ms;
  j["call_offsets_ms"] = n.call_offsets_ms;
  if (!n.call_body_ms.empty()) j["call_body_ms"] = n.call_body_ms;
  j["call_shapes"] = n.call_shapes;
  json sets = json::array();
  for (const profiler::ShapeSet& s : n.shape_sets)
    sets.push_back({{"inputs", s.inputs}, {"outputs", s.outputs}});
  j["shape_sets"] = std::move(sets);
}

json node_json(const NodeProfile& n, const profiler::MachineInfo& machine) {
  const NodeFigures f = node_figures(n, machine);
  json j = {
      {"name", n.name},
      {"op_type", n.op_type},
      {"kernel", n.kernel},
      {"kernel_reason", n.kernel_reason},
      {"run_note", n.run_note},
      {"layout", n.layout},
      {"thread", n.thread},
      {"input_shapes", n.input_shapes},
      {"output_shapes", n.output_shapes},
      {"macs", or_null(n.macs, n.has_cost)},
      {"flops", or_null(n.flops, n.has_cost)},
      {"bytes_read", or_null(n.bytes_read, n.has_cost)},
      {"bytes_written", or_null(n.bytes_written, n.has_cost)},
      {"predicted_output_bytes", n.predicted_output_bytes},
      {"samples_ms", n.samples_ms},
      {"start_offsets_ms", n.start_offsets_ms},
      {"first_run_ms", n.first_run_ms},
      {"isolated_median_ms", or_null(n.isolated_median_ms, n.isolated_median_ms >= 0)},
      {"heap_allocations", n.heap_allocations},
      {"heap_bytes", n.heap_bytes},
      {"arena_bytes", n.arena_bytes},
      {"arena_live_bytes", n.arena_live_bytes},
      // Derived.
      {"calls", f.calls},
      {"total_ms", f.total_ms},
      {"median_ms", f.time.median},
      {"mean_ms", f.time.mean},
      {"min_ms", f.time.min},
      {"max_ms", f.time.max},
      {"sd_ms", f.time.sd},
      {"gflops", or_null(f.gflops, f.gflops >= 0)},
      {"gbps", or_null(f.gbps, f.gbps >= 0)},
      {"pct_of_peak", or_null(f.pct_of_peak, f.pct_of_peak >= 0)},
      {"bound", f.bound == Bound::kUnknown ? json(nullptr) : json(bound_name(f.bound))},
  };
  add_control_flow(j, n);
  return j;
}

// Reads the fields of one JSON object, naming each field by its full path in errors.
class FieldReader {
 public:
  FieldReader(const json& object, std::string prefix)
      : object_(object), prefix_(std::move(prefix)) {}

  std::string name(const std::string& key) const { return prefix_ + key; }

  // The value, or nullptr when the field is absent (fails if required).
  const json* find(const std::string& key, bool required) const {
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) fail("field '{}' is missing", name(key));
      return nullptr;
    }
    return &*it;
  }

  std::string string(const std::string& key, bool required = false) const {
    const json* v = find(key, required);
    if (!v) return "";
    if (!v->is_string()) mistyped(key, "a string", *v);
    return v->get<std::string>();
  }

  int64_t integer(const std::string& key, bool required = false, int64_t min = 0) const {
    const json* v = find(key, required);
    if (!v) return 0;
    if (!v->is_number_integer()) mistyped(key, "an integer", *v);
    const int64_t value = v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX)
                              ? INT64_MAX
                              : v->get<int64_t>();
    if (value < min) fail("field '{}' is {}, below its minimum {}", name(key), value, min);
    return value;
  }

  int int32(const std::string& key, bool required = false, int min = 0) const {
    const int64_t value = integer(key, required, min);
    if (value > std::numeric_limits<int>::max())
      fail("field '{}' is {}, too large", name(key), value);
    return int(value);
  }

  // A finite number; `min` bounds it below (times and counts are never negative).
  double number(const std::string& key, bool required = false,
                double min = -std::numeric_limits<double>::infinity(), double fallback = 0) const {
    const json* v = find(key, required);
    if (!v) return fallback;
    return checked_number(*v, name(key), min);
  }

  // A number, or null / absent for "unknown" (returns `unknown` then).
  double number_or_null(const std::string& key, double unknown, double min) const {
    const json* v = find(key, false);
    if (!v || v->is_null()) return unknown;
    return checked_number(*v, name(key), min);
  }

  std::vector<double> numbers(const std::string& key, bool required = false, double min = 0) const {
    std::vector<double> out;
    const json* v = find(key, required);
    if (!v) return out;
    if (!v->is_array()) mistyped(key, "an array of numbers", *v);
    out.reserve(v->size());
    for (size_t i = 0; i < v->size(); ++i)
      out.push_back(checked_number((*v)[i], fmt::format("{}[{}]", name(key), i), min));
    return out;
  }

  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    const json* v = find(key, false);
    if (!v) return out;
    if (!v->is_array()) mistyped(key, "an array of strings", *v);
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string())
        fail("field '{}[{}]' should be a string, not {}", name(key), i, kind_of((*v)[i]));
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
  }

  bool boolean(const std::string& key, bool fallback) const {
    const json* v = find(key, false);
    if (!v) return fallback;
    if (!v->is_boolean()) mistyped(key, "true or false", *v);
    return v->get<bool>();
  }

  const json& object(const std::string& key, bool required = false) const {
    static const json kEmpty = json::object();
    const json* v = find(key, required);
    if (!v) return kEmpty;
    if (!v->is_object()) mistyped(key, "an object", *v);
    return *v;
  }

  const json& array(const std::string& key, bool required = false) const {
    static const json kEmpty = json::array();
    const json* v = find(key, required);
    if (!v) return kEmpty;
    if (!v->is_array()) mistyped(key, "an array", *v);
    return *v;
  }

  static const char* kind_of(const json& v) {
    switch (v.type()) {
      case json::value_t::array: return "an array";
      case json::value_t::object: return "an object";
      case json::value_t::string: return "a string";
      case json::value_t::null: return "null";
      case json::value_t::boolean: return "a boolean";
      default: return "a number";
    }
  }

 private:
  [[noreturn]] void mistyped(const std::string& key, const char* expected, const json& v) const {
    fail("field '{}' should be {}, not {}", name(key), expected, kind_of(v));
  }

  static double checked_number(const json& v, const std::string& field, double min) {
    if (!v.is_number()) fail("field '{}' should be a number, not {}", field, kind_of(v));
    const double value = v.get<double>();
    if (!std::isfinite(value) || value < min)
      fail("field '{}' is {}, {}", field, value,
           min == 0 ? "but cannot be negative" : fmt::format("below its minimum {}", min));
    return value;
  }

  const json& object_;
  std::string prefix_;
};

std::vector<int> counts(const FieldReader& r, const std::string& key) {
  std::vector<int> out;
  for (double v : r.numbers(key)) {
    if (v != std::floor(v) || v > std::numeric_limits<int>::max())
      fail("field '{}' should hold whole numbers, not {}", r.name(key), v);
    out.push_back(int(v));
  }
  return out;
}

// The control-flow fields (absent in profiles before them, and for rows without control flow),
// checked against each other so that views can index them.
void read_control_flow(const FieldReader& r, NodeProfile& n) {
  n.body_ms = r.numbers("body_ms");
  if (!n.body_ms.empty() && n.body_ms.size() != n.samples_ms.size())
    fail("field '{}' has {} values but samples_ms has {}", r.name("body_ms"), n.body_ms.size(),
         n.samples_ms.size());
  n.parent = r.string("parent");
  if (n.parent.empty()) return;
  n.calls_per_iteration = counts(r, "calls_per_iteration");
  n.call_ms = r.numbers("call_ms");
  n.call_offsets_ms = r.numbers("call_offsets_ms");
  n.call_body_ms = r.numbers("call_body_ms");
  n.call_shapes = counts(r, "call_shapes");
  const json& sets = r.array("shape_sets");
  for (size_t i = 0; i < sets.size(); ++i) {
    const std::string prefix = r.name(fmt::format("shape_sets[{}]", i));
    if (!sets[i].is_object())
      fail("field '{}' should be an object, not {}", prefix, FieldReader::kind_of(sets[i]));
    const FieldReader s(sets[i], prefix + ".");
    n.shape_sets.push_back({s.strings("inputs"), s.strings("outputs")});
  }
  int64_t calls = 0;
  for (int c : n.calls_per_iteration) calls += c;
  if (n.calls_per_iteration.size() != n.samples_ms.size())
    fail("field '{}' has {} values but samples_ms has {}", r.name("calls_per_iteration"),
         n.calls_per_iteration.size(), n.samples_ms.size());
  const auto check_per_call = [&](const char* key, size_t size, bool optional) {
    if (size != size_t(calls) && !(optional && size == 0))
      fail("field '{}' has {} values but calls_per_iteration adds up to {}", r.name(key), size,
           calls);
  };
  check_per_call("call_ms", n.call_ms.size(), false);
  check_per_call("call_offsets_ms", n.call_offsets_ms.size(), false);
  check_per_call("call_body_ms", n.call_body_ms.size(), true);
  check_per_call("call_shapes", n.call_shapes.size(), false);
  for (int k : n.call_shapes)
    if (k >= int(n.shape_sets.size()))
      fail("field '{}' refers to shape set {}, but shape_sets has {}", r.name("call_shapes"), k,
           n.shape_sets.size());
}

NodeProfile node_from_json(const json& j, size_t index) {
  const std::string prefix = fmt::format("nodes[{}]", index);
  if (!j.is_object())
    fail("field '{}' should be an object, not {}", prefix, FieldReader::kind_of(j));
  const FieldReader r(j, prefix + ".");
  NodeProfile n;
  n.name = r.string("name", true);
  n.op_type = r.string("op_type", true);
  n.kernel = r.string("kernel", true);
  n.kernel_reason = r.string("kernel_reason");
  n.run_note = r.string("run_note");
  n.layout = r.string("layout");
  n.thread = r.int32("thread");
  n.input_shapes = r.strings("input_shapes");
  n.output_shapes = r.strings("output_shapes");
  // The cost is all four figures or none (null or absent: the op has no cost rule).
  const char* cost_keys[] = {"macs", "flops", "bytes_read", "bytes_written"};
  double* cost_values[] = {&n.macs, &n.flops, &n.bytes_read, &n.bytes_written};
  int known = 0;
  for (int k = 0; k < 4; ++k) {
    *cost_values[k] = r.number_or_null(cost_keys[k], -1, 0);
    known += *cost_values[k] >= 0;
  }
  if (known != 0 && known != 4)
    fail("field '{}macs/flops/bytes_read/bytes_written' must be all numbers or all null",
         prefix + ".");
  n.has_cost = known == 4;
  if (!n.has_cost) n.macs = n.flops = n.bytes_read = n.bytes_written = 0;
  n.predicted_output_bytes = r.number("predicted_output_bytes", false, 0);
  n.samples_ms = r.numbers("samples_ms", true);
  n.start_offsets_ms = r.numbers("start_offsets_ms");
  n.first_run_ms = r.number("first_run_ms", false, 0);
  n.isolated_median_ms = r.number_or_null("isolated_median_ms", -1, 0);
  n.heap_allocations = r.integer("heap_allocations");
  n.heap_bytes = r.integer("heap_bytes");
  n.arena_bytes = r.integer("arena_bytes");
  n.arena_live_bytes = r.integer("arena_live_bytes");  // absent in profiles before it: 0
  read_control_flow(r, n);
  return n;
}

}  // namespace

json profile_to_json(const Profile& p) {
  const RunFigures run = run_figures(p);
  json nodes = json::array();
  for (const NodeProfile& n : p.nodes) nodes.push_back(node_json(n, p.machine));
  return {
      {"schema_version", p.schema_version},
      {"strata_version", p.strata_version},
      {"created", p.created},
      {"model", p.model},
      {"model_sha256", p.model_sha256},
      {"machine",
       {{"cpu", p.machine.cpu},
        {"logical_cpus", p.machine.logical_cpus},
        {"peak_gflops", p.machine.peak_gflops},
        {"peak_gbps", p.machine.peak_gbps},
        {"peaks_source", p.machine.peaks_source},
        {"isa", p.machine.isa},
        {"peak_int8_gops", p.machine.peak_int8_gops},
        {"int8_isa", p.machine.int8_isa}}},
      {"libraries", p.libraries},
      {"options", p.options},
      {"threads", p.threads},
      {"warmup", p.warmup},
      {"load_ms", p.load_ms},
      {"prepare_ms", p.prepare_ms},
      {"first_iteration_ms", p.first_iteration_ms},
      {"iterations_ms", p.iterations_ms},
      {"iteration_starts_ms", p.iteration_starts_ms},
      {"latency_ms", summary_json(run.latency)},
      {"throughput_per_s", run.throughput_per_s},
      {"unprofiled_ms", p.unprofiled_ms},
      {"unprofiled_latency_ms", summary_json(run.unprofiled)},
      {"overhead_pct", p.overhead_pct},
      {"sum_node_medians_ms", run.sum_node_medians_ms},
      {"outside_operators_ms", run.outside_operators_ms},
      {"process_cpu_pct", or_null(p.process_cpu_pct, p.process_cpu_pct >= 0)},
      {"system_cpu_pct", or_null(p.system_cpu_pct, p.system_cpu_pct >= 0)},
      {"peak_rss_bytes", p.peak_rss_bytes},
      {"arena_bytes", p.arena_bytes},
      {"predicted_peak_activation_bytes",
       or_null(p.predicted_peak_activation_bytes, p.predicted_peak_activation_bytes >= 0)},
      {"heap_counted", p.heap_counted},
      {"nodes", nodes},
  };
}

Profile profile_from_json(const json& j) {
  if (!j.is_object())
    fail("a profile is a JSON object, not {} (is this a strata profile?)", FieldReader::kind_of(j));
  const FieldReader r(j, "");
  if (!j.contains("schema_version"))
    fail(
        "field 'schema_version' is missing (is this a strata profile, written by strata profile "
        "-o?)");
  Profile p;
  p.schema_version = r.int32("schema_version", true, 1);
  if (p.schema_version > profiler::kProfileSchemaVersion)
    fail("schema_version {} is newer than this strata reads ({}); use a newer strata",
         p.schema_version, profiler::kProfileSchemaVersion);
  p.strata_version = r.string("strata_version", true);
  p.created = r.string("created");
  p.model = r.string("model", true);
  p.model_sha256 = r.string("model_sha256");
  const FieldReader machine(r.object("machine"), "machine.");
  p.machine.cpu = machine.string("cpu");
  p.machine.logical_cpus = machine.int32("logical_cpus");
  p.machine.peak_gflops = machine.number("peak_gflops", false, 0);
  p.machine.peak_gbps = machine.number("peak_gbps", false, 0);
  p.machine.peaks_source = machine.string("peaks_source");
  p.machine.isa = machine.string("isa");
  p.machine.peak_int8_gops = machine.number("peak_int8_gops", false, 0);
  p.machine.int8_isa = machine.string("int8_isa");
  const json& libraries = r.object("libraries");
  const FieldReader libs(libraries, "libraries.");
  for (auto it = libraries.begin(); it != libraries.end(); ++it)
    p.libraries[it.key()] = libs.string(it.key());
  p.options = r.string("options");
  p.threads = r.int32("threads", true, 1);
  p.warmup = r.int32("warmup");
  p.load_ms = r.number("load_ms", false, 0);
  p.prepare_ms = r.number("prepare_ms", false, 0);
  p.first_iteration_ms = r.number("first_iteration_ms", false, 0);
  p.iterations_ms = r.numbers("iterations_ms", true);
  p.iteration_starts_ms = r.numbers("iteration_starts_ms");
  p.unprofiled_ms = r.numbers("unprofiled_ms");
  p.overhead_pct = r.number("overhead_pct");
  p.process_cpu_pct = r.number_or_null("process_cpu_pct", -1, 0);
  p.system_cpu_pct = r.number_or_null("system_cpu_pct", -1, 0);
  p.peak_rss_bytes = r.integer("peak_rss_bytes");
  p.arena_bytes = r.integer("arena_bytes");
  p.predicted_peak_activation_bytes = r.number_or_null("predicted_peak_activation_bytes", -1, 0);
  p.heap_counted = r.boolean("heap_counted", true);
  const json& nodes = r.array("nodes", true);
  p.nodes.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) p.nodes.push_back(node_from_json(nodes[i], i));
  return p;
}

void write_profile(const Profile& profile, const std::string& path) {
  io::with_path_context(path, [&] {
    const std::string text = profile_to_json(profile).dump(2) + "\n";
    io::OutputFile out(path);
    out.write(text.data(), text.size());
    out.close();
  });
}

Profile read_profile(const std::string& path) {
  return io::with_path_context(path, [&] {
    io::InputFile in(path);
    const std::string text = in.read_rest(kMaxProfileBytes);
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      // nlohmann's message after its "[json.exception.parse_error.101] " tag.
      std::string message = e.what();
      if (const size_t tag_end = message.find("] "); tag_end != std::string::npos)
        message.erase(0, tag_end + 2);
      fail("not a JSON file ({})", message);
    }
    return profile_from_json(j);
  });
}

}  // namespace strata::report
