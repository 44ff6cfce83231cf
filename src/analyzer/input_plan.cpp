#include "analyzer/input_plan.h"

#include <fmt/format.h>

#include <cctype>

#include "analyzer/polynomial.h"
#include "core/error.h"

namespace strata::analyzer {

bool InputPlan::all_sizes_known() const {
  for (const auto& s : sizes)
    if (!s) return false;
  return true;
}

std::vector<Shape> InputPlan::symbolic_shapes() const {
  std::vector<Shape> shapes;
  for (const std::vector<int64_t>& input : dims) {
    Shape s;
    for (int64_t d : input) s.push_back(d >= 0 ? Dim(d) : Dim::symbol(symbols[size_t(-d - 1)]));
    shapes.push_back(std::move(s));
  }
  return shapes;
}

std::vector<Shape> InputPlan::shapes_at(const std::vector<int64_t>& values) const {
  std::vector<Shape> shapes;
  for (const std::vector<int64_t>& input : dims) {
    Shape s;
    for (int64_t d : input) s.push_back(d >= 0 ? d : values[size_t(-d - 1)]);
    shapes.push_back(std::move(s));
  }
  return shapes;
}

std::string InputPlan::sizes_str(const std::vector<int64_t>& values) const {
  std::vector<std::string> parts;
  for (size_t s = 0; s < symbols.size(); ++s)
    parts.push_back(fmt::format("{}={}", symbols[s], values[s]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::vector<std::pair<size_t, int64_t>> InputPlan::trips_at(
    const std::vector<int64_t>& sizes) const {
  std::vector<std::pair<size_t, int64_t>> trips;
  const size_t first = symbols.size() - trip_loops.size();
  for (size_t k = 0; k < trip_loops.size(); ++k) trips.push_back({trip_loops[k], sizes[first + k]});
  return trips;
}

std::string trip_symbol(const ir::Graph& graph, size_t node) {
  const std::string& name = graph.nodes[node].name;
  return (name.empty() ? fmt::format("loop#{}", node) : name) + ".trips";
}

InputPlan plan_inputs(const ir::Graph& graph, const std::map<std::string, Shape>& input_shapes,
                      const std::map<std::string, int64_t>& dims,
                      const std::vector<size_t>& trip_loops) {
  InputPlan plan;
  std::map<std::string, size_t> symbol_index;
  auto symbol = [&](const std::string& name) {
    auto [it, inserted] = symbol_index.try_emplace(name, plan.symbols.size());
    if (inserted) plan.symbols.push_back(name);
    return -int64_t(it->second) - 1;
  };
  for (const auto& [name, shape] : input_shapes) {
    bool found = false;
    for (ir::ValueId id : graph.inputs) found |= graph.values[size_t(id)].name == name;
    if (!found) {
      std::vector<std::string> names;
      for (ir::ValueId id : graph.inputs) names.push_back(graph.values[size_t(id)].name);
      fail("the model has no input named '{}' (its inputs: {})", name, fmt::join(names, ", "));
    }
  }
  for (ir::ValueId id : graph.inputs) {
    const ir::Value& v = graph.values[size_t(id)];
    const auto given = input_shapes.find(v.name);
    if (v.kind != ValueKind::kTensor)
      fail("input '{}' is a {}: strata analyze takes models whose inputs are tensors", v.name,
           value_kind_name(v.kind));
    if (given == input_shapes.end() && !v.shape_known)
      fail("input '{}' has no shape in the model; give it one (--shape {}=1x3x224x224)", v.name,
           v.name);
    const Shape& declared = v.shape;
    const Shape& shape = given != input_shapes.end() ? given->second : declared;
    if (given != input_shapes.end() && v.shape_known) {
      bool fits = shape.rank() == declared.rank();
      for (int64_t d = 0; fits && d < shape.rank(); ++d)
        fits = !declared[d].is_static() || !shape[d].is_static() ||
               declared[d].value() == shape[d].value();
      if (!fits)
        fail("input '{}' has shape {} in the model; {} does not fit it", v.name, declared.str(),
             shape.str());
    }
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      const Dim& dim = shape[d];
      if (dim.is_static()) {
        sizes.push_back(dim.value());
      } else if (dim.symbol()[0] == '?') {  // left open in the model: name it after its place
        sizes.push_back(symbol(fmt::format("{}[{}]", v.name, d)));
      } else {
        sizes.push_back(symbol(dim.symbol()));
      }
    }
    plan.dims.push_back(std::move(sizes));
  }
  for (size_t n : trip_loops) {
    const std::string name = trip_symbol(graph, n);
    if (symbol_index.count(name)) fail("the loop symbol '{}' is also an input's dim", name);
    symbol(name);
    plan.trip_loops.push_back(n);
  }
  for (const auto& [name, size] : dims) {
    if (!symbol_index.count(name))
      fail("the model has no symbolic dim named '{}' ({})", name,
           plan.symbols.empty()
               ? std::string("it has none")
               : fmt::format("its symbolic dims: {}", fmt::join(plan.symbols, ", ")));
    if (size < 0) fail("dim {} = {} is negative", name, size);
  }
  for (const std::string& s : plan.symbols) {
    const auto it = dims.find(s);
    plan.sizes.push_back(it == dims.end() ? std::nullopt : std::optional<int64_t>(it->second));
  }
  if (plan.symbols.size() > kMaxSymbols)
    fail("the model has {} symbolic dims ({}); formulas take at most {}: give sizes to the others",
         plan.symbols.size(), fmt::join(plan.symbols, ", "), kMaxSymbols);
  return plan;
}

Shape parse_symbolic_shape(const std::string& text, const std::string& what) {
  // Commas when present (names may then contain 'x': "1,max_len"), else 'x'.
  const char separator = text.find(',') != std::string::npos ? ',' : 'x';
  Shape shape;
  size_t pos = 0;
  while (true) {
    const size_t next = text.find(separator, pos);
    const std::string part = text.substr(pos, next == std::string::npos ? next : next - pos);
    const bool number = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    const bool name = !part.empty() &&
                      (std::isalpha(static_cast<unsigned char>(part[0])) || part[0] == '_') &&
                      part.find_first_not_of(
                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789_") == std::string::npos;
    if ((!number && !name) || (number && part.size() > 12))
      fail("{}: '{}' is not a shape like 1x3x224x224 or Nx3xHxW", what, text);
    shape.push_back(number ? Dim(std::stoll(part)) : Dim::symbol(part));
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return shape;
}

}  // namespace strata::analyzer
