// Runs only an op's shape rule, on input metas that may have symbolic dims and unknown values,
// for testing how data-movement ops keep symbolic shapes and fold known values.
#pragma once

#include "ops/op_test_util.h"

namespace strata::test {

// A 1-D int64 tensor (shapes, axes, pads, repeats...).
inline Tensor int64s(const std::vector<int64_t>& v) {
  return Tensor::from<int64_t>({int64_t(v.size())}, v);
}

// A meta with the given dims (ints or Dim::symbol) and no value.
inline ops::Meta meta(DType dtype, Shape shape) {
  ops::Meta m;
  m.dtype = dtype;
  m.shape = std::move(shape);
  return m;
}

// A meta whose value is known.
inline ops::Meta known(const Tensor& value) {
  ops::Meta m = meta(value.dtype(), Shape::of(value.shape()));
  m.value = std::make_shared<const Tensor>(value);
  return m;
}

// Builds the op of `call` (its inputs are ignored) and infers output metas from `inputs`.
inline std::vector<ops::Meta> infer_only(const OpCall& call, const std::vector<ops::Meta>& inputs) {
  ir::Graph graph;
  graph.opset = call.opset;
  ir::Node node;
  node.name = "test_node";
  node.op_type = call.op_type;
  node.attributes = call.attributes;
  for (size_t i = 0; i < inputs.size() + call.num_outputs; ++i) {
    ir::Value v;
    v.name = "v" + std::to_string(i);
    graph.values.push_back(v);
    (i < inputs.size() ? node.inputs : node.outputs).push_back(ir::ValueId(i));
  }
  ops::NodeInfo info(graph, node, call.opset);
  std::unique_ptr<ops::Op> op = ops::find_op(call.op_type)(info);
  std::vector<const ops::Meta*> in_ptrs;
  for (const ops::Meta& m : inputs) in_ptrs.push_back(&m);
  std::vector<ops::Meta> outputs(call.num_outputs);
  ops::InferContext ctx(in_ptrs, outputs);
  op->infer(ctx);
  return outputs;
}

}  // namespace strata::test
