// How long work says how far it has come, for a progress line on a terminal. The library calls it
// between units of work (after an iteration, after a node), never inside a timed region; the CLI
// draws it (report/progress.h). Empty: nobody listens.
#pragma once

#include "strata/progress.h"  // ProgressFn: part of the public API
