#include "passes/infer_shapes.h"

#include <algorithm>
#include <memory>

#include "core/checked.h"
#include "ops/internal_ops.h"
#include "ops/string_ops.h"

namespace strata::passes {

using ir::with_node_context;

std::unique_ptr<ops::Op> make_op(const ir::Graph& graph, const ir::Node& node) {
  const ops::OpFactory factory = ops::find_op_in_domain(node.domain, node.op_type);
  if (!factory) fail("{}: the op is not supported", graph.describe(node));
  return make_op(graph, node, factory);
}

std::unique_ptr<ops::Op> make_op(const ir::Graph& graph, const ir::Node& node,
                                 ops::OpFactory factory) {
  return with_node_context(graph, node,
                           [&] { return factory(ops::NodeInfo(graph, node, graph.opset)); });
}

void check_outputs_made(const ir::Graph& graph, const ir::Node& node,
                        const std::vector<ops::Meta>& out) {
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (node.outputs[i] != ir::kNoValue && !out[i].present())
      fail("output {} '{}' is one the op does not make", i,
           graph.values[size_t(node.outputs[i])].name);
}

std::optional<std::vector<ops::Meta>> infer_node(const ir::Graph& graph, const ir::Node& node,
                                                 const ops::Op& op,
                                                 const std::vector<ops::Meta>& metas) {
  std::vector<const ops::Meta*> in;
  in.reserve(node.inputs.size());
  for (ir::ValueId id : node.inputs) {
    if (id == ir::kNoValue) {
      in.push_back(nullptr);
      continue;
    }
    if (!metas[size_t(id)].present()) return std::nullopt;
    in.push_back(&metas[size_t(id)]);
  }
  std::vector<ops::Meta> out(node.outputs.size());
  try {
    ops::InferContext ctx(in, out);
    with_node_context(graph, node, [&] {
      ops::check_tensor_inputs(op, in);
      op.infer(ctx);
      check_outputs_made(graph, node, out);
    });
  } catch (const NotStatic&) {
    return std::nullopt;
  }
  for (const ops::Meta& m : out)
    if (!m.present()) return std::nullopt;
  return out;
}

bool fold_node(const ir::Graph& graph, const ir::Node& node, const ops::Op& op,
               const std::vector<ops::Meta>& metas, std::vector<ops::Meta>& out,
               int64_t max_bytes) {
  bool outputs_known = true;
  for (const ops::Meta& m : out) outputs_known &= m.value != nullptr;
  if (outputs_known) return true;
  if (!op.is_deterministic() || op.runs_subgraphs()) return false;
  for (const ops::Meta& m : out)  // sequences and optionals are made while running
    if (m.kind != ValueKind::kTensor) return false;
  for (ir::ValueId id : node.inputs)
    if (id != ir::kNoValue && metas[size_t(id)].kind != ValueKind::kTensor) return false;
  // Strings only meet the ops written for them (the session refuses the others with a message).
  for (ir::ValueId id : node.inputs)
    if (id != ir::kNoValue && metas[size_t(id)].dtype == DType::kString &&
        !ops::handles_strings(node.op_type))
      return false;
  for (const ops::Meta& m : out)
    if (!m.shape.is_static()) return false;
  // Pointers on the stack for the usual few inputs and outputs: the analyzer folds thousands of
  // shape-computation nodes per analysis, so this path avoids needless allocations.
  constexpr size_t kFew = 8;
  const Tensor* in_few[kFew];
  std::vector<const Tensor*> in_many;
  const Tensor** in = in_few;
  if (node.inputs.size() > kFew) {
    in_many.resize(node.inputs.size());
    in = in_many.data();
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ir::ValueId id = node.inputs[i];
    if (id != ir::kNoValue && !metas[size_t(id)].value) return false;
    in[i] = id == ir::kNoValue ? nullptr : metas[size_t(id)].value.get();
  }
  int64_t bytes = 0;
  for (const ops::Meta& m : out) {
    int64_t numel = 1;
    for (const Dim& d : m.shape.dims()) {
      if (d.value() < 0) fail("negative dimension {}", d.value());
      numel = checked_mul(numel, d.value());
    }
    bytes = checked_add(bytes, checked_mul(numel, int64_t(dtype_size(m.dtype))));
  }
  if (bytes > max_bytes) return false;
  std::shared_ptr<Tensor> values_few[kFew];
  Tensor* out_few[kFew];
  std::vector<std::shared_ptr<Tensor>> values_many;
  std::vector<Tensor*> out_many;
  std::shared_ptr<Tensor>* values = values_few;
  Tensor** out_ptrs = out_few;
  if (out.size() > kFew) {
    values_many.resize(out.size());
    out_many.resize(out.size());
    values = values_many.data();
    out_ptrs = out_many.data();
  }
  for (size_t j = 0; j < out.size(); ++j) {
    values[j] = std::make_shared<Tensor>(Tensor::zeros(out[j].dtype, out[j].shape.values()));
    out_ptrs[j] = values[j].get();
  }
  ops::KernelContext ctx(in, node.inputs.size(), out_ptrs, out.size());
  with_node_context(graph, node, [&] { op.run(ctx); });
  for (size_t j = 0; j < out.size(); ++j) out[j].value = std::move(values[j]);
  return true;
}

InferStats infer_shapes(ir::Graph& graph) {
  InferStats stats;
  std::vector<ops::Meta> metas(graph.values.size());
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const ir::Value& v = graph.values[id];
    if (v.constant || v.is_initializer) {  // initializers loaded without data have no value
      metas[id] = {v.dtype, v.shape, v.constant, v.is_initializer};
    } else if (v.is_graph_input && v.shape_known) {
      metas[id] = {v.dtype, v.shape, nullptr};
    } else if (v.is_graph_input && v.kind != ValueKind::kTensor) {
      metas[id] = {v.dtype, Shape(), nullptr, false, v.kind};
    }
  }
  for (const ir::Node& node : graph.nodes) {
    const std::unique_ptr<ops::Op> op = make_op(graph, node);
    std::optional<std::vector<ops::Meta>> out = infer_node(graph, node, *op, metas);
    if (out) fold_node(graph, node, *op, metas, *out, kMaxShapeFoldBytes);
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      ir::Value& v = graph.values[size_t(node.outputs[j])];
      if (out) {
        metas[size_t(node.outputs[j])] = (*out)[j];
        v.dtype = (*out)[j].dtype;
        v.shape = (*out)[j].shape;
        v.kind = (*out)[j].kind;
        v.shape_known = v.kind == ValueKind::kTensor;
        ++stats.inferred;
      } else if (v.shape_known || (v.kind != ValueKind::kTensor && v.dtype != DType::kUndefined)) {
        metas[size_t(node.outputs[j])] = {v.dtype, v.shape, nullptr, false,
                                          v.kind};  // consumers go on from it
        ++stats.declared;                           // keep what the file declares
      } else {
        ++stats.unknown;
      }
    }
  }
  return stats;
}

