// The --max-memory budget of a session run for what it allocates beyond the memory planned at
// prepare: outputs whose shapes depend on data (NonZero, Unique, NonMaxSuppression, a Reshape of
// a computed shape), lists (sequences and optionals) and the scan outputs of Loop and Scan. Each
// is charged before it is allocated, and the charge that would pass the limit fails (exit 2)
// instead, so a model asking for too much stops with a message rather than exhausting memory.
// Charges last until the run ends: an upper bound of what the run holds at once.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace strata {

class Tensor;

class RunMemoryScope {
 public:
  // `limit`: --max-memory in bytes; `planned`: what prepare set aside (arena, constants, packed
  // weights). Scopes nest (a subgraph's run inside its node's); the innermost is charged.
  RunMemoryScope(int64_t limit, int64_t planned);
  ~RunMemoryScope();
  RunMemoryScope(const RunMemoryScope&) = delete;
  RunMemoryScope& operator=(const RunMemoryScope&) = delete;

  // Counts `bytes` more; fails naming `what` and `index` ("output 0", "scan output 1"; an index
  // below 0 is left out) when the total would pass the limit.
  void charge(int64_t bytes, std::string_view what, int64_t index);

 private:
  int64_t limit_;
  int64_t planned_;
  int64_t used_ = 0;
  RunMemoryScope* outer_;
};

// Charges the innermost scope of this thread; a no-op outside a session run (shape folding at
// prepare has its own budget).
void charge_run_memory(int64_t bytes, std::string_view what, int64_t index = -1);

// What a list of `items` holds: their data and, per item, its bookkeeping (so that a list of
// 2^40 empty tensors counts too); nested lists counted through. Saturates rather than overflows.
int64_t list_bytes(const std::vector<Tensor>& items);
// The same for a list still to be made: `count` items holding `data_bytes` in all.
int64_t list_bytes(int64_t count, int64_t data_bytes);

}  // namespace strata
