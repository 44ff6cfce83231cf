// The library's internal headers in one include, for the tests, the benchmarks and an example:
// what they use beyond the public API (include/strata/, docs/api.md). Not installed.
#pragma once

#include "analyzer/analyze.h"          // analyze: shapes, FLOPs, memory without running
#include "core/dtype.h"                // DType, f16, bf16
#include "core/error.h"                // Error, ErrorCode
#include "core/tensor.h"               // Tensor
#include "debug/against.h"             // parse_against: what compare --against runs
#include "debug/compare.h"             // compare_dumps, render_comparison: first divergent node
#include "debug/dump.h"                // record_run, write_dump, read_dump, io_summary
#include "debug/finite.h"              // find_non_finite (--check-finite)
#include "debug/test_case.h"           // write_test_case, find_test_case (strata pack)
#include "io/file.h"                   // write_file, check_writable: files written atomically
#include "io/npy.h"                    // read_npy, write_npy
#include "onnx/loader.h"               // onnx_import::load_model (parse only)
#include "onnx/tensor_proto.h"         // read_tensor_pb
#include "passes/optimize.h"           // optimize_graph: fold, fuse, remove dead nodes
#include "passes/specialize_inputs.h"  // specialize_inputs: concrete input shapes, shapes inferred
#include "profiler/collected_profile.h"  // collected_profile: a Collector's events as a Profile
#include "profiler/collector.h"          // Collector: per-node events, user scopes (RunHooks)
#include "profiler/machine.h"            // machine_peaks: measured FLOP/s and bandwidth (cached)
#include "profiler/profile_session.h"  // profile_session: cold run, timed runs, overhead, isolation
#include "profiler/profile_stamp.h"    // stamp_profile: version, model SHA-256, time, libraries
#include "profiler/resource_usage.h"   // read_usage, contention_warning: a busy machine
#include "profiler/slow_paths.h"       // slow_path_warnings: big steps on reference kernels
#include "profiler/stats.h"            // summarize, stability_warning
#include "report/analysis_join.h"      // join_static_analysis: predicted vs measured, per node
#include "report/analysis_json.h"      // analysis_json (strata analyze --json)
#include "report/analysis_text.h"      // render_analysis_totals, render_analysis_tables
#include "report/chrome_trace.h"       // write_chrome_trace (Perfetto, chrome://tracing)
#include "report/diff.h"               // diff_profiles, render_diff
#include "report/html_report.h"        // write_html: self-contained HTML reports (--html)
#include "report/profile_json.h"       // read_profile, write_profile
#include "report/progress.h"           // ProgressLine: a progress line on a terminal
#include "report/summary_json.h"       // summary_json (latency_ms in JSON files)
#include "report/table.h"              // Table: aligned text tables
#include "report/terminal.h"           // terminal_width, use_colour: fitting the terminal
#include "report/units.h"              // human_bytes, si_count, milliseconds
#include "report/views.h"              // render_summary, render_views (node, type, scope tables)
#include "runtime/input_binding.h"     // bind_inputs, parse_shape
#include "runtime/input_folder.h"      // expand_input_folders: --input DIR round-robin
#include "runtime/model.h"             // load_model: parse, check ops, infer shapes
#include "runtime/session.h"           // Session, SessionOptions, RunHooks
#include "runtime/streams.h"           // run_streams: concurrent sessions, by count or time
#include "runtime/test_data.h"         // read_test_data, read_expected_outputs
#include "runtime/timing.h"            // time_runs
#include "runtime/verify.h"            // compare
#include "strata/strata.h"             // the public API

namespace strata {
inline constexpr const char* kVersion = STRATA_VERSION;
}
