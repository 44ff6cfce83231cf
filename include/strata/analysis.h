// strata::analyze: shapes, parameters, FLOPs and memory of a model without running it (weights
// are not read), as `strata analyze` does; named dynamic dims give formulas (docs/analyze.md).
//
//   strata::AnalysisOptions options;
//   options.dims["N"] = 8;                      // size of the symbolic batch dim
//   strata::Analysis a = strata::analyze("model.onnx", options);
//   if (a.totals().flops) std::printf("%.3g FLOPs\n", *a.totals().flops);
//   for (const strata::NodeFigures& n : a.nodes())
//     std::printf("%s %s %lld params\n", n.name.c_str(), n.op_type.c_str(), (long long)n.params);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata {

struct AnalysisOptions {
  // Input shapes replacing the declared ones; dims may be symbols: {"input", "Nx3xHxW"}.
  std::map<std::string, std::string> shapes;
  std::map<std::string, int64_t> dims;  // sizes of symbolic dims: figures evaluated there
};

// A figure is empty when it cannot be known at the sizes given (a symbol without a size, an op
// without a cost rule, a shape known only at run time).
struct AnalysisTotals {
  int64_t params = 0;
  double param_bytes = 0;
  std::optional<double> macs, flops, backward_flops, bytes_read, peak_activation_bytes, arena_bytes,
      input_bytes;
  bool complete = false;  // every node counted
};

struct NodeFigures {
  std::string name, op_type;
  std::string state;    // "known", "unsupported", "data_dependent", "input_unknown"
  bool folded = false;  // computed before running: not in the totals
  int64_t params = 0;
  std::optional<double> macs, flops, bytes_read, output_bytes;
  std::vector<std::string> output_shapes;  // "float32[1,8,32,32]", symbols kept ("[N,8,H,W]")
};

class Analysis {
 public:
  const AnalysisTotals& totals() const;
  const std::vector<NodeFigures>& nodes() const;  // graph order
  const std::vector<std::string>& warnings() const;
  // Every figure with its formula, as `strata analyze --json` writes it (docs/analyze.md).
  std::string to_json() const;
  // The totals and tables `strata analyze` prints.
  std::string render() const;

  struct Impl;  // the library's own (src/api/analysis.cpp)
  explicit Analysis(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// Throws strata::Error naming the file, input or dim at fault.
Analysis analyze(const std::string& model_path, const AnalysisOptions& options = {});

}  // namespace strata
