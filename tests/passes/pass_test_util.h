// Checking a graph pass: the rewritten graph computes what the original did (both run with the
// reference kernels), and has the nodes the pass should leave.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/kernel_test_util.h"

namespace strata::test {

// Op types of the graph's nodes, in order.
inline std::vector<std::string> op_types(const ir::Graph& graph) {
  std::vector<std::string> types;
  for (const ir::Node& n : graph.nodes) types.push_back(n.op_type);
  return types;
}

inline void expect_same_outputs(const ir::Graph& before, const ir::Graph& after,
                                const std::vector<Tensor>& inputs, double tolerance = 1e-5) {
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const SessionResult a = run_session(before, inputs, reference);
  const SessionResult b = run_session(after, inputs, reference);
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    const runtime::Comparison c =
        runtime::compare(b.outputs[i], a.outputs[i], {tolerance, tolerance});
    EXPECT_TRUE(c.ok) << "output " << i << ": " << c.problem;
  }
}

}  // namespace strata::test
