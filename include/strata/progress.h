// How long work tells how far it has come, and the progress line the `strata` command draws with
// it on a terminal ("strata: iterations 12/20 (60%)  1.4 s", erased when done).
//
//   strata::AnalysisOptions options;
//   options.progress = strata::terminal_progress();  // empty when stderr is not a terminal
//   strata::Analysis a = strata::analyze("model.onnx", options);
//   strata::clear_terminal_progress();
//   for (const std::string& w : a.warnings()) strata::print_warning(w);
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace strata {

// `phase` names the work ("load", "analysis", "prepare", "iterations", "machine peaks"); `done`
// of `total` units are finished (total 0: unknown, only the elapsed time is shown). Called
// between units of work, never inside a timed region. Empty: nobody listens.
using ProgressFn = std::function<void(const char* phase, int64_t done, int64_t total)>;

// This process' progress line on stderr, as a ProgressFn; empty when stderr is not a terminal
// (files and pipes get no carriage returns and no escape codes).
ProgressFn terminal_progress();
// Erases the progress line (when the work is done, or before an error message replaces it).
void clear_terminal_progress();
// Prints "strata: warning: TEXT" on stderr, erasing the progress line first (it is redrawn by the
// next update); the label is in colour on a terminal unless NO_COLOR is set.
void print_warning(const std::string& text);

}  // namespace strata
