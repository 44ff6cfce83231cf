// The run loop must not allocate: prepare books every buffer, run only computes.
// Counts calls to the global operator new (strata's counting one, src/profiler/alloc_counter.cpp)
// while a prepared session runs, per node.
#include <gtest/gtest.h>

#include "profiler/alloc_counter.h"
#include "strata_internal.h"

namespace strata {
namespace {

// oneDNN's dnnl_primitive_execute builds a std::unordered_map of the arguments and an execution
// context on every call (inside the library; its API has no way around it): measured 8 blocks of
// under 100 bytes each for a five-argument convolution. A step that calls the library may make
// at most this many, this small, per call; anything more would be strata's own doing.
constexpr int64_t kLibraryAllocationsPerCall = 16;
constexpr int64_t kLibraryBytesPerCall = 2048;

// Records, per step, the allocations made and the library calls, naming the node.
class AllocationHooks : public runtime::RunHooks {
 public:
  explicit AllocationHooks(const runtime::Session& session) : session_(session) {}
  void before_node(size_t) override {
    before_ = profiler::heap_count();
    calls_before_ = kernels::library_calls();
  }
  void after_node(size_t step) override {
    const profiler::HeapCount now = profiler::heap_count();
    const int64_t n = now.allocations - before_.allocations, bytes = now.bytes - before_.bytes;
    const int64_t calls = kernels::library_calls() - calls_before_;
    library_calls += calls;
    library_allocations += calls ? n : 0;
    const ir::Node& node = session_.graph().nodes[session_.steps()[step].node_index];
    const std::string who = node.op_type + " '" + node.name + "' (" +
                            session_.steps()[step].kernel + "): " + std::to_string(n) +
                            " allocations, " + std::to_string(bytes) + " bytes, " +
                            std::to_string(calls) + " library calls";
    if (n > kLibraryAllocationsPerCall * calls || bytes > kLibraryBytesPerCall * calls)
      offenders.push_back(who);
  }
  std::vector<std::string> offenders;
  int64_t library_calls = 0, library_allocations = 0;

 private:
  const runtime::Session& session_;
  profiler::HeapCount before_;
  int64_t calls_before_ = 0;
};

// The example CNN, optionally optimised, prepared, warmed up, then run once more under the hooks.
struct CountedRun {
  runtime::Model model;
  std::unique_ptr<runtime::Session> session;  // reads model.graph: declared after it
  std::unique_ptr<AllocationHooks> hooks;
};

std::unique_ptr<CountedRun> run_counted(bool optimize, const runtime::SessionOptions& options) {
  auto r = std::make_unique<CountedRun>();
  r->model = runtime::load_model(std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet.onnx");
  if (optimize) passes::optimize_graph(r->model.graph);
  const Tensor x = Tensor::zeros(DType::kF32, {1, 3, 32, 32});
  r->session = std::make_unique<runtime::Session>(
      r->model.graph, std::vector<runtime::InputSpec>{{DType::kF32, {1, 3, 32, 32}}}, options);
  const std::vector<const Tensor*> inputs = {&x};
  r->session->run(inputs);  // the first run builds the kernels' cached plans (like a warm-up)
  r->hooks = std::make_unique<AllocationHooks>(*r->session);
  r->session->set_hooks(r->hooks.get());
  r->session->run(inputs);
  r->session->set_hooks(nullptr);
  EXPECT_EQ(r->session->stats().dynamic_nodes, 0u);
  return r;
}

TEST(RunLoop, ReferenceKernelsRunWithoutHeapAllocation) {
  if (!profiler::heap_counting_enabled())
    GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  runtime::SessionOptions options;
  options.fast_kernels = false;
  const std::unique_ptr<CountedRun> r = run_counted(false, options);
  EXPECT_EQ(r->hooks->library_calls, 0);
  for (const std::string& o : r->hooks->offenders)
    ADD_FAILURE() << "allocates while running: " << o;
}

TEST(RunLoop, FastKernelsAllocateOnlyInsideTheLibrary) {
  if (!profiler::heap_counting_enabled())
    GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kBlocked}) {
    runtime::SessionOptions options;
    options.layout = layout;
    const std::unique_ptr<CountedRun> r = run_counted(true, options);
    EXPECT_GT(r->session->stats().fast_steps, 0u);
    EXPECT_GT(r->hooks->library_calls, 0);
    for (const std::string& o : r->hooks->offenders)
      ADD_FAILURE() << "allocates beyond the library's own: " << o;
    RecordProperty(
        std::string("library_allocations_per_call_") + kernels::layout_policy_name(layout),
        std::to_string(double(r->hooks->library_allocations) / double(r->hooks->library_calls)));
  }
}

}  // namespace
}  // namespace strata
