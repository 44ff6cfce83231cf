// strata::Session: a model prepared for inputs of given dtypes and shapes (graph optimised,
// kernels chosen, memory planned), run as often as needed. strata::run does all of it once.
//
//   strata::Model model = strata::Model::load("examples/tiny_resnet.onnx");
//   strata::InputOptions in;
//   in.arrays["input"] = strata::Array(strata::DType::kF32, {1, 3, 32, 32});
//   strata::NamedArrays inputs = strata::bind_inputs(model, in);  // missing inputs: random
//   strata::Session session(model, inputs, {.threads = 2});
//   for (const strata::NamedArray& out : session.run(inputs))
//     std::printf("%s %s\n", out.name.c_str(), out.array.type_string().c_str());
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/model.h"
#include "strata/progress.h"
#include "strata/tensor.h"

namespace strata {

struct NamedArray {
  std::string name;
  Array array;
  std::string origin{};  // where bind_inputs took it from: "x.npy", "inline", "random (seed 0)"
};
using NamedArrays = std::vector<NamedArray>;

// Where each graph input's values come from, as `strata run` binds them.
struct InputOptions {
  std::map<std::string, Array> arrays;  // by input name
  // As `strata run -i`: "name=FILE", "FILE" (bound in order) or "name=[1,2]"; .npy .pb .json
  // and images.
  std::vector<std::string> sources;
  // Inputs given neither way are random (seeded), with these shapes for dynamic ones.
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, int64_t> dims;  // sizes of named dynamic dims: {"N", 8}
  uint64_t seed = 0;
  // Called with a warning about an input as it is bound ("input 'x' contains NaN").
  std::function<void(const std::string&)> warn{};
};

// As bind_inputs, where a source may name a folder: one input set per file, round-robin (file k
// of each folder in set k), as `strata run -i DIR` and `strata profile -i DIR`; origin names the
// folder. Every set must have the dtypes and shapes of the first.
std::vector<NamedArrays> bind_input_sets(const Model& model, const InputOptions& options);

// "1x3x224x224" (or "1,3,224,224") as sizes; throws strata::Error naming `what` ("--shape x")
// when it is not a shape.
std::vector<int64_t> parse_shape(const std::string& text, const std::string& what);

// Every graph input in graph order. Throws strata::Error naming the input or file for an unknown
// name, an unreadable file, a wrong dtype, or a dynamic dim with no size.
NamedArrays bind_inputs(const Model& model, const InputOptions& options);

struct SessionOptions {
  int threads = 1;
  int64_t max_memory_bytes = int64_t(16) << 30;  // largest arena plus constants allowed
  bool optimize = true;                          // fold, fuse, remove dead nodes
  bool fast_kernels = true;                      // false: reference kernels only (no oneDNN)
  std::string layout = "auto";                   // nchw, nhwc, blocked or auto
  double timeout_seconds = 0;                    // a run going on longer fails; 0: no limit
  // Time every implementation of each node's fast kernels at prepare and keep the fastest.
  bool fast_run = false;
  // A file of fast-run choices: reused when made on this CPU with these versions, written after
  // a fast run ("": none).
  std::string algo_cache{};
  // Told of "optimize", then of "prepare" (or "fast-run") after each step's kernel is chosen.
  ProgressFn progress{};
  // Called with a warning (an algo cache that cannot be read or written); empty: ignored.
  std::function<void(const std::string&)> warn{};
};

// How one step of the prepared graph runs.
struct StepInfo {
  std::string node, op_type;
  std::string kernel;  // "reference", "onednn:brgconv", ...
  std::string reason;  // why that kernel
  std::string layout;  // layout its first output is written in
  int threads = 1;
  // The model's nodes a fused node stands for (empty for a node of the model as written).
  std::vector<std::string> fused_from{};
  // Layout conversions the step makes before its kernel reads ("input 0 'x': nchw → nhwc").
  std::vector<std::string> conversions{};
  bool in_place = false;  // its output shares the buffer of an input it was the last to read
};

// What a graph pass did at prepare: "fuse_conv", 3 nodes folded, fused or removed; and what it
// left alone and why, if it says ("fuse_qdq": the QDQ products left in float32 on this CPU).
struct PassApplied {
  std::string name;
  size_t changes = 0;
  std::string note = "";
};

// The prepared plan as a whole (`strata run --verbose` and its --json "plan"):
//
//   const strata::PlanSummary p = session.plan();
//   std::printf("%zu of %zu steps fast, arena %lld bytes\n", p.fast_steps, p.steps,
//               (long long)p.arena_bytes);
struct PlanSummary {
  std::vector<PassApplied> passes;  // in order; empty with SessionOptions::optimize off
  size_t nodes = 0;                 // of the graph after the passes
  size_t steps = 0;                 // nodes run per inference (the rest are folded)
  size_t fast_steps = 0;            // steps run by a fast kernel
  size_t conversions = 0;           // layout conversions per run
  size_t folded_nodes = 0;          // computed once at prepare (constants, shape arithmetic)
  size_t dynamic_nodes = 0;         // shapes known only at run time
  int64_t arena_bytes = 0;          // activation memory planned
  int64_t lower_bound_bytes = 0;    // the least any plan could use (the largest live set)
  int64_t constant_bytes = 0;       // initializers and folded values
  int64_t packed_bytes = 0;         // weights the fast kernels packed (outside the arena)
};

// Every value one run computed (Session::dump_all).
struct DumpSummary {
  size_t values = 0;  // graph inputs and node outputs kept
  size_t nodes = 0;   // nodes listed, folded ones included
  // Per value: name, shape, dtype, min, max, mean, sd, NaN and Inf counts, the first values.
  std::string io_summary;
};

class Session {
 public:
  // Prepares `model` for inputs of the dtypes and shapes of `inputs` (given by name, any order).
  // Throws strata::Error naming the input or node at fault.
  Session(const Model& model, const NamedArrays& inputs, const SessionOptions& options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Runs once; `inputs` must have the dtypes and shapes the session was prepared for. Returns
  // every graph output, in graph order.
  NamedArrays run(const NamedArrays& inputs);

  // The outputs of the last run (any run: run, pack, dump_all, time_runs), in graph order;
  // throws strata::Error before the first.
  NamedArrays outputs() const;

  std::vector<StepInfo> steps() const;
  PlanSummary plan() const;
  int64_t arena_bytes() const;  // activation memory planned
  double prepare_ms() const;    // graph passes, kernel choice and memory planning

  // Another session of the same prepared graph, for concurrent streams (strata/timing.h): it
  // reads this one's graph and weights in place and has its own arena (and packed weights). With
  // fast_run it takes the kernels this one chose from the algo cache rather than timing them
  // again (without an algo cache it runs the default kernels). Not told of progress.
  Session clone() const;

  // Runs once on `inputs`, keeping every node's outputs, and writes them to the folder `dir` as
  // DIR/NAME.npy with DIR/index.json (`strata run --dump-all`, read by compare_dumps); "" writes
  // nothing. Returns the counts and a text summary of every value (`strata run --io-dump`).
  DumpSummary dump_all(const NamedArrays& inputs, const std::string& dir = "");
  // When some step runs on a reference kernel although fast kernels are on: times each step
  // through one more run on `inputs` and warns of those taking a large share of it ("node 'x'
  // (Op) runs on its reference kernel: ..."); no run and no warning otherwise.
  std::vector<std::string> slow_path_warnings(const NamedArrays& inputs);
  // Runs once on `inputs` and writes an ONNX test case in the folder `dir`: the model as loaded
  // (dir/model.onnx), the inputs and the outputs computed (dir/test_data_set_0/input_N.pb,
  // output_N.pb), so that `strata run dir` checks them on another machine. Throws strata::Error
  // when `dir` already holds a test case or cannot be written.
  struct PackedValue {
    std::string file, name, type;  // "input_0.pb", "image", "float32[1,3,32,32]"
  };
  struct Packed {
    std::vector<PackedValue> inputs, outputs;
  };
  Packed pack(const std::string& dir, const NamedArrays& inputs);
  // Runs once on `inputs` and describes the first node whose output holds a NaN or an infinity
  // ("" when none), as `strata run --check-finite`.
  std::string first_non_finite(const NamedArrays& inputs);

  struct Impl;  // the library's own (src/api/session_impl.h)
  explicit Session(std::unique_ptr<Impl> impl);
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Binds `inputs`, prepares a session and runs it once: the outputs in graph order.
NamedArrays run(const Model& model, const InputOptions& inputs, const SessionOptions& options = {});

}  // namespace strata
