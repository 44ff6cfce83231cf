// The operator interface: one Op per node, built from the node's attributes.
// Everything about an operator lives in its file under src/ops/ (attributes, shape rule,
// cost rule, reference kernel) and is registered by one line in src/ops/op_list.inc.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace strata::ops {

// What is known about a tensor before running: dtype, shape (dims may be symbolic),
// and its value when it is a constant or could be computed ahead of time.
struct Meta {
  DType dtype = DType::kUndefined;
  Shape shape;
  std::shared_ptr<const Tensor> value;
  bool is_initializer = false;  // a weight from the file, even when its value was not read
  // A sequence or optional value: dtype is its element type and shape is unused (empty).
  ValueKind kind = ValueKind::kTensor;
  bool present() const { return dtype != DType::kUndefined; }
};

// Static cost of one execution of a node. Conventions: docs/cost-conventions.md.
struct Cost {
  double macs = 0;
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  double param_bytes = 0;
  double workspace_bytes = 0;
};

// A node as seen by an op while it parses its attributes.
class NodeInfo {
 public:
  NodeInfo(const ir::Graph& graph, const ir::Node& node, int64_t opset)
      : graph_(graph), node_(node), opset_(opset) {}

  const std::string& name() const { return node_.name; }
  const std::string& op_type() const { return node_.op_type; }
  // The enclosing graph, for ops that read the nodes around them (Gradient differentiates the
  // nodes that compute its target).
  const ir::Graph& graph() const { return graph_; }
  int64_t opset() const { return opset_; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const {
    return i < node_.inputs.size() && node_.inputs[i] != ir::kNoValue;
  }
  bool has_output(size_t i) const {
    return i < node_.outputs.size() && node_.outputs[i] != ir::kNoValue;
  }
  // The constant value of input i when it is an initializer or Constant output, else nullptr.
  const Tensor* constant_input(size_t i) const;

  bool has_attr(const char* name) const { return node_.attributes.count(name) > 0; }
  // How many of `names` the node sets (one pass over its few attributes, no lookups).
  int count_attrs(std::initializer_list<std::string_view> names) const;
  int64_t attr_int(const char* name, int64_t fallback) const;
  float attr_float(const char* name, float fallback) const;
  std::string attr_string(const char* name, std::string fallback = "") const;
  std::vector<int64_t> attr_ints(const char* name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> attr_floats(const char* name, std::vector<float> fallback = {}) const;
  std::vector<std::string> attr_strings(const char* name) const;
  const Tensor* attr_tensor(const char* name) const;  // nullptr when absent
  // A GRAPH attribute's subgraph (If branches, Loop and Scan bodies); fails when absent.
  const ir::Graph& required_graph(const char* name) const;
  // A TYPE_PROTO attribute (value_kind and dtype set), or nullptr when absent.
  const ir::Attribute* attr_type(const char* name) const;
  // Inputs the node's subgraphs read by name (ir::Node::implicit_inputs): the last ones.
  size_t num_implicit_inputs() const { return node_.implicit_inputs; }
  // The name of input i's value ("" when omitted).
  const std::string& input_name(size_t i) const;
  // Fails (exit 2) naming the attribute when it is absent.
  int64_t required_int(const char* name) const;
  std::vector<int64_t> required_ints(const char* name) const;

 private:
  const ir::Attribute* find(const char* name, ir::Attribute::Kind kind) const;
  const ir::Graph& graph_;
  const ir::Node& node_;
  int64_t opset_;
};

// Ops that generate their output from a few scalars or a shape (ConstantOfShape, Range) compute
// it during shape inference up to this many elements, so that shape computations built on it fold
// ahead of time; larger outputs are filled when run.
inline constexpr int64_t kMaxFoldedElements = 1024;

// The shape rule's view: input metas in, output metas out.
class InferContext {
 public:
  InferContext(const std::vector<const Meta*>& inputs, std::vector<Meta>& outputs)
      : inputs_(inputs), outputs_(outputs) {}

  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t i) const {
    return i < inputs_.size() && inputs_[i] && inputs_[i]->present();
  }
  const Meta& input(size_t i) const;  // fails if absent
  DType dtype(size_t i) const { return input(i).dtype; }
  const Shape& shape(size_t i) const { return input(i).shape; }
  // The value of input i; throws NotStatic when it is only known at run time.
  const Tensor& value(size_t i) const;
  // An integer input's values (any integer dtype), for shapes, axes, pads, sizes.
  std::vector<int64_t> ints(size_t i) const { return value(i).to_int64(); }
  // A float input's values read as doubles (scales, clip bounds).
  std::vector<double> doubles(size_t i) const { return value(i).to_double(); }

  size_t num_outputs() const { return outputs_.size(); }
  void set_output(size_t i, DType dtype, Shape shape);
  // A sequence or optional output of element type `elem` (ops that take lists: Op::takes_lists).
  void set_list_output(size_t i, ValueKind kind, DType elem);
  // For rules that know the output's value as well (Shape, Size): enables folding.
  void set_output_value(size_t i, Tensor value);
  // The same for a value the op keeps (a Constant's): shared, not copied.
  void set_output_value(size_t i, std::shared_ptr<const Tensor> value);

 private:
  const std::vector<const Meta*>& inputs_;
  std::vector<Meta>& outputs_;
};

// The cost rule's view: shapes are concrete here (symbolic costs come from the analyzer).
class CostContext {
 public:
  CostContext(const std::vector<const Meta*>& inputs, const std::vector<Meta>& outputs)
      : inputs_(inputs), outputs_(outputs) {}
  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t i) const {
    return i < inputs_.size() && inputs_[i] && inputs_[i]->present();
  }
  const Meta& input(size_t i) const { return *inputs_[i]; }
  const Meta& output(size_t i) const { return outputs_[i]; }
  size_t num_outputs() const { return outputs_.size(); }
  double numel_in(size_t i) const;  // 0 when absent
  double numel_out(size_t i) const;
  double bytes_in(size_t i) const;
  double bytes_out(size_t i) const;
  double all_input_bytes() const;
  double all_output_bytes() const;
  bool is_constant_input(size_t i) const {
    return has_input(i) && (inputs_[i]->value != nullptr || inputs_[i]->is_initializer);
  }

