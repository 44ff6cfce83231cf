#include "ir/graph.h"

#include <fmt/format.h>

#include <queue>

#include "core/error.h"

namespace strata::ir {

ValueId Graph::find_value(const std::string& name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return ValueId(i);
  return kNoValue;
}

std::string Graph::describe(const Node& node) const {
  return fmt::format("{} node '{}'", node.op_type, node.name);
}

void topological_sort(Graph& graph) {
  const size_t n = graph.nodes.size();
  std::vector<int32_t> producer(graph.values.size(), -1);
  for (size_t i = 0; i < n; ++i)
    for (ValueId v : graph.nodes[i].outputs)
      if (v != kNoValue) producer[size_t(v)] = int32_t(i);

  std::vector<int> pending(n, 0);
  std::vector<std::vector<int32_t>> consumers(n);
  for (size_t i = 0; i < n; ++i) {
    for (ValueId v : graph.nodes[i].inputs) {
      if (v == kNoValue || producer[size_t(v)] < 0) continue;
      ++pending[i];
      consumers[size_t(producer[size_t(v)])].push_back(int32_t(i));
    }
  }
  // Kahn's algorithm, taking ready nodes in file order so a sorted file stays as it is.
  std::vector<int32_t> order;
  order.reserve(n);
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(int32_t(i));
  while (!ready.empty()) {
    const int32_t next = ready.top();
    ready.pop();
    order.push_back(next);
    for (int32_t c : consumers[size_t(next)])
      if (--pending[size_t(c)] == 0) ready.push(c);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (pending[i] > 0) fail("the graph has a cycle through {}", graph.describe(graph.nodes[i]));
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (int32_t i : order) sorted.push_back(std::move(graph.nodes[size_t(i)]));
  graph.nodes = std::move(sorted);
  for (size_t i = 0; i < n; ++i)
    for (ValueId v : graph.nodes[i].outputs)
      if (v != kNoValue) graph.values[size_t(v)].producer = int32_t(i);
}

}  // namespace strata::ir
