// A prepared model: kernels chosen per node, shapes resolved, activations planned in one arena.
// Lifecycle: create (load-time graph + bound input types) → run (many times).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/progress.h"
#include "ir/graph.h"
#include "kernels/kernel.h"
#include "ops/op.h"
#include "planner/planner.h"
#include "runtime/algo_cache.h"

namespace strata::runtime {

struct SessionOptions {
  int threads = 1;
  // Largest arena plus folded constants the session may allocate (--max-memory).
  int64_t max_memory_bytes = int64_t(16) << 30;
  // Fast kernels (src/kernels/) where they support a node; false runs reference kernels only.
  bool fast_kernels = true;
  // Activation layout for the fast kernels that have a choice (--layout).
  kernels::LayoutPolicy layout = kernels::LayoutPolicy::kAuto;
  // With more than one thread, steps whose static cost is below both bounds run on one thread:
  // waking the pool (and, on a shared machine, waiting for a descheduled worker at the barrier)
  // costs more than splitting a few microseconds of work gains. 0 and 0 keep every step on
  // `threads`.
  double single_thread_flops = 1e6;
  double single_thread_bytes = 512 * 1024;
  // Time every implementation of a node's fast kernels and keep the fastest (--fast-run).
  bool fast_run = false;
  // Choices to reuse and where fast-run's are kept (--algo-cache FILE); saved after prepare.
  std::shared_ptr<AlgoCache> algo_cache;
  // A run that goes on past this many seconds stops with exit 2 naming the node it reached
  // (--timeout); 0: no limit. Checked between steps and between iterations of loops.
  double timeout_seconds = 0;
  // Told after each step's kernel is chosen (phase "prepare", or "fast-run" with fast_run); the
  // sessions of subgraphs do not report.
  ProgressFn progress;
};

// When a run must stop (SessionOptions::timeout_seconds), shared with the sessions of subgraphs.
struct Deadline {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  double seconds = 0;  // the limit as given, for messages
  bool passed() const { return seconds > 0 && std::chrono::steady_clock::now() >= at; }
};

// What the caller binds to one graph input: its dtype and concrete shape.
struct InputSpec {
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  // Set when the value is known ahead of time (a subgraph's capture of a constant): the session
  // treats it as a constant (folds through it), and each run must bind these very bytes.
  std::shared_ptr<const Tensor> value = nullptr;
  // A sequence or optional (dtype: its element type; shape unused).
  ValueKind kind = ValueKind::kTensor;
};

// Called around every node of every run (profilers plug in here).
class RunHooks {
 public:
  virtual ~RunHooks() = default;
  virtual void before_node(size_t step) = 0;
  virtual void after_node(size_t step) = 0;
};

// How one node is executed, recorded at prepare time.
struct StepInfo {
  size_t node_index = 0;  // into graph.nodes
  std::string kernel;     // implementation that runs it
  std::string reason;     // why that implementation was chosen
  bool dynamic = false;   // output shapes resolved at run time (heap-allocated outputs)
  std::string layout;     // layout of the first output as written ("nchw", "nhwc", "nChw16c")
  // Layout conversions this step makes before its kernel reads ("input 0 'x': nchw → nhwc").
  std::vector<std::string> conversions;
  bool in_place = false;  // its output shares the buffer of an input it was the last to read
  int threads = 1;        // OpenMP threads its kernel was built for and runs on
};

// StepInfo::reason of every step when fast kernels are off by request (--reference-kernels).
inline constexpr const char* kFastKernelsOffReason =
    "the op's reference kernel (fast kernels are off)";

struct PrepareStats {
  size_t folded_nodes = 0;   // computed once at prepare (constants and shape computations)
  size_t dynamic_nodes = 0;  // shapes known only at run time
  int64_t arena_bytes = 0;
  int64_t lower_bound_bytes = 0;
  std::vector<int64_t> arena_live_bytes;  // per step: bytes of the arena's buffers live at it
  int64_t constant_bytes = 0;             // initializers and folded values
  size_t fast_steps = 0;                  // steps run by a fast kernel
  size_t conversions = 0;                 // layout conversions per run
  int64_t packed_bytes = 0;  // weights the fast kernels packed at prepare (outside the arena)
};

class SubgraphRunner;
struct SharedBuffers;

class Session {
 public:
  // Infers every shape for the bound inputs, folds what can be computed ahead of time, chooses a
  // kernel per node and plans the arena. Fails (exit 2) naming the input or node at fault.
  Session(const ir::Graph& graph, const std::vector<InputSpec>& inputs, SessionOptions options);
  ~Session();

  // Runs once. `inputs` follow graph.inputs order (then graph.captures, for a subgraph) and must
  // match the bound specs.
  void run(const std::vector<const Tensor*>& inputs);
  // The same under an enclosing run's deadline (subgraphs).
  void run(const std::vector<const Tensor*>& inputs, const Deadline& deadline);
  // Output i (graph.outputs order) of the last run; valid until the next run.
  const Tensor& output(size_t i) const;
  // Output i to keep past the next run: its own buffer when a dynamic step made that buffer in
  // this run (the next run makes another), else a copy. Spares a Loop a copy of its carried
  // values per iteration.
  Tensor keep_output(size_t i) const;
  size_t num_outputs() const { return graph_.outputs.size(); }

