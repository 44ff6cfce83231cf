#include "passes/check_supported.h"

#include <fmt/format.h>

#include "ops/internal_ops.h"

namespace strata::passes {

void check_supported(const ir::Graph& graph, const std::string& source) {
  std::vector<std::string> unsupported;
  for (const ir::Node& node : graph.nodes) {
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    if (ops::find_op_in_domain(node.domain, node.op_type)) continue;
    unsupported.push_back(
        default_domain ? fmt::format("{} (opset {}) at '{}'", node.op_type, graph.opset, node.name)
                       : fmt::format("{}:{} at '{}'", node.domain, node.op_type, node.name));
  }
  if (unsupported.empty()) return;
  fail("{}: {} unsupported op{}: {}", source, unsupported.size(),
       unsupported.size() == 1 ? "" : "s", fmt::join(unsupported, ", "));
}

}  // namespace strata::passes
