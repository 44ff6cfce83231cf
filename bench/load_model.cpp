// Model loading time and memory, one way per process so that the peak RSS is that way's own:
//   protobuf  read the file and parse it whole with protobuf (what loading cost before mapping)
//   analyse   runtime::load_model without reading weights (what `strata analyze` does)
//   run       runtime::load_model reading weights (views of the mapped file), then a Session is
//             prepared and run once: load, prepare and first-run times are printed separately
//   build/bench_load_model MODEL.onnx protobuf|analyse|run [iterations]
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "strata_internal.h"

using namespace strata;

namespace {

// The process's current and peak resident set, in MiB (from /proc/self/status).
double status_mib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atof(line.c_str() + std::strlen(key)) / 1024.0;
  return 0;
}

double protobuf_parse_ms(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) fail("{}: protobuf cannot parse it", path);
  return runtime::elapsed_ms(start);
}

// Inputs with symbolic dims set to 1 and random-free zero data.
std::vector<runtime::InputSpec> input_specs(const ir::Graph& g) {
  std::vector<runtime::InputSpec> specs;
  for (ir::ValueId id : g.inputs) {
    const ir::Value& v = g.values[size_t(id)];
    runtime::InputSpec spec{v.dtype, {}};
    for (int64_t d = 0; d < v.shape.rank(); ++d)
      spec.shape.push_back(v.shape[d].is_static() ? v.shape[d].value() : 1);
    specs.push_back(spec);
  }
  return specs;
}

void print(const char* what, std::vector<double> ms) {
  const profiler::Summary s = profiler::summarize(ms);
  fmt::print("{:<12} median {:8.2f} ms   min {:8.2f} ms   max {:8.2f} ms\n", what, s.median, s.min,
             s.max);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    fmt::print(stderr, "usage: {} MODEL.onnx protobuf|analyse|run [iterations]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const std::string how = argv[2];
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 20;
  const double rss_before = status_mib("VmRSS:");
  std::vector<double> load, prepare, first_run;
  double rss_loaded = 0, rss_prepared = 0, rss_ran = 0;  // after the first iteration's steps
  for (int i = 0; i < iterations; ++i) {
    if (how == "protobuf") {
      load.push_back(protobuf_parse_ms(path));
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    const runtime::Model model = runtime::load_model(path, {.read_weights = how == "run"});
    load.push_back(runtime::elapsed_ms(start));
    if (i == 0) rss_loaded = status_mib("VmRSS:");
    if (how != "run") continue;
    start = std::chrono::steady_clock::now();
    const std::vector<runtime::InputSpec> specs = input_specs(model.graph);
    runtime::Session session(model.graph, specs, {});
    prepare.push_back(runtime::elapsed_ms(start));
    if (i == 0) rss_prepared = status_mib("VmRSS:");
    std::vector<Tensor> inputs;
    std::vector<const Tensor*> pointers;
    for (const runtime::InputSpec& spec : specs)
      inputs.push_back(Tensor::zeros(spec.dtype, spec.shape));
    for (const Tensor& t : inputs) pointers.push_back(&t);
    start = std::chrono::steady_clock::now();
    session.run(pointers);
    first_run.push_back(runtime::elapsed_ms(start));
    if (i == 0) rss_ran = status_mib("VmRSS:");
  }
  fmt::print("{}: {} x {}\n", path, how, iterations);
  print(how == "protobuf" ? "parse" : "load", load);
  if (!prepare.empty()) print("prepare", prepare);
  if (!first_run.empty()) print("first run", first_run);
  fmt::print("RSS before {:.1f} MiB", rss_before);
  if (rss_loaded) fmt::print(", loaded {:.1f} MiB", rss_loaded);
  if (rss_prepared)
    fmt::print(", prepared {:.1f} MiB, after a run {:.1f} MiB", rss_prepared, rss_ran);
  fmt::print(", peak {:.1f} MiB\n", status_mib("VmHWM:"));
  return 0;
} catch (const Error& e) {
  fmt::print(stderr, "{}\n", e.what());
  return int(e.code());
}
