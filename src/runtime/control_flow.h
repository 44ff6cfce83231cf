// How the session runs a node with subgraphs (If, Loop, Scan, SequenceMap, FlexAttention): each
// body gets a Session of its own, prepared for the dtypes and shapes it is called with (normal
// shape inference, folding, kernel choice and memory plan) and kept for later calls and iterations
// with the same ones. Values the body captures from the enclosing graph are bound to the body
// session like inputs and read in place; constants among them stay constants in the body (folded
// there).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ops/op.h"
#include "runtime/session.h"

namespace strata::runtime {

class SubgraphRunner {
 public:
  SubgraphRunner(const ir::Graph& graph, const ir::Node& node, const ops::Op& op,
                 const SessionOptions& options);
  ~SubgraphRunner();

  // Runs the node. `inputs` are its inputs, implicit ones included (nullptr when omitted), in
  // plain layout; `constants` holds the value of each input known ahead of time (else null).
  // Returns its outputs. Stops (exit 2) once `deadline` has passed. `hooks` (may be null) are the
  // enclosing session's, told of each body run as step `step` when they implement BodyHooks.
  std::vector<Tensor> run(const std::vector<const Tensor*>& inputs,
                          const std::vector<std::shared_ptr<const Tensor>>& constants,
                          const Deadline& deadline, RunHooks* hooks, size_t step);

  // Body sessions prepared so far (one per body and distinct input shapes).
  size_t sessions() const;

 private:
  struct Body {
    const ir::Graph* graph = nullptr;
    // A Loop body with its carried inputs' declared dims made anonymous (graph points at it):
    // exporters declare the first iteration's shapes, and a carried value may grow every iteration
    // (torch.onnx's list appends in torchvision's mask pasting).
    std::shared_ptr<ir::Graph> relaxed;
    const char* label = "body";          // "then", "else" or "body": its part of profile row names
    std::vector<size_t> capture_inputs;  // node input index of each capture
    std::map<std::vector<int64_t>, std::unique_ptr<Session>> sessions;  // by bound dtypes+shapes
  };
  // Runs body b once on `args` (its inputs) and the node's captured inputs; returns copies of its
  // outputs.
  std::vector<Tensor> run_body(Body& body, const std::vector<const Tensor*>& args,
                               const std::vector<const Tensor*>& node_inputs,
                               const std::vector<std::shared_ptr<const Tensor>>& constants,
                               const Deadline& deadline);
  std::vector<Tensor> run_if(const std::vector<const Tensor*>& inputs,
                             const std::vector<std::shared_ptr<const Tensor>>& constants,
                             const Deadline& deadline);
  std::vector<Tensor> run_loop(const std::vector<const Tensor*>& inputs,
                               const std::vector<std::shared_ptr<const Tensor>>& constants,
                               const Deadline& deadline);
  std::vector<Tensor> run_sequence_map(const std::vector<const Tensor*>& inputs,
                                       const std::vector<std::shared_ptr<const Tensor>>& constants,
                                       const Deadline& deadline);
  // FlexAttention: its stages (ops/flex_attention.h) with score_mod and prob_mod between them.
  std::vector<Tensor> run_flex_attention(
      const std::vector<const Tensor*>& inputs,
      const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline);
  std::vector<Tensor> run_scan(const std::vector<const Tensor*>& inputs,
                               const std::vector<std::shared_ptr<const Tensor>>& constants,
                               const Deadline& deadline);

  // One scan over `values` (states, then scan inputs; one batch item before opset 9).
  std::vector<Tensor> scan_once(const std::vector<const Tensor*>& values,
                                const std::vector<const Tensor*>& node_inputs,
                                const std::vector<std::shared_ptr<const Tensor>>& constants,
                                const Deadline& deadline);

  const ir::Graph& graph_;
  const ir::Node& node_;
  const ops::Op& op_;
  SessionOptions options_;
  std::vector<Body> bodies_;
  RunHooks* hooks_ = nullptr;  // of the current run
  size_t step_ = 0;
};

}  // namespace strata::runtime
