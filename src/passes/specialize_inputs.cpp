#include "passes/specialize_inputs.h"

#include "passes/infer_shapes.h"

namespace strata::passes {

void specialize_inputs(ir::Graph& graph, const std::vector<std::vector<int64_t>>& shapes) {
  if (shapes.size() != graph.inputs.size())
    fail("the model has {} inputs but {} shapes were given", graph.inputs.size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    ir::Value& v = graph.values[size_t(graph.inputs[i])];
    if (v.kind != ValueKind::kTensor) continue;  // sequences and optionals have no shape
    const Shape given = Shape::of(shapes[i]);
    if (v.shape_known) {
      bool fits = v.shape.rank() == given.rank();
      for (int64_t d = 0; fits && d < given.rank(); ++d)
        fits = !v.shape[d].is_static() || v.shape[d] == given[d];
      if (!fits)
        fail("input '{}' has shape {} but the model expects {}", v.name, given.str(),
             v.shape.str());
    }
    v.shape = given;
    v.shape_known = true;
  }
  infer_shapes(graph);
}

}  // namespace strata::passes
