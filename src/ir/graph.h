// The in-memory model: values (tensors flowing between nodes) and nodes (operator applications).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace strata::ir {

struct Graph;

// Deepest nesting of subgraphs (If branches, Loop and Scan bodies) strata accepts; the loader
// refuses deeper models naming the depth and the node.
inline constexpr int kMaxSubgraphDepth = 64;

struct Attribute {
  enum class Kind {
    kFloat,
    kInt,
    kString,
    kTensor,
    kFloats,
    kInts,
    kStrings,
    kGraph,
    kType,  // a TypeProto (Optional's 'type'): value_kind and dtype (its element type)
    kOther
  };
  Kind kind = Kind::kOther;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  // A GRAPH attribute's subgraph (a control-flow body), read-only once loaded. GRAPHS attributes
  // are kept as kGraph with a null graph (no op strata implements takes one).
  std::shared_ptr<const Graph> graph;
  // kType: the kind of value the type names and its (innermost) element type.
  ValueKind value_kind = ValueKind::kTensor;
  DType dtype = DType::kUndefined;
};

// Index of a value in Graph::values; kNoValue marks an omitted optional input or output.
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  bool shape_known = false;                // false until shape inference (or the file) fills it
  std::shared_ptr<const Tensor> constant;  // initializer, Constant output or folded value
  // From the file's initializers (a parameter). Its `constant` may be null when the model was
  // loaded without reading weights (analysis); dtype and shape are known all the same.
  bool is_initializer = false;
  int32_t producer = -1;  // node index, -1 for graph inputs and initializers
  bool is_graph_input = false;
  bool is_graph_output = false;
  // In a subgraph: a value of an enclosing graph read by name (listed in Graph::captures).
  bool is_captured = false;
  // A sequence or optional (its dtype is then the element type, its shape unknown).
  ValueKind kind = ValueKind::kTensor;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" for ai.onnx
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  std::map<std::string, Attribute> attributes;
  // Names of the model's nodes this node stands for after a fusion pass (empty: only itself), so
  // that profiles can attribute its time back to the original ONNX nodes.
  std::vector<std::string> fused_from;
  // For nodes with subgraphs: the last `implicit_inputs` entries of `inputs` are the values of this
  // graph that the subgraphs read by name (their captures), so that lifetimes, dead-node removal
  // and ordering see them like any input. Ops count only the inputs before them.
  size_t implicit_inputs = 0;
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;      // in topological order after loading
  std::vector<ValueId> inputs;  // graph inputs that are not initializers
  std::vector<ValueId> outputs;
  // In a subgraph: values of enclosing graphs it reads by name, in first-use order. A session of
  // the subgraph binds them after its inputs, read in place from the enclosing run.
  std::vector<ValueId> captures;
  int64_t opset = 0;  // ai.onnx opset import
  int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::string graph_name;
  std::map<std::string, std::string> metadata;

  ValueId find_value(const std::string& name) const;
  // Human label for errors: "Conv node 'conv1'".
  std::string describe(const Node& node) const;
};

// Runs f, re-throwing any strata::Error with the node named first ("Conv node 'conv1': ...").
template <class F>
auto with_node_context(const Graph& graph, const Node& node, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), graph.describe(node) + ": " + e.what());
  }
}

// Orders nodes so that producers come before consumers; fails naming a node in a cycle.
void topological_sort(Graph& graph);

}  // namespace strata::ir
