#include "runtime/model.h"

#include "onnx/loader.h"
#include "passes/check_supported.h"

namespace strata::runtime {

Model load_model(const std::string& path, const LoadOptions& options) {
  onnx_import::LoadResult loaded = onnx_import::load_model(path, options);
  passes::check_supported(loaded.graph, path);
  Model model;
  model.graph = std::move(loaded.graph);
  model.warnings = std::move(loaded.warnings);
  try {
    model.shapes = passes::infer_shapes(model.graph);
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
  return model;
}

}  // namespace strata::runtime
