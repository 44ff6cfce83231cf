// strata::analyze: shapes, parameters, FLOPs and memory of a model without running it (weights
// are not read), as `strata analyze` does; named dynamic dims give formulas (docs/analyze.md).
//
//   strata::AnalysisOptions options;
//   options.dims["N"] = 8;                      // size of the symbolic batch dim
//   strata::Analysis a = strata::analyze("model.onnx", options);
//   if (a.totals().flops) std::printf("%.3g FLOPs\n", *a.totals().flops);
//   for (const strata::NodeFigures& n : a.nodes())
//     std::printf("%s %s %lld params\n", n.name.c_str(), n.op_type.c_str(), (long long)n.params);
//   a.save_html("model.html");  // charts and tables, as `strata analyze --html`
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/progress.h"
#include "strata/table.h"

namespace strata {

struct AnalysisOptions {
  // Input shapes replacing the declared ones; dims may be symbols: {"input", "Nx3xHxW"}.
  std::map<std::string, std::string> shapes;
  std::map<std::string, int64_t> dims;  // sizes of symbolic dims: figures evaluated there
  // Names a malformed shape in errors: "<shape_option> input: ..." (the command says "--shape").
  std::string shape_option = "shape";
  // Called with each warning as it arises (the model's, then the analysis'), before a later
  // error; they are also in Analysis::warnings().
  std::function<void(const std::string&)> warn;
  // Told of the phases "load" and "analysis" while they go on (strata::terminal_progress()).
  ProgressFn progress{};
};

// Which tables render() prints, as `strata analyze --macs/--training/--by/--depth` choose.
struct AnalysisViewOptions {
  bool macs = false;      // headline MACs instead of FLOPs
  bool training = false;  // backward FLOPs, saved activations and the training estimate
  bool by_type = true, by_scope = true, by_node = true;
  int depth = 0;   // scope tree: deepest level shown (0: all)
  FitOptions fit;  // a terminal's width (strata::terminal_width; 0: every column)
};

// What the analysis knows about the model and itself (the header `strata analyze` prints).
struct AnalysisAbout {
  std::string model;  // the path as given
  int64_t ir_version = 0, opset = 0;
  size_t nodes = 0;
  std::string producer_name, producer_version;  // empty when the file does not say
  double load_ms = 0;                           // weights are not read
  double analysis_ms = 0;
  int evaluations = 0;  // of the graph's shape and cost rules
  struct Input {
    std::string name, type;  // "image", "float32[N,3,32,32]" as analysed
  };
  std::vector<Input> inputs;
  struct Symbol {
    std::string name;
    std::optional<int64_t> size;  // empty: no size given, the figures are formulas in it
  };
  std::vector<Symbol> symbols;
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
  const std::vector<NodeFigures>& nodes() const;     // graph order
  const std::vector<std::string>& warnings() const;  // the model's, then the analysis'
  const AnalysisAbout& about() const;
  // Every figure with its formula, as `strata analyze --json` writes it (docs/analyze.md);
  // save_json writes it (atomically), throwing strata::Error naming the path when it cannot.
  std::string to_json() const;
  void save_json(const std::string& path) const;
  // The totals and tables `strata analyze` prints (all of them, or those `view` chooses).
  std::string render() const;
  std::string render(const AnalysisViewOptions& view) const;
  // The self-contained HTML report `strata analyze --html` writes (docs/html-report.md); save_html
  // throws strata::Error naming the path when it cannot be written.
  std::string html() const;
  void save_html(const std::string& path) const;

  struct Impl;  // the library's own (src/api/analysis.cpp)
  explicit Analysis(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// Throws strata::Error naming the file, input or dim at fault.
Analysis analyze(const std::string& model_path, const AnalysisOptions& options = {});

}  // namespace strata
