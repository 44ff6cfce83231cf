// What a strata::Session holds (include/strata/session.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "passes/optimize.h"
#include "runtime/session.h"
#include "strata/model.h"
#include "strata/session.h"

namespace strata {

struct Session::Impl {
  std::string model_path;
  Model model;  // as loaded, before the passes (dumps are signed with its structure)
  // The model's graph, optimised for this session's input shapes; shared with clone()s.
  std::shared_ptr<const ir::Graph> graph;
  std::unique_ptr<runtime::Session> session;  // reads `graph`: declared after it
  std::vector<passes::PassRecord> passes;     // what the graph passes did at prepare
  std::vector<std::string> input_names;       // graph order
  std::vector<Tensor> prepared;               // inputs as given at prepare (dtypes and shapes)
  double load_ms = 0, prepare_ms = 0;
  bool has_run = false;             // the runtime session holds outputs (Session::outputs)
  runtime::SessionOptions options;  // as prepared (its algo cache shared with other sessions)

  // `inputs` by name in graph order, checked against the prepared dtypes and shapes when
  // `check` is set.
  std::vector<Tensor> order(const NamedArrays& inputs, bool check) const;
  std::vector<runtime::InputSpec> specs() const;  // of `prepared`
  static std::vector<const Tensor*> pointers(const std::vector<Tensor>& tensors);
  // Several input sets, each ordered and checked as by `order`, with the runtime's pointers into
  // them (valid while `tensors` lives and is not changed).
  struct OrderedSets {
    std::vector<std::vector<Tensor>> tensors;
    std::vector<std::vector<const Tensor*>> pointers;
  };
  OrderedSets order_sets(const std::vector<NamedArrays>& sets) const;
};

}  // namespace strata
