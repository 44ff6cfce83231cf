// strata::compare_dumps and strata::compare_runs: every value of two runs of one model compared in
// execution order, and the first node whose output goes wrong while everything it read was still
// right (`strata compare`, docs/debugging.md).
//
//   strata::Model model = strata::Model::load("examples/tiny_resnet.onnx");
//   strata::NamedArrays inputs = strata::bind_inputs(model, {});
//   strata::Comparison c = strata::compare_runs(model, inputs, "reference");  // vs oneDNN
//   std::printf("%s", c.report.c_str());
//   if (!c.agree()) std::printf("first divergent node: %s\n", c.first_divergent_node.c_str());
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/model.h"
#include "strata/session.h"
#include "strata/table.h"

namespace strata {

struct CompareOptions {
  double rtol = 1e-3, atol = 1e-7;
  // false: rtol scales the larger of an element and its tensor's root mean square (inner values
  // of a network); true: each element's own magnitude, as numpy's assert_allclose.
  bool elementwise = false;
  // How Comparison::report's table meets a terminal (strata::terminal_width; 0: every column).
  FitOptions fit{};
};

// The columns of Comparison::report's table, to check FitOptions::columns before long work.
std::vector<Column> comparison_columns();

// One value both sides hold.
struct ValueComparison {
  std::string value;
  std::string node, op_type;  // the node that wrote it ("" for a graph input)
  bool ok = false;
  std::string problem;  // why not: dtype, shape or values
  double max_abs_error = 0, max_rel_error = 0, cosine = 1;
  int64_t mismatches = 0, max_ulp = 0;
};

struct Comparison {
  std::vector<ValueComparison> values;  // in execution order, graph inputs first
  size_t out_of_tolerance = 0;
  size_t only_a = 0, only_b = 0;  // values one side holds and the other does not
  std::string first_divergent_node, first_divergent_op;  // "" when none
  std::string report;                                    // the text `strata compare` prints
  bool agree() const { return out_of_tolerance == 0; }
};

// Two dumps (`strata run --dump-all` folders, folders of NAME.npy, .npz files).
Comparison compare_dumps(const std::string& a, const std::string& b,
                         const CompareOptions& options = {});

// Runs `model` on `inputs` with `session` options, and again as `against` says: "reference"
// (reference kernels), a layout ("nchw", "nhwc", "blocked", "auto"), "threads=N", or a dump path.
Comparison compare_runs(const Model& model, const NamedArrays& inputs, const std::string& against,
                        const SessionOptions& session = {}, const CompareOptions& options = {});

}  // namespace strata
