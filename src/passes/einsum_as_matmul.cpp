#include "passes/einsum_as_matmul.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "ops/einsum_equation.h"
#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// How the product reads its operands: the permutation of each operand to [batch..., rows, k] and
// [batch..., k, columns], and of the product [batch..., rows, columns] to the output's order.
struct Plan {
  std::vector<int64_t> perm_a, perm_b, perm_out;
};

bool identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != int64_t(i)) return false;
  return true;
}

int64_t position(const std::string& labels, char label) {
  return int64_t(labels.find(label));
}

std::optional<Plan> plan_of(const ir::Graph& graph, const ir::Node& node) {
  if (!is_onnx_op(node, "Einsum") || node.inputs.size() != 2 || node.outputs.size() != 1 ||
      input_at(node, 0) == ir::kNoValue || input_at(node, 1) == ir::kNoValue ||
      output_at(node, 0) == ir::kNoValue)
    return std::nullopt;
  ops::EinsumEquation eq;
  try {
    eq =
        ops::parse_einsum_equation(ops::NodeInfo(graph, node, graph.opset).attr_string("equation"));
  } catch (const std::exception&) {
    return std::nullopt;  // the op reports it, naming the node
  }
  const std::string &a = eq.inputs[0].labels, &b = eq.inputs[1].labels, &out = eq.output.labels;
  if (eq.inputs[0].has_ellipsis() || eq.inputs[1].has_ellipsis() || eq.output.has_ellipsis())
    return std::nullopt;
  const ir::Value &va = graph.values[size_t(node.inputs[0])],
                  &vb = graph.values[size_t(node.inputs[1])];
  if (!va.shape_known || !vb.shape_known || !is_float(va.dtype) || va.dtype != vb.dtype ||
      va.shape.rank() != int64_t(a.size()) || vb.shape.rank() != int64_t(b.size()))
    return std::nullopt;
  std::string batch, rows, columns, contracted;
  for (const std::string* term : {&a, &b, &out})
    for (size_t i = 0; i < term->size(); ++i)
      if (term->find((*term)[i]) != i) return std::nullopt;  // a diagonal
  for (char c : out) {
    const bool in_a = a.find(c) != std::string::npos, in_b = b.find(c) != std::string::npos;
    (in_a && in_b ? batch : in_a ? rows : columns) += c;
  }
  for (char c : a)
    if (out.find(c) == std::string::npos) {
      if (b.find(c) == std::string::npos) return std::nullopt;  // summed over alone
      contracted += c;
    }
  for (char c : b)
    if (out.find(c) == std::string::npos && a.find(c) == std::string::npos) return std::nullopt;
  if (rows.size() != 1 || columns.size() != 1 || contracted.size() != 1) return std::nullopt;
  for (char c : batch + contracted) {  // the same sizes in both operands: no broadcasting
    const Dim &da = va.shape[position(a, c)], &db = vb.shape[position(b, c)];
    if (!da.is_static() || !db.is_static() || da.value() != db.value()) return std::nullopt;
  }
  Plan p;
  const std::string product = batch + rows + columns;
  for (char c : batch + rows + contracted) p.perm_a.push_back(position(a, c));
  for (char c : batch + contracted + columns) p.perm_b.push_back(position(b, c));
  for (char c : out) p.perm_out.push_back(position(product, c));
  return p;
}

ir::Attribute ints_attribute(const std::vector<int64_t>& values) {
  ir::Attribute attr;
  attr.kind = ir::Attribute::Kind::kInts;
  attr.ints = values;
  return attr;
}

// A new value like `like`, permuted by `perm`, named `name`.
ir::ValueId add_permuted(ir::Graph& graph, ir::ValueId like, const std::vector<int64_t>& perm,
                         const std::string& name) {
  ir::Value v = graph.values[size_t(like)];
  const Shape shape = v.shape;
  for (size_t i = 0; i < perm.size(); ++i) v.shape[int64_t(i)] = shape[perm[i]];
  v.name = name;
  v.constant = nullptr;
  v.is_initializer = v.is_graph_input = v.is_graph_output = false;
  v.is_captured = false;
  graph.values.push_back(std::move(v));
  return ir::ValueId(graph.values.size() - 1);
}

ir::Node transpose(const std::string& name, ir::ValueId in, ir::ValueId out,
                   const std::vector<int64_t>& perm, const std::vector<std::string>& from) {
  ir::Node t;
  t.name = name;
  t.op_type = "Transpose";
  t.inputs = {in};
  t.outputs = {out};
  t.attributes["perm"] = ints_attribute(perm);
  t.fused_from = from;
  return t;
}

}  // namespace

size_t einsum_as_matmul(ir::Graph& graph) {
  size_t rewritten = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const std::optional<Plan> plan = plan_of(graph, graph.nodes[n]);
    if (!plan) continue;
    const ir::Node einsum = graph.nodes[n];
    const std::vector<std::string> from = origins(einsum);
    const std::string y_name = graph.values[size_t(einsum.outputs[0])].name;  // a copy: values grow
    std::vector<ir::Node> nodes;
    ir::ValueId a = einsum.inputs[0], b = einsum.inputs[1];
    if (!identity(plan->perm_a)) {
      const ir::ValueId t = add_permuted(graph, a, plan->perm_a, y_name + ".a");
      nodes.push_back(transpose(einsum.name + ".a", a, t, plan->perm_a, from));
      a = t;
    }
    if (!identity(plan->perm_b)) {
      const ir::ValueId t = add_permuted(graph, b, plan->perm_b, y_name + ".b");
      nodes.push_back(transpose(einsum.name + ".b", b, t, plan->perm_b, from));
      b = t;
    }
    ir::Node matmul;
    matmul.name = einsum.name;
    matmul.op_type = "MatMul";
    matmul.inputs = {a, b};
    matmul.fused_from = from;
    if (identity(plan->perm_out)) {
      matmul.outputs = {einsum.outputs[0]};
      nodes.push_back(std::move(matmul));
    } else {  // the product in [batch..., rows, columns], then the output's order
      std::vector<int64_t> inverse(plan->perm_out.size());
      for (size_t i = 0; i < inverse.size(); ++i) inverse[size_t(plan->perm_out[i])] = int64_t(i);
      const ir::ValueId product =
          add_permuted(graph, einsum.outputs[0], inverse, y_name + ".product");
      matmul.outputs = {product};
      nodes.push_back(std::move(matmul));
      nodes.push_back(
          transpose(einsum.name + ".out", product, einsum.outputs[0], plan->perm_out, from));
    }
    graph.nodes.erase(graph.nodes.begin() + int64_t(n));
    const size_t count = nodes.size();
    graph.nodes.insert(graph.nodes.begin() + int64_t(n), std::make_move_iterator(nodes.begin()),
                       std::make_move_iterator(nodes.end()));
    n += count - 1;
    ++rewritten;
  }
  if (rewritten) erase_nodes(graph, std::vector<bool>(graph.nodes.size(), false));
  return rewritten;
}

}  // namespace strata::passes
