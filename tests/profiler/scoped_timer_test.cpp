// User scopes: recorded into the active collector with nested paths; nothing without one.
#include <gtest/gtest.h>
#include <strata/scoped_timer.h>

#include "profiler/collected_profile.h"
#include "profiler/collector.h"
#include "profiler/profiler_test_model.h"

namespace strata::test {
namespace {

using profiler::Collector;
using profiler::ScopeEvent;

TEST(ScopedTimer, NestedNamesJoinWithSlashes) {
  Collector collector(0, 0);
  collector.activate();
  {
    ScopedTimer outer("preprocess");
    for (int i = 0; i < 2; ++i) ScopedTimer inner("resize");
    ScopedTimer other("normalize");
  }
  { ScopedTimer again("preprocess"); }
  collector.deactivate();
  const std::vector<ScopeEvent> scopes = collector.scopes();
  ASSERT_EQ(scopes.size(), 5u);
  // In the order they closed: inner scopes before their parent.
  EXPECT_EQ(scopes[0].path, "preprocess/resize");
  EXPECT_EQ(scopes[1].path, "preprocess/resize");
  EXPECT_EQ(scopes[2].path, "preprocess/normalize");
  EXPECT_EQ(scopes[3].path, "preprocess");
  EXPECT_EQ(scopes[4].path, "preprocess");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GE(scopes[i].start_ns, scopes[3].start_ns);
    EXPECT_LE(scopes[i].end_ns, scopes[3].end_ns);
  }
  EXPECT_GE(scopes[4].start_ns, scopes[3].end_ns);
  EXPECT_EQ(scopes[0].thread, profiler::current_thread_id());
}

TEST(ScopedTimer, DoesNothingWithoutAnActiveCollector) {
  Collector collector(0, 0);
  { ScopedTimer before("before"); }
  collector.activate();
  collector.deactivate();
  { ScopedTimer after("after"); }
  EXPECT_TRUE(collector.scopes().empty());
  EXPECT_EQ(Collector::active(), nullptr);
}

TEST(ScopedTimer, AScopeStillOpenAtDeactivationIsDropped) {
  Collector collector(0, 0);
  collector.activate();
  {
    ScopedTimer open("open");
    collector.deactivate();
  }
  EXPECT_TRUE(collector.scopes().empty());
}

TEST(ScopedTimer, DestroyedCollectorIsNoLongerActive) {
  {
    Collector collector(0, 0);
    collector.activate();
    EXPECT_EQ(Collector::active(), &collector);
  }
  EXPECT_EQ(Collector::active(), nullptr);
  ScopedTimer harmless("after");
}

TEST(ScopedTimer, ScopesBecomeRowsBesideTheNodes) {
  ProfilerTestSession t;
  Collector collector(t.session.steps().size(), 2);
  collector.activate();
  t.session.set_hooks(&collector);
  for (int i = 0; i < 2; ++i) {
    { ScopedTimer prepare("prepare input"); }
    ScopedTimer infer("inference");
    collector.begin_run();
    t.session.run(t.inputs);
    collector.end_run();
  }
  t.session.set_hooks(nullptr);
  collector.deactivate();
  const profiler::Profile p = profiler::collected_profile(t.session, collector);
  ASSERT_EQ(p.nodes.size(), t.session.steps().size() + 2);
  const profiler::NodeProfile& prepare = p.nodes[3];
  const profiler::NodeProfile& inference = p.nodes[4];
  EXPECT_EQ(prepare.name, "prepare input");
  EXPECT_EQ(prepare.op_type, "scope");
  EXPECT_EQ(inference.name, "inference");
  ASSERT_EQ(inference.samples_ms.size(), 2u);
  ASSERT_EQ(inference.start_offsets_ms.size(), 2u);
  EXPECT_FALSE(inference.has_cost);
  // Scope offsets are on the profile's clock; each inference scope contains its iteration.
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_LE(inference.start_offsets_ms[i], p.iteration_starts_ms[i]);
    EXPECT_GE(inference.start_offsets_ms[i] + inference.samples_ms[i],
              p.iteration_starts_ms[i] + p.iterations_ms[i]);
  }
}

}  // namespace
}  // namespace strata::test
