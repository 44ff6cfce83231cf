#include "debug/finite.h"

#include <fmt/format.h>

#include "debug/dump.h"
#include "debug/tensor_stats.h"

namespace strata::debug {

namespace {

struct Stop {};  // thrown from the hook to end the run at the first non-finite node

class FiniteCheck final : public runtime::RunHooks {
 public:
  explicit FiniteCheck(const runtime::Session& session) : session_(session) {}
  void before_node(size_t) override {}
  void after_node(size_t s) override {
    const ir::Graph& graph = session_.graph();
    const ir::Node& node = graph.nodes[session_.steps()[s].node_index];
    const std::vector<Tensor*>& outputs = session_.step_outputs(s);
    for (size_t j = 0; j < outputs.size() && j < node.outputs.size(); ++j) {
      if (!outputs[j] || !outputs[j]->defined() || !is_float(outputs[j]->dtype())) continue;
      const TensorStats st = tensor_stats(plain_copy(*outputs[j]), 0);
      if (st.nans == 0 && st.infs == 0) continue;
      NonFinite f{
          node.name, node.op_type, node.fused_from, graph.values[size_t(node.outputs[j])].name,
          st.nans,   st.infs,      st.count,        {}};
      const std::vector<const Tensor*>& inputs = session_.step_inputs(s);
      for (size_t i = 0; i < inputs.size() && i < node.inputs.size(); ++i) {
        if (!inputs[i] || !is_float(inputs[i]->dtype())) continue;
        const TensorStats in = tensor_stats(plain_copy(*inputs[i]), 0);
        if (in.nans || in.infs)
          f.non_finite_inputs.push_back(fmt::format("'{}' ({} NaN, {} Inf)",
                                                    graph.values[size_t(node.inputs[i])].name,
                                                    in.nans, in.infs));
      }
      found = std::move(f);
      throw Stop{};
    }
  }
  std::optional<NonFinite> found;

 private:
  const runtime::Session& session_;
};

}  // namespace

std::optional<NonFinite> find_non_finite(runtime::Session& session,
                                         const std::vector<const Tensor*>& inputs) {
  FiniteCheck check(session);
  session.set_hooks(&check);
  try {
    session.run(inputs);
  } catch (const Stop&) {
  } catch (...) {
    session.set_hooks(nullptr);
    throw;
  }
  session.set_hooks(nullptr);
  return check.found;
}

std::string describe(const NonFinite& f) {
  return fmt::format(
      "node '{}' ({}{}) wrote {} NaN and {} Inf among the {} values of '{}'; {}", f.node, f.op_type,
      f.fused_from.empty() ? "" : fmt::format(", fused from {}", fmt::join(f.fused_from, ", ")),
      f.nans, f.infs, f.count, f.value,
      f.non_finite_inputs.empty()
          ? "its inputs were finite"
          : fmt::format("its inputs were not finite: {}", fmt::join(f.non_finite_inputs, ", ")));
}

}  // namespace strata::debug
