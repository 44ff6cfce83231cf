// Profiling your own code around a model: strata::ScopedTimer sections become rows of the same
// profile as the model's nodes (op type "scope"), in the tables and in the trace.
//
//   scoped_timer_example [MODEL.onnx [TRACE.json]]   (default: examples/tiny_resnet.onnx)
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "strata_internal.h"

namespace {

constexpr int kRuns = 5;

// Stand-in for an application's own work: scale the raw input into the model's input.
void normalize(const strata::Tensor& raw, strata::Tensor& dst) {
  strata::ScopedTimer timer("normalize");
  for (int64_t i = 0; i < raw.numel(); ++i)
    dst.data<float>()[i] = (raw.data<float>()[i] - 0.5f) / 0.25f;
}

float top_probability(const strata::Tensor& t) {
  strata::ScopedTimer timer("postprocess");
  float best = -INFINITY;
  for (int64_t i = 0; i < t.numel(); ++i) best = std::max(best, t.data<float>()[i]);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  const std::string path = argc > 1 ? argv[1] : STRATA_SOURCE_DIR "/examples/tiny_resnet.onnx";
  try {
    const runtime::Model model = runtime::load_model(path);
    std::vector<runtime::BoundInput> bound = runtime::bind_inputs(model.graph, {});
    if (bound.size() != 1 || bound[0].tensor.dtype() != DType::kF32)
      fail("{}: this example expects one float32 input", path);
    const Tensor& raw = bound[0].tensor;
    Tensor input = raw.clone();
    runtime::Session session(model.graph, {{input.dtype(), input.shape()}}, {});

    session.run(
        {&input});  // warm-up: the first run pays for one-time set-up (see docs/profiling.md)

    // Record every node of every run, and the scopes of this thread and any other.
    profiler::Collector collector(session.steps().size(), kRuns);
    collector.activate();
    session.set_hooks(&collector);
    float best = 0;
    for (int run = 0; run < kRuns; ++run) {
      ScopedTimer iteration("iteration");
      {
        ScopedTimer preprocess("preprocess");  // "iteration/preprocess"
        normalize(raw, input);                 // "iteration/preprocess/normalize"
      }
      {
        ScopedTimer inference("inference");
        collector.begin_run();
        session.run({&input});
        collector.end_run();
      }
      best = top_probability(session.output(0));  // "iteration/postprocess"
    }
    session.set_hooks(nullptr);
    collector.deactivate();

    profiler::Profile profile = profiler::collected_profile(session, collector);
    profiler::stamp_profile(profile, path);
    profile.machine.cpu = profiler::cpu_model();
    profile.machine.logical_cpus = profiler::logical_cpus();
    report::ViewOptions views;  // the scopes rank among the nodes by time
    views.views = {report::View::kNodes};
    views.top = 8;
    fmt::print("{}\nlast top probability {:.4f}\n", report::render_views(profile, views), best);
    if (argc > 2) report::write_chrome_trace(profile, argv[2]);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "scoped_timer_example: {}\n", e.what());
    return int(e.code());
  }
}
