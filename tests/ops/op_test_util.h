// Runs one op through its shape rule and reference kernel, for data-driven op tests.
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ops/domain_ops.h"
#include "ops/internal_ops.h"
#include "ops/op.h"

namespace strata::test {

struct OpCall {
  std::string op_type;
  int64_t opset = 17;
  std::map<std::string, ir::Attribute> attributes = {};
  std::vector<Tensor> inputs = {};  // an undefined Tensor() stands for an omitted optional input
  size_t num_outputs = 1;
  std::string domain = {};  // "" for ai.onnx; "ai.onnx.ml", "ai.onnx.preview.training"
};

// A call of op_type at opset with attributes; inputs are added by the caller.
inline OpCall op_call(std::string op_type, int64_t opset = 17,
                      std::map<std::string, ir::Attribute> attributes = {}) {
  OpCall call;
  call.op_type = std::move(op_type);
  call.opset = opset;
  call.attributes = std::move(attributes);
  return call;
}

inline ir::Attribute attr_int(int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  return a;
}
inline ir::Attribute attr_float(float v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloat;
  a.f = v;
  return a;
}
inline ir::Attribute attr_ints(std::vector<int64_t> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
inline ir::Attribute attr_floats(std::vector<float> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloats;
  a.floats = std::move(v);
  return a;
}
inline ir::Attribute attr_string(std::string v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kString;
  a.s = std::move(v);
  return a;
}
inline ir::Attribute attr_strings(std::vector<std::string> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kStrings;
  a.strings = std::move(v);
  return a;
}
inline ir::Attribute attr_tensor(Tensor t) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kTensor;
  a.t = std::move(t);
  return a;
}

// Infers output metas with every input value known, checks that the reference kernel's
// outputs have exactly the inferred shapes, and returns them. Errors propagate as strata::Error.
inline std::vector<Tensor> run_op(const OpCall& call) {
  ir::Graph graph;
  graph.opset = call.opset;
  ir::Node node;
  node.name = "test_node";
  node.op_type = call.op_type;
  node.attributes = call.attributes;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (!call.inputs[i].defined()) {
      node.inputs.push_back(ir::kNoValue);
      continue;
    }
    ir::Value v;
    v.name = "in" + std::to_string(i);
    v.dtype = call.inputs[i].dtype();
    v.shape = Shape::of(call.inputs[i].shape());
    graph.values.push_back(v);
    node.inputs.push_back(ir::ValueId(graph.values.size() - 1));
  }
  for (size_t i = 0; i < call.num_outputs; ++i) {
    ir::Value v;
    v.name = "out" + std::to_string(i);
    graph.values.push_back(v);
    node.outputs.push_back(ir::ValueId(graph.values.size() - 1));
  }
  ops::OpFactory factory = ops::find_op(call.op_type);
  if (!factory) factory = ops::find_internal_op(call.op_type);  // FusedConv, FusedMatMul
  if (!factory) factory = ops::find_domain_op(call.domain, call.op_type);
  if (!factory) ADD_FAILURE() << "op not registered: " << call.op_type;
  ops::NodeInfo info(graph, node, call.opset);
  std::unique_ptr<ops::Op> op = factory(info);

  std::vector<ops::Meta> in_metas(call.inputs.size());
  std::vector<const ops::Meta*> in_ptrs;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (call.inputs[i].defined()) {
      in_metas[i].dtype = call.inputs[i].dtype();
      in_metas[i].shape = Shape::of(call.inputs[i].shape());
      in_metas[i].value = std::make_shared<const Tensor>(call.inputs[i]);
      in_ptrs.push_back(&in_metas[i]);
    } else {
      in_ptrs.push_back(nullptr);
    }
  }
  std::vector<ops::Meta> out_metas(call.num_outputs);
  ops::InferContext infer_ctx(in_ptrs, out_metas);
  op->infer(infer_ctx);

  std::vector<Tensor> outputs;
  for (const ops::Meta& m : out_metas) outputs.push_back(Tensor::zeros(m.dtype, m.shape.values()));
  std::vector<const Tensor*> in_tensors;
  for (const Tensor& t : call.inputs) in_tensors.push_back(t.defined() ? &t : nullptr);
  std::vector<Tensor*> out_tensors;
  for (Tensor& t : outputs) out_tensors.push_back(&t);
  ops::KernelContext kernel_ctx(in_tensors.data(), in_tensors.size(), out_tensors.data(),
                                out_tensors.size());
  op->run(kernel_ctx);
  return outputs;
}

// Float infinity and NaN, for inputs and expected values.
inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A string tensor of `shape` holding `values`.
inline Tensor strings(std::vector<int64_t> shape, const std::vector<std::string>& values) {
  Tensor t = Tensor::zeros(DType::kString, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

// Element-wise closeness for float outputs.
inline void expect_near(const Tensor& actual, const std::vector<float>& expected,
                        float tol = 1e-5f) {
  ASSERT_EQ(actual.dtype(), DType::kF32);
  ASSERT_EQ(size_t(actual.numel()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual.data<float>()[i], expected[i], tol) << "at element " << i;
}

}  // namespace strata::test
