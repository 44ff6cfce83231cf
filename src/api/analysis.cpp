// strata::analyze (include/strata/analysis.h): the analyzer of `strata analyze` behind the public
// API. The typed figures are read from the analysis' JSON form so that both say the same.
#include "strata/analysis.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>

#include "analyzer/analyze.h"
#include "core/error.h"
#include "io/file.h"
#include "onnx/loader.h"
#include "report/analysis_json.h"
#include "report/analysis_text.h"
#include "report/html_report.h"
#include "report/progress.h"
#include "runtime/timing.h"

namespace strata {

struct Analysis::Impl {
  ir::Graph graph;
  analyzer::Analysis analysis;
  nlohmann::json json;
  AnalysisTotals totals;
  std::vector<NodeFigures> nodes;
  std::vector<std::string> warnings;
  AnalysisAbout about;
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
    analyze_options.input_shapes[name] =
        analyzer::parse_symbolic_shape(text, options.shape_option + " " + name);
  for (const auto& [name, size] : options.dims) {
    if (size < 0) fail("dim {}: {} is not a size", name, size);
    analyze_options.dims[name] = size;
  }
  auto impl = std::make_shared<Analysis::Impl>();
  std::optional<report::ProgressTicker> ticker(std::in_place, options.progress, "load");
  auto t0 = std::chrono::steady_clock::now();
  onnx_import::LoadResult loaded = onnx_import::load_model(model_path, {.read_weights = false});
  AnalysisAbout& about = impl->about;
  about.load_ms = runtime::elapsed_ms(t0);
  ticker.reset();
  auto keep = [&](const std::string& w) {
    impl->warnings.push_back(w);
    if (options.warn) options.warn(w);
  };
  for (const std::string& w : loaded.warnings) keep(w);
  impl->graph = std::move(loaded.graph);
  ticker.emplace(options.progress, "analysis");
  t0 = std::chrono::steady_clock::now();
  impl->analysis = analyzer::analyze(impl->graph, analyze_options);
  about.analysis_ms = runtime::elapsed_ms(t0);
  ticker.reset();
  for (const std::string& w : impl->analysis.warnings) keep(w);

  const ir::Graph& graph = impl->graph;
  const analyzer::Analysis& a = impl->analysis;
  about.model = model_path;
  about.ir_version = graph.ir_version;
  about.opset = graph.opset;
  about.nodes = graph.nodes.size();
  about.producer_name = graph.producer_name;
  about.producer_version = graph.producer_version;
  about.evaluations = a.evaluations;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ir::Value& v = graph.values[size_t(graph.inputs[i])];
    about.inputs.push_back(
        {v.name, fmt::format("{}{}", dtype_name(v.dtype), a.input_shapes[i].str())});
  }
  for (size_t s = 0; s < a.symbols.size(); ++s) about.symbols.push_back({a.symbols[s], a.sizes[s]});

  // The file `strata analyze --json` writes.
  impl->json = report::analysis_json(graph, a);
  impl->json["strata_version"] = STRATA_VERSION;
  impl->json["model"] = model_path;
  impl->json["load_ms"] = about.load_ms;
  impl->json["analysis_ms"] = about.analysis_ms;
  impl->json["warnings"] = impl->warnings;

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
const AnalysisAbout& Analysis::about() const {
  return impl_->about;
}
std::string Analysis::to_json() const {
  return impl_->json.dump(2);
}
void Analysis::save_json(const std::string& path) const {
  io::write_file(path, to_json() + "\n");
}

std::string Analysis::render() const {
  return render(AnalysisViewOptions{});
}
std::string Analysis::render(const AnalysisViewOptions& view) const {
  return report::render_analysis_totals(impl_->analysis, view) +
         report::render_analysis_tables(impl_->graph, impl_->analysis, view);
}

}  // namespace strata

namespace strata {

namespace {
nlohmann::json page_data(const Analysis::Impl& impl) {
  const nlohmann::json about = {{"strata_version", STRATA_VERSION},
                                {"model", impl.about.model},
                                {"load_ms", impl.about.load_ms},
                                {"analysis_ms", impl.about.analysis_ms}};
  return report::analysis_page_data(impl.graph, impl.analysis, about);
}
}  // namespace

std::string Analysis::html() const {
  return report::html_page("strata analyze: " + impl_->about.model, page_data(*impl_));
}
void Analysis::save_html(const std::string& path) const {
  report::write_html(path, "strata analyze: " + impl_->about.model, page_data(*impl_));
}

}  // namespace strata
