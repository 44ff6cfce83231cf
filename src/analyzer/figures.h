// The figures of each evaluation, laid out for fitting: per node its cost and memory columns and
// every output dim, then the model's totals; one row of them per evaluation (see Samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/backward.h"
#include "analyzer/memory.h"
#include "analyzer/meta_eval.h"

namespace strata::analyzer {

// Figures recorded per node and per evaluation, in this order.
enum NodeColumn : size_t {
  kMacs,
  kFlops,
  kBackwardFlops,
  kBytesRead,
  kOutputBytes,
  kWorkspaceBytes,
  kSavedBytes,
  kLiveAfterBytes,
  kAccumulatedSavedBytes,
  kNodeColumns
};

enum TotalColumn : size_t {
  kTotalMacs,
  kTotalFlops,
  kTotalBackwardFlops,
  kTotalBytesRead,
  kPeak,
  kArena,
  kInputBytes,
  kFoldedBytes,
  kSavedTotal,
  kTotalColumns
};

// Where each figure of one evaluation sits in its row: per node the columns above, then every
// output dim; then the totals.
struct Layout {
  std::vector<size_t> node_offset;
  std::vector<int64_t> ranks;        // per output of every node in order; -1 when unknown
  std::vector<size_t> first_output;  // per node: its first entry in ranks
  int64_t rank(size_t node, size_t output) const { return ranks[first_output[node] + output]; }
  // Folded nodes do not run at inference: only their outputs' sizes and dims are recorded.
  std::vector<bool> recorded;  // per figure
  size_t totals_offset = 0;
  size_t size = 0;
};

// The layout of a graph's figures, from its first evaluation (ranks and folded nodes do not depend
// on sizes).
Layout make_layout(const ir::Graph& graph, const EvalResult& eval);

// Every figure of every evaluation, slot-major: one row per evaluation, written in one stream
// when it is recorded (a figure-major table would touch a cache line per figure and evaluation),
// and read by fitting in a few parallel streams. Slots never written are never touched.
class Samples {
 public:
  Samples(size_t figures, size_t slots) : figures_(figures), data_(new double[figures * slots]) {}
  // Figure i in `slot`.
  double at(size_t i, size_t slot) const { return data_[slot * figures_ + i]; }
  // Figure i in slots 0 to count - 1, into out.
  void gather(size_t i, size_t count, double* out) const {
    for (size_t slot = 0; slot < count; ++slot) out[slot] = at(i, slot);
  }

  // One evaluation's figures into `slot` (a folded node's cost and memory columns are not
  // written: Layout::recorded says which).
  void record(const ir::Graph& graph, const EvalResult& eval, const MemoryFigures& memory,
              const std::vector<BackwardRule>& rules, const Layout& layout, size_t slot);

 private:
  size_t figures_;
  std::unique_ptr<double[]> data_;
};

}  // namespace strata::analyzer