namespace {

// Shape inference through a subgraph; with `cost`, also sums its nodes' costs, resetting it to
// nullopt when a node has no cost rule or a shape that is not static.
std::vector<ops::Meta> walk_subgraph(const ir::Graph& graph, const std::vector<ops::Meta>& bound,
                                     std::optional<ops::Cost>* cost) {
  std::vector<ops::Meta> metas(graph.values.size());
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const ir::Value& v = graph.values[id];
    if (v.constant || v.is_initializer)
      metas[id] = {v.dtype, v.shape, v.constant, v.is_initializer};
  }
  size_t b = 0;
  for (const std::vector<ir::ValueId>* list : {&graph.inputs, &graph.captures})
    for (ir::ValueId id : *list) {
      const ir::Value& v = graph.values[size_t(id)];
      if (b < bound.size() && bound[b].present())
        metas[size_t(id)] = bound[b];
      else if (v.shape_known)
        metas[size_t(id)] = {v.dtype, v.shape, nullptr};
      else if (v.kind != ValueKind::kTensor && v.dtype != DType::kUndefined)
        metas[size_t(id)] = {v.dtype, Shape(), nullptr, false, v.kind};
      ++b;
    }
  for (const ir::Node& node : graph.nodes) {
    const std::unique_ptr<ops::Op> op = make_op(graph, node);
    std::optional<std::vector<ops::Meta>> out = infer_node(graph, node, *op, metas);
    if (out && !op->runs_subgraphs()) fold_node(graph, node, *op, metas, *out, kMaxShapeFoldBytes);
    if (cost && *cost) {
      bool folded = out.has_value();
      if (out)
        for (const ops::Meta& m : *out) folded &= m.value != nullptr;
      std::optional<ops::Cost> c;
      if (out && !folded) {
        bool is_static = true;
        for (const ops::Meta& m : *out) is_static &= m.shape.is_static();
        std::vector<const ops::Meta*> in;
        for (ir::ValueId id : node.inputs) {
          in.push_back(id == ir::kNoValue ? nullptr : &metas[size_t(id)]);
          is_static &= id == ir::kNoValue || metas[size_t(id)].shape.is_static();
        }
        if (is_static)
          c = with_node_context(graph, node, [&] { return op->cost(ops::CostContext(in, *out)); });
      }
      if (folded) c = ops::Cost{};  // computed once ahead of time
      if (!c) {
        cost->reset();
      } else {
        (*cost)->macs += c->macs;
        (*cost)->flops += c->flops;
        (*cost)->bytes_read += c->bytes_read;
        (*cost)->bytes_written += c->bytes_written;
        (*cost)->param_bytes += c->param_bytes;
        (*cost)->workspace_bytes = std::max((*cost)->workspace_bytes, c->workspace_bytes);
      }
    }
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const ir::Value& v = graph.values[size_t(node.outputs[j])];
      if (out)
        metas[size_t(node.outputs[j])] = (*out)[j];
      else if (v.shape_known || (v.kind != ValueKind::kTensor && v.dtype != DType::kUndefined))
        metas[size_t(node.outputs[j])] = {v.dtype, v.shape, nullptr, false, v.kind};
    }
  }
  std::vector<ops::Meta> outputs;
  for (ir::ValueId id : graph.outputs) outputs.push_back(metas[size_t(id)]);
  return outputs;
}

}  // namespace

std::vector<ops::Meta> infer_subgraph(const ir::Graph& graph, const std::vector<ops::Meta>& bound) {
  return walk_subgraph(graph, bound, nullptr);
}

std::optional<ops::Cost> subgraph_cost(const ir::Graph& graph,
                                       const std::vector<ops::Meta>& bound) {
  std::optional<ops::Cost> cost = ops::Cost{};
  walk_subgraph(graph, bound, &cost);
  return cost;
}

}  // namespace strata::passes
