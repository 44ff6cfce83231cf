#include "profiler/step_description.h"

#include <fmt/format.h>

#include <string>

namespace strata::profiler {

namespace {

std::string tensor_type(const Tensor& t) {
  return fmt::format("{}{}", dtype_name(t.dtype()), t.shape_str());
}

// The live tensor's type, with what the session knows beside it (a constant's value: the cost
// rule counts its bytes as parameters).
ops::Meta meta_of(const Tensor& t, const ops::Meta& known) {
  ops::Meta m = known;
  m.dtype = t.dtype();
  m.shape = Shape::of(t.shape());
  return m;
}

}  // namespace

NodeProfile describe_step(const runtime::Session& session, size_t s) {
  const ir::Graph& graph = session.graph();
  const std::vector<ops::Meta>& metas = session.metas();
  NodeProfile row;
  {
    const runtime::StepInfo& step = session.steps()[s];
    const ir::Node& node = graph.nodes[step.node_index];
    row.name = node.name;
    row.op_type = node.op_type;
    row.kernel = step.kernel;
    row.kernel_reason = step.reason;
    row.run_note = session.run_note(s);
    row.layout = step.layout;
    if (s < session.stats().arena_live_bytes.size())
      row.arena_live_bytes = session.stats().arena_live_bytes[s];

    std::vector<ops::Meta> in_metas(node.inputs.size()), out_metas(node.outputs.size());
    std::vector<const ops::Meta*> in(node.inputs.size(), nullptr);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const Tensor* t = session.step_inputs(s)[i];
      if (!t || !t->defined()) continue;
      in_metas[i] = meta_of(*t, metas[size_t(node.inputs[i])]);
      // A value the cost rule needs (a Loop's trip count; for a node with subgraphs, any integer:
      // a body's shapes may depend on what it captures): the live tensor, borrowed for the call.
      const ops::Op& op = session.op(step.node_index);
      if (op.cost_reads_value(i) ||
          (op.runs_subgraphs() && t->kind() == ValueKind::kTensor && is_integer(t->dtype())))
        in_metas[i].value = std::shared_ptr<const Tensor>(std::shared_ptr<const Tensor>(), t);
      in[i] = &in_metas[i];
      row.input_shapes.push_back(tensor_type(*t));
    }
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const Tensor& t = *session.step_outputs(s)[j];
      const ops::Meta& known = metas[size_t(node.outputs[j])];
      out_metas[j] = meta_of(t, known);
      row.output_shapes.push_back(tensor_type(t));
      // Outputs typed at prepare time live in the planned arena; the others are allocated while
      // running (and counted as heap allocations).
      if (known.present() && !known.value)
        row.arena_bytes += layout_bytes(t.dtype(), t.shape(), t.layout());
    }
    const std::optional<ops::Cost> cost =
        session.op(step.node_index).cost(ops::CostContext(in, out_metas));
    row.has_cost = cost.has_value();
    if (cost) {
      row.macs = cost->macs;
      row.flops = cost->flops;
      row.bytes_read = cost->bytes_read;
      row.bytes_written = cost->bytes_written;
    }
  }
  return row;
}

std::vector<NodeProfile> describe_steps(const runtime::Session& session) {
  std::vector<NodeProfile> rows;
  rows.reserve(session.steps().size());
  for (size_t s = 0; s < session.steps().size(); ++s) rows.push_back(describe_step(session, s));
  return rows;
}

}  // namespace strata::profiler
