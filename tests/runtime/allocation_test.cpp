// The run loop must not allocate: prepare books every buffer, run only computes.
// Counts calls to the global operator new while a prepared session runs, per node.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <atomic>
#include <cstdlib>
#include <new>

// The replacements below pair malloc with free by design; GCC cannot see that once it inlines
// them, and warns about a mismatch.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<long> g_allocations{0};
std::atomic<bool> g_counting{false};
}  // namespace

// AddressSanitizer owns operator new and checks every delete matches its new; counting is done in
// the normal build only.
#ifndef __SANITIZE_ADDRESS__
#define STRATA_COUNT_ALLOCATIONS 1
void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#endif

namespace strata {
namespace {

// Records the allocations made inside each step, naming the node.
class AllocationHooks : public runtime::RunHooks {
 public:
  explicit AllocationHooks(const runtime::Session& session) : session_(session) {}
  void before_node(size_t) override { before_ = g_allocations; }
  void after_node(size_t step) override {
    const long n = g_allocations - before_;
    const ir::Node& node = session_.graph().nodes[session_.steps()[step].node_index];
    if (n) offenders.push_back(node.op_type + " '" + node.name + "': " + std::to_string(n));
  }
  std::vector<std::string> offenders;

 private:
  const runtime::Session& session_;
  long before_ = 0;
};

TEST(RunLoop, ExampleModelRunsWithoutHeapAllocation) {
#ifndef STRATA_COUNT_ALLOCATIONS
  GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
#endif
  const runtime::Model model =
      runtime::load_model(std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet.onnx");
  Tensor x = Tensor::zeros(DType::kF32, {1, 3, 32, 32});
  runtime::Session session(model.graph, {{DType::kF32, {1, 3, 32, 32}}}, {});
  const std::vector<const Tensor*> inputs = {&x};
  session.run(inputs);  // the first run builds the kernels' cached plans (like a warm-up)
  AllocationHooks hooks(session);
  session.set_hooks(&hooks);
  g_allocations = 0;
  g_counting = true;
  session.run(inputs);
  g_counting = false;
  session.set_hooks(nullptr);
  EXPECT_EQ(session.stats().dynamic_nodes, 0u);
  EXPECT_EQ(g_allocations.load(), 0) << "heap allocations inside Session::run";
  for (const std::string& o : hooks.offenders) ADD_FAILURE() << "allocates while running: " << o;
}

}  // namespace
}  // namespace strata