  void set_hooks(RunHooks* hooks) { hooks_ = hooks; }
  const std::vector<StepInfo>& steps() const { return steps_; }
  const PrepareStats& stats() const { return stats_; }
  const ir::Graph& graph() const { return graph_; }
  const SessionOptions& options() const { return options_; }
  // Metas after shape inference, per value (dtype undefined for values resolved at run time).
  const std::vector<ops::Meta>& metas() const { return metas_; }
  // The op of node n (graph.nodes order), for its cost rule.
  const ops::Op& op(size_t node_index) const { return *ops_[node_index]; }
  // The tensors step s reads and writes (nullptr for an omitted optional input); after a run they
  // hold that run's shapes, dynamic steps included.
  const std::vector<const Tensor*>& step_inputs(size_t s) const { return step_inputs_[s]; }
  const std::vector<Tensor*>& step_outputs(size_t s) const { return step_outputs_[s]; }
  // Step s's fast kernel's Kernel::run_note after the runs so far ("" without one).
  std::string run_note(size_t s) const;
  // Runs step s alone, without hooks, on whatever its input tensors hold now: meaningful only
  // while they still hold the step's inputs, as in RunHooks::after_node(s) (profiler isolation).
  void run_step(size_t s);

 private:
  void bind_inputs(const std::vector<InputSpec>& inputs);
  void infer_and_fold();
  void plan_steps();
  void choose_kernels();
  void plan_memory();
  void place_concatenated_inputs(const std::function<bool(size_t)>& in_arena,
                                 const std::function<int64_t(size_t)>& bytes_of,
                                 SharedBuffers& shared);
  void run_dynamic_step(size_t step);
  void run_subgraph_step(size_t step);
  // Values bound by the caller: graph inputs, then a subgraph's captures.
  std::vector<ir::ValueId> bound_values() const;

  // A layout conversion a step makes before its kernel reads the converted copy.
  struct Conversion {
    std::unique_ptr<kernels::Kernel> kernel;
    const Tensor* src = nullptr;
    Tensor* dst = nullptr;
    int threads = 1;  // one for a small tensor, as for a small step (SessionOptions)
  };
  // How a step runs besides its op: the fast kernel (nullptr: the reference kernel), the
  // conversions before it, and its scratch memory in the arena.
  struct StepKernels {
    std::unique_ptr<kernels::Kernel> kernel;
    std::vector<Conversion> conversions;
    std::vector<Conversion> after;  // graph outputs the kernel wrote in a non-plain layout
    void* scratch = nullptr;
    int threads = 1;  // the threads the kernel was built for and runs on
    // A dynamic step's fast kernel, prepared while running for the inputs it last saw (`key`:
    // their dtypes and shapes); nullptr when no family supports them. Detection heads run their
    // Gemms and convolutions on as many boxes as the image gives: one kernel per count seen last.
    std::unique_ptr<kernels::Kernel> dynamic_kernel;
    std::vector<std::pair<DType, std::vector<int64_t>>> dynamic_key;
    Tensor dynamic_scratch;
    // Decided at prepare: whether a dynamic step's op is worth a fast kernel at any size (else
    // only for large outputs; see session.cpp).
    bool heavy_op = false;
    // Per input of a dynamic step: whether it reads a value made while running that no later
    // step reads and that is no graph output, so that output 0 may take over its buffer when
    // the fast kernel writes in place (ScatterElements chains in detection heads).
    std::vector<bool> may_take_input;
  };
  // Forgets a dynamic step's fast kernel (and the shapes and scratch it was made for).
  static void drop_dynamic_kernel(StepKernels& k);
  // Prepares (or reuses) step s's dynamic fast kernel for its current inputs and output metas.
  void choose_dynamic_kernel(size_t step, const std::vector<ops::Meta>& in,
                             const std::vector<ops::Meta>& out);
  // The input whose buffer step s's output 0 takes over this run (the dynamic fast kernel writes
  // in place and no later step reads it), or -1.
  int input_to_write_in_place(size_t step, const std::vector<ops::Meta>& out) const;
  // Whether step s takes a fast kernel for outputs of these metas, this run.
  bool wants_kernel_while_running(size_t step, const std::vector<ops::Meta>& out) const;
  static void convert(std::vector<Conversion>& conversions, void* scratch);
  // A value converted to another layout: the copy lives in the arena beside the original.
  struct ConvertedValue {
    size_t value = 0;
    Layout layout = Layout::kPlain;
    Tensor tensor;
    int64_t first_step = 0, last_step = 0;
  };

  const ir::Graph& graph_;
  SessionOptions options_;
  std::vector<std::unique_ptr<ops::Op>> ops_;  // per node
  std::vector<ops::Meta> metas_;               // per value
  std::vector<bool> folded_;                   // per node
  std::vector<StepInfo> steps_;
  std::vector<StepKernels> step_kernels_;      // per step
  std::vector<Tensor> slots_;                  // per value: the tensor each run reads and writes
  std::deque<ConvertedValue> converted_;       // stable addresses: steps point at the copies
  std::vector<const Tensor*> output_tensors_;  // per graph output: its slot or its plain copy
  std::vector<bool> output_made_each_run_;     // per graph output: a dynamic step's fresh buffer
  std::vector<std::vector<const Tensor*>> step_inputs_;
  std::vector<std::vector<Tensor*>> step_outputs_;
  std::vector<InputSpec> input_specs_;
  std::shared_ptr<void> arena_;
  PrepareStats stats_;
  RunHooks* hooks_ = nullptr;
  std::vector<std::unique_ptr<SubgraphRunner>> runners_;  // per step: nodes with subgraphs
  Deadline deadline_;                                     // of the current run
};

}  // namespace strata::runtime
