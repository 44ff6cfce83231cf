// strata's public API: load an ONNX model, bind inputs, run it, profile it layer by layer, analyse
// it without running, compare two runs. Only these headers are installed; docs/api.md shows each
// with an example. Every failure throws strata::Error (strata/errors.h).
#pragma once

#include "strata/analysis.h"      // analyze: shapes, parameters, FLOPs, memory without running
#include "strata/compare.h"       // compare_dumps, compare_runs: the first divergent node
#include "strata/diff.h"          // diff_profiles: B faster than A, beyond the noise?
#include "strata/dtype.h"         // DType
#include "strata/errors.h"        // Error, ErrorCode
#include "strata/files.h"         // check_writable: before long work
#include "strata/machine.h"       // machine_peaks: FLOP/s and bandwidth (cached)
#include "strata/model.h"         // Model: load, inputs, outputs
#include "strata/profile.h"       // profile, Profile: per-node times, JSON, trace
#include "strata/progress.h"      // ProgressFn, terminal_progress, print_warning
#include "strata/scoped_timer.h"  // ScopedTimer: time your own code into a profile
#include "strata/session.h"       // bind_inputs, Session, run
#include "strata/table.h"         // Table: the aligned text tables strata prints
#include "strata/tensor.h"        // Array: the tensors going in and out
#include "strata/timing.h"        // time_runs: latency and throughput, one or more streams
#include "strata/verify.h"        // read_test_data, verify_outputs: outputs against expected
#include "strata/views.h"         // ViewOptions: which tables a profile shows

namespace strata {
// "0.1.0"
const char* version();
}  // namespace strata
