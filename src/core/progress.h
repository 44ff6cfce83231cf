// How long work says how far it has come, for a progress line on a terminal. The library calls it
// between units of work (after an iteration, after a node), never inside a timed region; the CLI
// draws it (report/progress.h). Empty: nobody listens.
#pragma once

#include <cstdint>
#include <functional>

namespace strata {

// `phase` names the work ("load", "prepare", "fast-run", "warm-up", "iterations", "isolation");
// `done` of `total` units are finished (total 0: unknown, only the count is shown).
using ProgressFn = std::function<void(const char* phase, int64_t done, int64_t total)>;

}  // namespace strata
