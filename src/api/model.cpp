// strata::Model (include/strata/model.h).
#include <fmt/format.h>

#include <chrono>

#include "api/convert.h"
#include "api/model_impl.h"
#include "report/progress.h"
#include "runtime/timing.h"

namespace strata {

std::string ValueInfo::type_string() const {
  if (!shape_known) return fmt::format("{}[?]", dtype_name(dtype));
  std::vector<std::string> parts;
  for (size_t i = 0; i < shape.size(); ++i)
    parts.push_back(shape[i] >= 0 ? std::to_string(shape[i]) : dims[i].empty() ? "?" : dims[i]);
  return fmt::format("{}[{}]", dtype_name(dtype), fmt::join(parts, ","));
}

Model Model::load(const std::string& path, const ProgressFn& progress) {
  auto impl = std::make_shared<Impl>();
  impl->path = path;
  {
    const report::ProgressTicker ticker(progress, "load");
    const auto t0 = std::chrono::steady_clock::now();
    impl->loaded = runtime::load_model(path);
    impl->load_ms = runtime::elapsed_ms(t0);
  }
  const ir::Graph& graph = impl->loaded.graph;
  for (ir::ValueId id : graph.inputs)
    impl->inputs.push_back(api::value_info(graph.values[size_t(id)]));
  for (ir::ValueId id : graph.outputs)
    impl->outputs.push_back(api::value_info(graph.values[size_t(id)]));
  Model model;
  model.impl_ = std::move(impl);
  return model;
}

const std::string& Model::path() const {
  return impl_->path;
}
const std::vector<ValueInfo>& Model::inputs() const {
  return impl_->inputs;
}
const std::vector<ValueInfo>& Model::outputs() const {
  return impl_->outputs;
}
int64_t Model::ir_version() const {
  return impl_->loaded.graph.ir_version;
}
int64_t Model::opset() const {
  return impl_->loaded.graph.opset;
}
size_t Model::node_count() const {
  return impl_->loaded.graph.nodes.size();
}
double Model::load_ms() const {
  return impl_->load_ms;
}
const std::vector<std::string>& Model::warnings() const {
  return impl_->loaded.warnings;
}

std::string Model::producer() const {
  const ir::Graph& g = impl_->loaded.graph;
  if (g.producer_name.empty()) return "";
  return g.producer_version.empty() ? g.producer_name : g.producer_name + " " + g.producer_version;
}

}  // namespace strata
