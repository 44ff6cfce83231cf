// Which values of a session share one arena buffer, and where in it each value's bytes start:
// views (a Reshape is its input's bytes), concatenated parts (an input of a Concat written by its
// producer straight into the Concat's output) and in-place outputs. Values form groups, each
// owned by one value (its root) whose buffer the planner places.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::runtime {

struct SharedBuffers {
  explicit SharedBuffers(size_t values) : owner(values), offset(values, 0) {
    for (size_t id = 0; id < values; ++id) owner[id] = id;
  }

  // Moves every value of root `from`'s group into root `to`'s buffer, `shift` bytes further in.
  void move_group(size_t from, size_t to, int64_t shift) {
    for (size_t id = 0; id < owner.size(); ++id)
      if (owner[id] == from) {
        owner[id] = to;
        offset[id] += shift;
      }
  }

  std::vector<size_t> owner;    // per value: the root whose buffer holds its bytes
  std::vector<int64_t> offset;  // per value: where its bytes start in that buffer
};

}  // namespace strata::runtime
