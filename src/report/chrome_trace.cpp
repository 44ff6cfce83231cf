#include "report/chrome_trace.h"

#include <algorithm>
#include <set>

#include "io/file.h"
#include "report/node_figures.h"

namespace strata::report {

namespace {

using nlohmann::json;

// A profile comes from one process; the trace names it rather than recording the real pid.
constexpr int kPid = 1;
constexpr double kUsPerMs = 1000;

json complete_event(const std::string& name, const std::string& category, double start_ms,
                    double duration_ms, int thread) {
  return {{"name", name},
          {"cat", category},
          {"ph", "X"},
          {"ts", start_ms * kUsPerMs},
          {"dur", duration_ms * kUsPerMs},
          {"pid", kPid},
          {"tid", thread}};
}

json metadata_event(const char* what, int thread, const std::string& name) {
  json e = {{"name", what}, {"ph", "M"}, {"pid", kPid}, {"args", {{"name", name}}}};
  if (thread >= 0) e["tid"] = thread;
  return e;
}

// What a node's event carries besides its time: the same for every iteration.
json node_args(const profiler::NodeProfile& node) {
  json args = {{"op_type", node.op_type},
               {"kernel", node.kernel},
               {"inputs", node.input_shapes},
               {"outputs", node.output_shapes}};
  if (!node.layout.empty()) args["layout"] = node.layout;
  if (node.has_cost) {
    args["macs"] = node.macs;
    args["flops"] = node.flops;
    args["bytes_read"] = node.bytes_read;
    args["bytes_written"] = node.bytes_written;
  }
  return args;
}

// A node inside a subgraph: one event per call, within its iteration, spanning its own bodies,
// with the types of that call.
void add_body_events(const profiler::Profile& profile, const profiler::NodeProfile& node,
                     const json& args, size_t iterations, json& events) {
  size_t call = 0;
  for (size_t i = 0; i < iterations && i < node.calls_per_iteration.size(); ++i) {
    for (int k = 0; k < node.calls_per_iteration[i]; ++k, ++call) {
      if (call >= node.call_ms.size() || call >= node.call_offsets_ms.size()) return;
      const double body_ms = call < node.call_body_ms.size() ? node.call_body_ms[call] : 0;
      json e = complete_event(node.name, node.op_type,
                              profile.iteration_starts_ms[i] + node.call_offsets_ms[call],
                              node.call_ms[call] + body_ms, node.thread);
      e["args"] = args;
      e["args"]["iteration"] = i + 1;
      e["args"]["call"] = k + 1;
      if (call < node.call_shapes.size() &&
          size_t(node.call_shapes[call]) < node.shape_sets.size()) {
        const profiler::ShapeSet& s = node.shape_sets[size_t(node.call_shapes[call])];
        e["args"]["inputs"] = s.inputs;
        e["args"]["outputs"] = s.outputs;
      }
      events.push_back(std::move(e));
    }
  }
}

}  // namespace

json chrome_trace(const profiler::Profile& profile) {
  json events = json::array();
  events.push_back(metadata_event("process_name", -1, "strata profile: " + profile.model));

  // The run loop's thread: the one that dispatched the graph's nodes.
  int loop_thread = 0;
  for (const profiler::NodeProfile& node : profile.nodes)
    if (!is_user_scope(node)) {
      loop_thread = node.thread;
      break;
    }
  events.push_back(metadata_event("thread_name", loop_thread, "strata run loop"));
  std::set<int> named = {loop_thread};

  const size_t iterations =
      std::min(profile.iterations_ms.size(), profile.iteration_starts_ms.size());
  for (size_t i = 0; i < iterations; ++i) {
    json e = complete_event("iteration " + std::to_string(i + 1), "iteration",
                            profile.iteration_starts_ms[i], profile.iterations_ms[i], loop_thread);
    e["args"] = {{"iteration", i + 1}};
    events.push_back(std::move(e));
  }
  for (const profiler::NodeProfile& node : profile.nodes) {
    if (named.insert(node.thread).second)
      events.push_back(
          metadata_event("thread_name", node.thread, "thread " + std::to_string(node.thread)));
    const json args = is_user_scope(node) ? json::object() : node_args(node);
    if (!node.parent.empty()) {
      add_body_events(profile, node, args, iterations, events);
      continue;
    }
    const size_t samples = std::min(node.samples_ms.size(), node.start_offsets_ms.size());
    for (size_t i = 0; i < samples; ++i) {
      // Nodes are placed within their iteration; scopes are already on the profile's clock.
      double start_ms = node.start_offsets_ms[i];
      if (!is_user_scope(node)) {
        if (i >= iterations) break;
        start_ms += profile.iteration_starts_ms[i];
      }
      // A node with subgraphs spans its bodies' events (which nest under it).
      const double body_ms = i < node.body_ms.size() ? node.body_ms[i] : 0;
      json e = complete_event(node.name, node.op_type, start_ms, node.samples_ms[i] + body_ms,
                              node.thread);
      e["args"] = args;
      if (!is_user_scope(node)) e["args"]["iteration"] = i + 1;
      events.push_back(std::move(e));
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"strata_version", profile.strata_version},
            {"model", profile.model},
            {"threads", profile.threads},
            {"overhead_pct", profile.overhead_pct}}}};
}

void write_chrome_trace(const profiler::Profile& profile, const std::string& path) {
  io::with_path_context(path, [&] {
    const std::string text = chrome_trace(profile).dump() + "\n";
    io::OutputFile out(path);
    out.write(text.data(), text.size());
    out.close();
  });
}

}  // namespace strata::report
