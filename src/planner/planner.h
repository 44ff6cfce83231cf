// Activation memory planning: places buffers with known lifetimes into one arena.
#pragma once

#include <cstdint>
#include <vector>

namespace strata::planner {

// One buffer to place. Steps are positions in the execution order; a buffer is live from the
// step that writes it to the last step that reads it, both included.
struct BufferRequest {
  int64_t first_step = 0;
  int64_t last_step = 0;
  int64_t bytes = 0;
};

struct Plan {
  std::vector<int64_t> offsets;   // per request, in bytes from the arena start (64-byte aligned)
  int64_t arena_bytes = 0;        // size of the arena the offsets need
  int64_t lower_bound_bytes = 0;  // the largest set of buffers live at one step: no plan beats it
  // Per step from 0 to the last step of any request: bytes of the buffers live at it (aligned).
  std::vector<int64_t> live_bytes;
};

inline constexpr int64_t kBufferAlignment = 64;

// Greedy by size: the largest buffers are placed first, each at the lowest offset that does not
// overlap a placed buffer whose lifetime intersects its own.
Plan plan_buffers(const std::vector<BufferRequest>& requests);

}  // namespace strata::planner
