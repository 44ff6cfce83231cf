// Small hand-built models with control flow (If, Loop, Scan), shared by the runtime, profiler,
// analyzer and CLI tests.
#pragma once

#include <cstdint>

#include "testutil/onnx_builder.h"

namespace strata::test {

// A body graph: a ModelBuilder's graph with its own inputs, nodes and outputs.
ModelBuilder body();

// y = If(cond) then x + 1 (x read from the outer graph) else -x; `else_rows` rows in the else
// branch's output (3: same shape as then; otherwise the branches disagree). Inputs cond, x[3].
ModelBuilder if_model(int64_t else_rows = 3);

// Loop 'repeat' M times: acc += x (x from the outer graph); scan output: acc after each
// iteration. With `stop_at` > 0 the body's condition turns false once the iteration number
// reaches it. Inputs M (int64 scalar; a constant initializer when `constant_trips` > 0), x[2];
// outputs acc[2], stack[?,2]. Body nodes body_add, body_scan and body_less (stop_at > 0) or
// body_cond.
ModelBuilder loop_model(int64_t stop_at = 0, int64_t constant_trips = 0);

// Scan: running sum of the rows of x along `axis`, in reverse when asked; state s, scan output
// the running sum per step. Body nodes body_add, body_id.
ModelBuilder scan_model(int64_t axis, int64_t reverse, int64_t output_axis = 0);

// A Loop node 'grow' run `trips` times (a constant) whose carried value grows a row per
// iteration: acc = Concat(acc, Relu(x)) from acc0 [1,4] and input x [1,4]; output acc
// [trips+1, 4]. Body nodes body_relu (same shapes every call), body_concat (input
// float32[1..trips,4]) and body_cond. With `inner_if`, the Relu sits in an If 'gate' on the
// carried condition (then: Relu 'inner_relu', else: Identity 'inner_id'). With
// `declare_first_shape`, the body declares acc_in as the first iteration's [1,4], as torch.onnx
// does (the value still grows).
ModelBuilder growing_loop_model(int64_t trips, bool inner_if = false,
                                bool declare_first_shape = false);

}  // namespace strata::test
