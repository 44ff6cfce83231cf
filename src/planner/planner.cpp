#include "planner/planner.h"

#include <algorithm>
#include <numeric>

#include "core/checked.h"

namespace strata::planner {

namespace {
int64_t align_up(int64_t bytes) {
  return checked_add(bytes, kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}
}  // namespace

Plan plan_buffers(const std::vector<BufferRequest>& requests) {
  Plan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of conflicting placed buffers
  for (size_t r : order) {
    const int64_t size = align_up(requests[r].bytes);
    busy.clear();
    for (size_t p : placed)
      if (lifetimes_overlap(requests[r], requests[p]))
        busy.emplace_back(plan.offsets[p], plan.offsets[p] + align_up(requests[p].bytes));
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (begin >= offset + size) break;  // the gap before this buffer is large enough
      offset = std::max(offset, end);
    }
    plan.offsets[r] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, checked_add(offset, size));
    placed.push_back(r);
  }

  // Lower bound: the peak of live bytes over steps (a sweep over lifetime events).
  std::vector<std::pair<int64_t, int64_t>> events;  // (step, +bytes at start / -bytes after end)
  for (const BufferRequest& r : requests) {
    events.emplace_back(r.first_step, align_up(r.bytes));
    events.emplace_back(r.last_step + 1, -align_up(r.bytes));
  }
  std::sort(events.begin(), events.end());  // at equal steps, frees (negative) come first
  int64_t live = 0, last_step = -1;
  for (const BufferRequest& r : requests) last_step = std::max(last_step, r.last_step);
  plan.live_bytes.assign(size_t(last_step + 1), 0);
  for (size_t e = 0; e < events.size(); ++e) {
    live += events[e].second;
    plan.lower_bound_bytes = std::max(plan.lower_bound_bytes, live);
    // The live set of a step is known once its last event is counted; it holds until the next.
    const int64_t until = e + 1 < events.size() ? events[e + 1].first : last_step + 1;
    for (int64_t s = std::max<int64_t>(events[e].first, 0); s < until && s <= last_step; ++s)
      plan.live_bytes[size_t(s)] = live;
  }
  return plan;
}

}  // namespace strata::planner
