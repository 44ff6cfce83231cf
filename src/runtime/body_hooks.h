// What RunHooks that also observe the nodes of subgraphs (If/Loop/Scan bodies) implement besides
// RunHooks: the session asks its hooks for this interface (dynamic_cast) when it runs a node with
// subgraphs, so hooks without it, and models without control flow, pay nothing.
#pragma once

#include <cstddef>

#include "ir/graph.h"
#include "runtime/session.h"

namespace strata::runtime {

class BodyHooks {
 public:
  virtual ~BodyHooks() = default;
  // Step `step` (a node with subgraphs, between its before_node and after_node) is about to run
  // its subgraph `label` ("then", "else", "body") once as the session `body`: returns the hooks
  // for that session's nodes (nullptr: its nodes are not observed). end_body follows every
  // begin_body, also when the body fails.
  virtual RunHooks* begin_body(size_t step, const ir::Node& node, const char* label,
                               const Session& body) = 0;
  virtual void end_body() = 0;
};

}  // namespace strata::runtime
