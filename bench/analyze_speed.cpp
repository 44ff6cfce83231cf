// Speed of `strata analyze`'s analysis (after load) against ONNX's own C++ shape inference
// (onnx::shape_inference::InferShapes, libonnx) on the same graph with the weights stripped,
// measured in the same run, alternating, each repeated many times:
//   build/bench_analyze_speed MODEL.onnx [repetitions] [--dim N=8 ...] [--no-formulas]
//                             [--strata-only | --onnx-only] [--no-settle]
// (--strata-only or --onnx-only time one side alone, for profiling it with perf.)
// strata: onnx_import::load_model without weights once, then analyzer::analyze (shape and cost
// rules, liveness, arena, backward estimates, and the formulas in the symbolic dims) per rep.
// ONNX: the ModelProto with every initializer's data removed (dims and type kept); each rep infers
// shapes on a fresh copy (the copy is not timed). Before each timed call the heap is settled (see
// settle_heap), so that neither side pays for freeing the other's blocks. Both wall time and the
// thread's CPU time are recorded: on a shared machine the CPU time is the steadier figure (it
// leaves out the time the thread waited for a core).
#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

#include "strata_internal.h"

using namespace strata;

namespace {

long minor_faults() {
  rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

double thread_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// Each side frees thousands of small blocks after its timed call (the analysis, the ModelProto
// copy), which glibc keeps in its fast bins; the next allocation of a large block merges them all
// (malloc_consolidate), and whichever side runs next would pay for the other's frees. One such
// allocation before each timed call (not timed) gives both sides the same, settled heap.
void settle_heap() {
  constexpr size_t kLargeRequest = 4096;  // beyond the small bins: malloc consolidates first
  void* volatile block = std::malloc(kLargeRequest);
  std::free(block);
}

onnx::ModelProto stripped_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) fail("{}: protobuf cannot parse it", path);
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_int32_data();
    t.clear_int64_data();
    t.clear_double_data();
    t.clear_uint64_data();
  }
  return model;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    fmt::print(stderr, "usage: {} MODEL.onnx [repetitions] [--dim N=8 ...]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  int reps = 200;
  bool strata_only = false, onnx_only = false, settle = true;
  analyzer::AnalyzeOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dim" && i + 1 < argc) {
      const std::string d = argv[++i];
      const size_t eq = d.find('=');
      if (eq == std::string::npos) fail("--dim {}: expected NAME=SIZE", d);
      options.dims[d.substr(0, eq)] = std::atoll(d.c_str() + eq + 1);
    } else if (arg == "--no-formulas") {
      options.formulas = false;  // one evaluation at the --dim sizes (what a profiler join needs)
    } else if (arg == "--strata-only") {
      strata_only = true;
    } else if (arg == "--onnx-only") {
      onnx_only = true;
    } else if (arg == "--no-settle") {
      settle = false;  // the heap as the other side left it (how this was first measured)
    } else {
      reps = std::atoi(arg.c_str());
    }
  }

  const ir::Graph graph = onnx_import::load_model(path, {.read_weights = false}).graph;
  const onnx::ModelProto stripped = strata_only ? onnx::ModelProto() : stripped_model(path);

  std::vector<double> strata_ms, onnx_ms, strata_cpu, onnx_cpu;
  long strata_faults = 0, onnx_faults = 0;
  size_t evaluations = 0;
  for (int r = 0; r < reps + 1; ++r) {  // the first round warms up and is dropped
    if (settle) settle_heap();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu_ms();
    long f0 = minor_faults();
    if (!onnx_only) {
      const analyzer::Analysis a = analyzer::analyze(graph, options);
      if (r > 0) strata_faults += minor_faults() - f0;
      const double s = runtime::elapsed_ms(t0), s_cpu = thread_cpu_ms() - c0;
      evaluations = size_t(a.evaluations);
      if (r > 0) strata_ms.push_back(s), strata_cpu.push_back(s_cpu);
    }
    if (strata_only) continue;

    onnx::ModelProto copy = stripped;
    if (settle) settle_heap();
    t0 = std::chrono::steady_clock::now();
    c0 = thread_cpu_ms();
    f0 = minor_faults();
    onnx::shape_inference::InferShapes(copy);
    if (r > 0) onnx_faults += minor_faults() - f0;
    const double o = runtime::elapsed_ms(t0), o_cpu = thread_cpu_ms() - c0;
    if (r > 0) onnx_ms.push_back(o), onnx_cpu.push_back(o_cpu);
  }
  fmt::print("model        {} ({} nodes, {} evaluations of the graph per analysis, {} reps)\n",
             path, graph.nodes.size(), evaluations, reps);
  auto line = [](const char* who, const std::vector<double>& wall, const std::vector<double>& cpu) {
    const profiler::Summary w = profiler::summarize(wall), c = profiler::summarize(cpu);
    fmt::print(
        "{:<12} wall median {:8.3f} ms  min {:8.3f}  p90 {:8.3f}  |  cpu median {:8.3f} ms  "
        "min {:8.3f}\n",
        who, w.median, w.min, w.p90, c.median, c.min);
  };
  fmt::print("page faults  per rep: strata {:.0f}, onnx {:.0f}\n", double(strata_faults) / reps,
             double(onnx_faults) / reps);
  if (!onnx_only) line("strata", strata_ms, strata_cpu);
  if (strata_only) return 0;
  line("onnx C++", onnx_ms, onnx_cpu);
  if (onnx_only) return 0;
  const double wall = profiler::summarize(strata_ms).median / profiler::summarize(onnx_ms).median;
  const double cpu = profiler::summarize(strata_cpu).median / profiler::summarize(onnx_cpu).median;
  fmt::print(
      "ratio        strata / onnx: wall {:.2f}, cpu {:.2f} (medians; < 1: strata is faster)\n",
      wall, cpu);
  return 0;
} catch (const Error& e) {
  fmt::print(stderr, "error: {}\n", e.what());
  return 2;
}
