// The collector: one event per node per run, in order and inside its run; allocations attributed
// to the node that made them; rows built from the events.
#include "profiler/collector.h"

#include <gtest/gtest.h>

#include <thread>

#include "profiler/alloc_counter.h"
#include "profiler/collected_profile.h"
#include "profiler/profiler_test_model.h"

namespace strata::test {
namespace {

using profiler::Collector;
using profiler::NodeEvent;

TEST(Collector, RecordsEveryNodeOfEveryRunInOrder) {
  ProfilerTestSession t;
  const size_t steps = t.session.steps().size();
  ASSERT_EQ(steps, 3u);
  Collector collector(steps, 3);
  t.session.set_hooks(&collector);
  for (int r = 0; r < 3; ++r) {
    collector.begin_run();
    t.session.run(t.inputs);
    collector.end_run();
  }
  t.session.set_hooks(nullptr);
  EXPECT_EQ(t.y(), ProfilerTestSession::expected_y());
  ASSERT_EQ(collector.num_runs(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    int64_t previous_end = collector.run_start_ns(r);
    for (size_t s = 0; s < steps; ++s) {
      const NodeEvent e = collector.event(r, s);
      EXPECT_GE(e.start_ns, previous_end) << "run " << r << " step " << s;
      EXPECT_GE(e.end_ns, e.start_ns);
      EXPECT_EQ(e.thread, profiler::current_thread_id());
      previous_end = e.end_ns;
    }
    EXPECT_LE(previous_end, collector.run_end_ns(r));
    if (r > 0) {
      EXPECT_GE(collector.run_start_ns(r), collector.run_end_ns(r - 1));
    }
  }
}

TEST(Collector, IgnoresRunsOutsideBeginAndEnd) {
  ProfilerTestSession t;
  Collector collector(t.session.steps().size(), 1);
  t.session.set_hooks(&collector);
  t.session.run(t.inputs);  // not bracketed: not recorded
  EXPECT_EQ(collector.num_runs(), 0u);
  collector.begin_run();
  t.session.run(t.inputs);
  collector.end_run();
  EXPECT_EQ(collector.num_runs(), 1u);
  EXPECT_THROW(collector.begin_run(), Error);  // sized for one run
  // Room added between runs (a --duration whose warm-up underestimated the pace) keeps the
  // runs recorded so far.
  const NodeEvent first = collector.event(0, 0);
  collector.add_room(2);
  for (int r = 0; r < 2; ++r) {
    collector.begin_run();
    t.session.run(t.inputs);
    collector.end_run();
  }
  EXPECT_EQ(collector.num_runs(), 3u);
  EXPECT_EQ(collector.event(0, 0).start_ns, first.start_ns);
  EXPECT_GE(collector.run_start_ns(2), collector.run_end_ns(1));
  EXPECT_THROW(collector.begin_run(), Error);
  t.session.set_hooks(nullptr);
}

TEST(Collector, AttributesHeapAllocationsToTheNodeThatMadeThem) {
  if (!profiler::heap_counting_enabled())
    GTEST_SKIP() << "no allocation counting under a sanitizer (it owns operator new)";
  Collector collector(2, 1);
  collector.begin_run();
  collector.before_node(0);
  // Direct calls: compilers may elide new-expressions whose result is unused, not these.
  void* a = ::operator new(4000);
  void* b = ::operator new(24);
  collector.after_node(0);
  ::operator delete(a);
  ::operator delete(b);
  collector.before_node(1);
  collector.after_node(1);
  collector.end_run();
  EXPECT_EQ(collector.event(0, 0).heap_allocations, 2);
  EXPECT_EQ(collector.event(0, 0).heap_bytes, 4000 + 24);
  EXPECT_EQ(collector.event(0, 1).heap_allocations, 0);
  EXPECT_EQ(collector.event(0, 1).heap_bytes, 0);
}

TEST(Collector, CountsAllocationsMadeByOtherThreads) {
  if (!profiler::heap_counting_enabled())
    GTEST_SKIP() << "no allocation counting under a sanitizer (it owns operator new)";
  const profiler::HeapCount before = profiler::heap_count();
  // A direct call: compilers may elide a new-expression whose result is unused, not this.
  std::thread worker([] { ::operator delete(::operator new(4096)); });
  worker.join();
  const profiler::HeapCount after = profiler::heap_count();
  // The thread's own bookkeeping may allocate too; the 4 KiB buffer is there at least.
  EXPECT_GE(after.allocations - before.allocations, 1);
  EXPECT_GE(after.bytes - before.bytes, 4096);
}

TEST(CollectedProfile, OneRowPerStepWithASamplePerRun) {
  runtime::SessionOptions reference_only;  // fast kernels may allocate inside their library
  reference_only.fast_kernels = false;
  ProfilerTestSession t(reference_only);
  t.session.run(t.inputs);  // kernels build their cached plans on the first run
  Collector collector(t.session.steps().size(), 4);
  t.session.set_hooks(&collector);
  for (int r = 0; r < 4; ++r) {
    collector.begin_run();
    t.session.run(t.inputs);
    collector.end_run();
  }
  t.session.set_hooks(nullptr);
  const profiler::Profile p = profiler::collected_profile(t.session, collector);
  ASSERT_EQ(p.iterations_ms.size(), 4u);
  ASSERT_EQ(p.iteration_starts_ms.size(), 4u);
  ASSERT_EQ(p.nodes.size(), 3u);
  EXPECT_EQ(p.heap_counted, profiler::heap_counting_enabled());
  for (size_t r = 1; r < 4; ++r)
    EXPECT_GE(p.iteration_starts_ms[r], p.iteration_starts_ms[r - 1] + p.iterations_ms[r - 1]);
  for (const profiler::NodeProfile& n : p.nodes) {
    ASSERT_EQ(n.samples_ms.size(), 4u) << n.name;
    ASSERT_EQ(n.start_offsets_ms.size(), 4u) << n.name;
    for (size_t r = 0; r < 4; ++r) {
      EXPECT_GE(n.samples_ms[r], 0) << n.name;
      EXPECT_GE(n.start_offsets_ms[r], 0) << n.name;
      EXPECT_LE(n.start_offsets_ms[r] + n.samples_ms[r], p.iterations_ms[r]) << n.name;
    }
  }
  const profiler::NodeProfile& matmul = p.nodes[0];
  EXPECT_EQ(matmul.name, "matmul");
  EXPECT_EQ(matmul.op_type, "MatMul");
  EXPECT_EQ(matmul.kernel, t.session.steps()[0].kernel);
  ASSERT_TRUE(matmul.has_cost);
  EXPECT_EQ(matmul.macs, 2 * 3 * 2);  // [2,3] @ [3,2]
  EXPECT_EQ(matmul.flops, 2 * 2 * 3 * 2);
  EXPECT_EQ(matmul.input_shapes, (std::vector<std::string>{"float32[2,3]", "float32[3,2]"}));
  EXPECT_EQ(matmul.output_shapes, (std::vector<std::string>{"float32[2,2]"}));
  EXPECT_EQ(matmul.arena_bytes, 2 * 2 * 4);
  EXPECT_EQ(p.nodes[1].op_type, "Relu");

  // The Reshape's target is data: its output is typed at run time and allocated on the heap.
  const profiler::NodeProfile& reshape = p.nodes[2];
  EXPECT_EQ(reshape.output_shapes, (std::vector<std::string>{"float32[3,2]"}));
  EXPECT_EQ(reshape.arena_bytes, 0);
  if (profiler::heap_counting_enabled()) {
    EXPECT_GE(reshape.heap_allocations, 1);
    EXPECT_GE(reshape.heap_bytes, 3 * 2 * 4);
    EXPECT_EQ(matmul.heap_allocations, 0);
  }
}

TEST(CollectedProfile, NoRunsGivesNoRows) {
  ProfilerTestSession t;
  Collector collector(t.session.steps().size(), 1);
  const profiler::Profile p = profiler::collected_profile(t.session, collector);
  EXPECT_TRUE(p.nodes.empty());
  EXPECT_TRUE(p.iterations_ms.empty());
}

}  // namespace
}  // namespace strata::test
