// A nested table from slash-separated names: ONNX graphs exported from PyTorch name their nodes
// after module paths ("/layer1/layer1.0/conv1/Conv"), so grouping rows by path prefix gives a tree
// like a nested timer table (layer1 → layer1.0 → conv1 → Conv) with each scope's figures summed.
// Generic over the figures so that measured profiles and static analyses share it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strata::report {

// How a column combines the rows below a scope.
enum class Combine { kSum, kMax };

// One input row: a path and one figure per column.
struct ScopeInput {
  std::string path;            // "/layer1/layer1.0/conv1/Conv"; "Conv_0" is a top-level leaf
  std::vector<double> values;  // same length in every row
};

// One output row: a scope (a path prefix shared by some inputs) or an input itself.
struct ScopeRow {
  std::string name;            // last path component: "conv1"
  std::string path;            // components joined with '/', with a leading '/': "/layer1/conv1"
  int depth = 0;               // 0 for top-level rows
  size_t inputs = 0;           // input rows in this subtree (its own included)
  std::vector<size_t> own;     // indices of the input rows whose path is exactly this one
  bool has_children = false;   // rows of depth + 1 follow it
  std::vector<double> values;  // the subtree's figures, combined per column
};

struct ScopeTreeOptions {
  std::vector<Combine> combine;  // per column; missing entries mean kSum
  int order_column = -1;         // siblings by this column, largest first; -1: first appearance
  int max_depth = 0;             // > 0: deeper rows are folded into their ancestor at that depth
};

// The tree in pre-order (every scope before its children), siblings ordered as asked.
// Empty path components ("//", a leading '/') are skipped; an empty path becomes "(unnamed)".
std::vector<ScopeRow> build_scope_tree(const std::vector<ScopeInput>& rows,
                                       const ScopeTreeOptions& options = {});

// Splits "/a/b//c" into {"a", "b", "c"}.
std::vector<std::string> split_scope_path(const std::string& path);

}  // namespace strata::report