 private:
  const std::vector<const Meta*>& inputs_;
  const std::vector<Meta>& outputs_;
};

// The reference kernel's view: concrete input tensors and preallocated outputs.
class KernelContext {
 public:
  KernelContext(const Tensor* const* inputs, size_t num_inputs, Tensor* const* outputs,
                size_t num_outputs)
      : inputs_(inputs), num_inputs_(num_inputs), outputs_(outputs), num_outputs_(num_outputs) {}
  size_t num_inputs() const { return num_inputs_; }
  bool has_input(size_t i) const { return i < num_inputs_ && inputs_[i] && inputs_[i]->defined(); }
  const Tensor& input(size_t i) const { return *inputs_[i]; }
  size_t num_outputs() const { return num_outputs_; }
  Tensor& output(size_t i) const { return *outputs_[i]; }

 private:
  const Tensor* const* inputs_;
  size_t num_inputs_;
  Tensor* const* outputs_;
  size_t num_outputs_;
};

class Op {
 public:
  virtual ~Op() = default;
  // Shape rule: a pure function of input metas and attributes. Throws NotStatic when
  // a needed value or dim is only known at run time; fails (strata::fail) on invalid input.
  virtual void infer(InferContext& ctx) const = 0;
  // Cost rule; nullopt when the op has none (then it is listed, never counted as zero).
  virtual std::optional<Cost> cost(const CostContext& ctx) const;
  // Reference kernel: plain and obviously correct. Outputs are allocated with inferred shapes.
  virtual void run(KernelContext& ctx) const = 0;
  // True for inputs whose value the cost rule needs besides their shape (an If's condition, a
  // Loop's trip count, SequenceMap's sequences): known while running, so the profiler gives it;
  // the analyzer lists the node as "cost known at run time" when the value is not a constant.
  virtual bool cost_reads_value(size_t input) const {
    (void)input;
    return false;
  }
  // True for ops whose output differs between runs (random ops): never folded.
  virtual bool is_deterministic() const { return true; }
  // True for control-flow ops (If, Loop, Scan): the session runs their subgraphs itself and their
  // `run` is never called; they are never folded.
  virtual bool runs_subgraphs() const { return false; }
  // True for ops that read or write sequences and optionals; any other op given one fails naming
  // the input (check_tensor_inputs).
  virtual bool takes_lists() const { return false; }
};

// Fails naming the first input that is a sequence or optional when `op` takes only tensors.
void check_tensor_inputs(const Op& op, const std::vector<const Meta*>& inputs);

using OpFactory = std::unique_ptr<Op> (*)(const NodeInfo& node);

// The factory for an ai.onnx op type, or nullptr when strata does not implement it.
OpFactory find_op(std::string_view op_type);
// Every op type strata implements, in op_list.inc order.
const std::vector<std::string_view>& supported_ops();

// Cost of an op that reads every input once and writes every output once,
// doing `flops_per_element` arithmetic operations per output element.
Cost elementwise_cost(const CostContext& ctx, double flops_per_element);
// Cost of a data-movement op: no arithmetic, only bytes.
Cost data_movement_cost(const CostContext& ctx);

}  // namespace strata::ops
