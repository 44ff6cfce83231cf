// Runs only an op's cost rule (after its shape rule), for the reduction and matrix-product tests.
#pragma once

#include "ops/infer_util.h"

namespace strata::test {

// The cost of `call`'s op (its inputs are ignored) for input metas `inputs`; set a meta's value
// to mark the input as a constant.
inline ops::Cost cost_of(const OpCall& call, const std::vector<ops::Meta>& inputs) {
  const std::vector<ops::Meta> outputs = infer_only(call, inputs);
  ir::Graph graph;
  ir::Node node;
  node.op_type = call.op_type;
  node.attributes = call.attributes;
  ops::NodeInfo info(graph, node, call.opset);
  std::vector<const ops::Meta*> in_ptrs;
  for (const ops::Meta& m : inputs) in_ptrs.push_back(&m);
  ops::CostContext ctx(in_ptrs, outputs);
  std::optional<ops::Cost> cost = ops::find_op(call.op_type)(info)->cost(ctx);
  if (!cost) ADD_FAILURE() << call.op_type << " has no cost rule";
  return cost.value_or(ops::Cost{});
}

}  // namespace strata::test
