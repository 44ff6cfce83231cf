// strata::analyze (include/strata/analysis.h): the analyzer of `strata analyze` behind the public
// API. The typed figures are read from the analysis' JSON form so that both say the same.
#include "strata/analysis.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analyzer/analyze.h"
#include "core/error.h"
#include "onnx/loader.h"
#include "report/analysis_json.h"
#include "report/analysis_text.h"

namespace strata {

struct Analysis::Impl {
  ir::Graph graph;
  analyzer::Analysis analysis;
  nlohmann::json json;
  AnalysisTotals totals;
  std::vector<NodeFigures> nodes;
  std::vector<std::string> warnings;
};

namespace {

std::optional<double> number(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

Analysis analyze(const std::string& model_path, const AnalysisOptions& options) {
  analyzer::AnalyzeOptions analyze_options;
  for (const auto& [name, text] : options.shapes)
    analyze_options.input_shapes[name] = analyzer::parse_symbolic_shape(text, "shape " + name);
  for (const auto& [name, size] : options.dims) {
    if (size < 0) fail("dim {}: {} is not a size", name, size);
    analyze_options.dims[name] = size;
  }
  auto impl = std::make_shared<Analysis::Impl>();
  onnx_import::LoadResult loaded = onnx_import::load_model(model_path, {.read_weights = false});
  impl->graph = std::move(loaded.graph);
  impl->analysis = analyzer::analyze(impl->graph, analyze_options);
  impl->warnings = loaded.warnings;
  for (const std::string& w : impl->analysis.warnings) impl->warnings.push_back(w);
  impl->json = report::analysis_json(impl->graph, impl->analysis);
  impl->json["model"] = model_path;

  const nlohmann::json& t = impl->json["totals"];
  AnalysisTotals& totals = impl->totals;
  totals.params = t["params"].get<int64_t>();
  totals.param_bytes = t["param_bytes"].get<double>();
  totals.complete = t["complete"].get<bool>();
  totals.macs = number(t, "macs");
  totals.flops = number(t, "flops");
  totals.backward_flops = number(t, "backward_flops");
  totals.bytes_read = number(t, "bytes_read");
  totals.peak_activation_bytes = number(t, "peak_activation_bytes");
  totals.arena_bytes = number(t, "arena_bytes");
  totals.input_bytes = number(t, "input_bytes");
  const analyzer::Analysis& a = impl->analysis;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const nlohmann::json& n = impl->json["nodes"][i];
    NodeFigures f;
    f.name = impl->graph.nodes[i].name;
    f.op_type = impl->graph.nodes[i].op_type;
    f.state = n["state"].get<std::string>();
    f.folded = a.nodes[i].folded;
    f.params = a.nodes[i].params;
    f.macs = number(n, "macs");
    f.flops = number(n, "flops");
    f.bytes_read = number(n, "bytes_read");
    f.output_bytes = number(n, "output_bytes");
    for (const analyzer::OutputInfo& out : a.nodes[i].outputs)
      f.output_shapes.push_back(
          fmt::format("{}{}", dtype_name(out.dtype), report::output_shape(a, out)));
    impl->nodes.push_back(std::move(f));
  }
  return Analysis(std::move(impl));
}

const AnalysisTotals& Analysis::totals() const {
  return impl_->totals;
}
const std::vector<NodeFigures>& Analysis::nodes() const {
  return impl_->nodes;
}
const std::vector<std::string>& Analysis::warnings() const {
  return impl_->warnings;
}
std::string Analysis::to_json() const {
  return impl_->json.dump(2);
}

std::string Analysis::render() const {
  const report::AnalysisViewOptions view;
  return report::render_analysis_totals(impl_->analysis, view) +
         report::render_analysis_tables(impl_->graph, impl_->analysis, view);
}

}  // namespace strata
