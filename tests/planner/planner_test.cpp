// The arena planner: live buffers never share bytes, dead ones do, offsets are aligned, and the
// arena is never smaller than the peak of live bytes.
#include "planner/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace strata::planner {
namespace {

int64_t aligned(int64_t bytes) {
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

// Checks every invariant a plan must keep for `requests`.
void expect_valid(const std::vector<BufferRequest>& requests, const Plan& plan) {
  ASSERT_EQ(plan.offsets.size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % kBufferAlignment, 0) << "buffer " << i;
    EXPECT_GE(plan.offsets[i], 0) << "buffer " << i;
    EXPECT_LE(plan.offsets[i] + requests[i].bytes, plan.arena_bytes) << "buffer " << i;
    for (size_t j = i + 1; j < requests.size(); ++j) {
      if (!lifetimes_overlap(requests[i], requests[j])) continue;
      if (requests[i].bytes == 0 || requests[j].bytes == 0) continue;
      const bool disjoint = plan.offsets[i] + requests[i].bytes <= plan.offsets[j] ||
                            plan.offsets[j] + requests[j].bytes <= plan.offsets[i];
      EXPECT_TRUE(disjoint) << "buffers " << i << " and " << j
                            << " are live together but share bytes";
    }
  }
  EXPECT_GE(plan.arena_bytes, plan.lower_bound_bytes);
}

// The peak over steps of the aligned sizes of live buffers, computed naively.
int64_t naive_lower_bound(const std::vector<BufferRequest>& requests) {
  int64_t last = 0;
  for (const BufferRequest& r : requests) last = std::max(last, r.last_step);
  int64_t peak = 0;
  for (int64_t step = 0; step <= last; ++step) {
    int64_t live = 0;
    for (const BufferRequest& r : requests)
      if (r.first_step <= step && step <= r.last_step) live += aligned(r.bytes);
    peak = std::max(peak, live);
  }
  return peak;
}

TEST(Planner, EmptyInput) {
  const Plan plan = plan_buffers({});
  EXPECT_TRUE(plan.offsets.empty());
  EXPECT_EQ(plan.arena_bytes, 0);
  EXPECT_EQ(plan.lower_bound_bytes, 0);
}

TEST(Planner, SingleBufferIsRoundedUpToTheAlignment) {
  const Plan plan = plan_buffers({{0, 0, 100}});
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0}));
  EXPECT_EQ(plan.arena_bytes, 128);
  EXPECT_EQ(plan.lower_bound_bytes, 128);
  EXPECT_EQ(kBufferAlignment, 64);
}

TEST(Planner, OverlappingLifetimesNeverShareMemory) {
  const std::vector<BufferRequest> requests = {{0, 2, 1000}, {1, 3, 1000}, {2, 2, 10}};
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.arena_bytes, 1024 + 1024 + 64);
}

TEST(Planner, TouchingLifetimesOverlap) {
  // Written at step 1 while the other is still read at step 1: both are live at step 1.
  const std::vector<BufferRequest> requests = {{0, 1, 256}, {1, 2, 256}};
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_EQ(plan.arena_bytes, 512);
}

TEST(Planner, LiveBytesPerStepMatchANaiveCount) {
  // Live bytes (aligned) per step: 128, 384, 320, 704, 640.
  const std::vector<BufferRequest> requests = {{0, 1, 100}, {1, 2, 200}, {2, 3, 64}, {3, 4, 600}};
  EXPECT_EQ(plan_buffers(requests).live_bytes, (std::vector<int64_t>{128, 384, 320, 704, 640}));
  std::mt19937 rng(7);
  std::vector<BufferRequest> random;
  for (int i = 0; i < 60; ++i) {
    const int64_t first = rng() % 40;
    random.push_back({first, first + int64_t(rng() % 8), int64_t(rng() % 5000)});
  }
  const Plan plan = plan_buffers(random);
  for (size_t step = 0; step < plan.live_bytes.size(); ++step) {
    int64_t live = 0;
    for (const BufferRequest& r : random)
      if (r.first_step <= int64_t(step) && int64_t(step) <= r.last_step) live += aligned(r.bytes);
    EXPECT_EQ(plan.live_bytes[step], live) << "step " << step;
  }
  EXPECT_EQ(*std::max_element(plan.live_bytes.begin(), plan.live_bytes.end()),
            plan.lower_bound_bytes);
}

TEST(Planner, DisjointLifetimesShareMemory) {
  const std::vector<BufferRequest> requests = {{0, 0, 1000}, {1, 1, 1000}, {2, 3, 1000}};
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(plan.arena_bytes, 1024);
  EXPECT_EQ(plan.lower_bound_bytes, 1024);
}

TEST(Planner, ChainReusesTwoSlots) {
  // a → b → c → d → e: each buffer lives from its producer to its single consumer.
  std::vector<BufferRequest> requests;
  for (int64_t s = 0; s < 5; ++s) requests.push_back({s, s + 1, 4096});
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_EQ(plan.arena_bytes, 2 * 4096);
  EXPECT_EQ(plan.lower_bound_bytes, 2 * 4096);
}

TEST(Planner, KnownLowerBoundOnAHandMadeCase) {
  // Live bytes (aligned): step 0: 128; step 1: 128 + 256 = 384; step 2: 256 + 64 = 320;
  // step 3: 64 + 640 = 704; step 4: 640.
  const std::vector<BufferRequest> requests = {{0, 1, 100}, {1, 2, 200}, {2, 3, 64}, {3, 4, 600}};
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_EQ(plan.lower_bound_bytes, 704);
  EXPECT_EQ(plan.lower_bound_bytes, naive_lower_bound(requests));
  EXPECT_EQ(plan.arena_bytes, 704);  // greedy by size reaches the bound here
}

TEST(Planner, GapBetweenBuffersIsReused) {
  // Two long-lived buffers with a hole between them (the middle one dies at step 0).
  const std::vector<BufferRequest> requests = {
      {0, 5, 1024}, {0, 0, 1024}, {0, 5, 512}, {3, 4, 1024}};
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_EQ(plan.offsets[3], plan.offsets[1]) << "the dead buffer's bytes should be reused";
  EXPECT_EQ(plan.arena_bytes, 1024 + 1024 + 512);
}

TEST(Planner, ZeroByteBuffers) {
  const std::vector<BufferRequest> requests = {{0, 3, 0}, {1, 2, 64}, {2, 2, 0}};
  const Plan plan = plan_buffers(requests);
  expect_valid(requests, plan);
  EXPECT_EQ(plan.arena_bytes, 64);
}

TEST(Planner, RandomCasesKeepEveryInvariant) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = int(rng() % 40);
    std::vector<BufferRequest> requests;
    for (int i = 0; i < n; ++i) {
      const int64_t first = rng() % 30;
      const int64_t last = first + rng() % 10;
      const int64_t bytes = (rng() % 4 == 0) ? int64_t(rng() % 64) : int64_t(rng() % 100000);
      requests.push_back({first, last, bytes});
    }
    const Plan plan = plan_buffers(requests);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expect_valid(requests, plan);
    EXPECT_EQ(plan.lower_bound_bytes, naive_lower_bound(requests));
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace strata::planner
