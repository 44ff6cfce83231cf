#include "passes/check_supported.h"

#include <fmt/format.h>

#include "ops/internal_ops.h"

namespace strata::passes {

namespace {

// Nodes of `graph` and of its subgraphs, recursively, whose op strata does not implement.
void list_unsupported(const ir::Graph& graph, std::vector<std::string>& unsupported) {
  for (const ir::Node& node : graph.nodes) {
    for (const auto& [name, attribute] : node.attributes)
      if (attribute.graph) list_unsupported(*attribute.graph, unsupported);
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    if (ops::find_op_in_domain(node.domain, node.op_type)) continue;
    unsupported.push_back(
        default_domain ? fmt::format("{} (opset {}) at '{}'", node.op_type, graph.opset, node.name)
                       : fmt::format("{}:{} at '{}'", node.domain, node.op_type, node.name));
  }
}

}  // namespace

void check_supported(const ir::Graph& graph, const std::string& source) {
  std::vector<std::string> unsupported;
  list_unsupported(graph, unsupported);
  if (unsupported.empty()) return;
  fail("{}: {} unsupported op{}: {}", source, unsupported.size(),
       unsupported.size() == 1 ? "" : "s", fmt::join(unsupported, ", "));
}

}  // namespace strata::passes
