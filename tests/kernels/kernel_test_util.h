// Fast kernels against reference kernels: small graphs built in memory, run by two sessions (fast
// kernels on, and off), with random data from a fixed seed.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/cpu/row_math.h"
#include "kernels/onednn/onednn.h"
#include "ops/op_test_util.h"
#include "passes/infer_shapes.h"
#include "profiler/alloc_counter.h"
#include "runtime/session.h"
#include "runtime/verify.h"

namespace strata::test {

// Kernels prepared inside the scope use at most `level`'s vector instructions.
struct SimdCeiling {
  explicit SimdCeiling(kernels::cpu::Simd level) { kernels::cpu::simd_ceiling() = level; }
  ~SimdCeiling() { kernels::cpu::simd_ceiling() = kernels::cpu::Simd::kAvx512; }
};

// The portable loops for the duration of a scope (kernels prepared inside it).
struct PortableLoops : SimdCeiling {
  PortableLoops() : SimdCeiling(kernels::cpu::Simd::kScalar) {}
};

// Every instruction set strata's own kernels can use on this CPU, the portable loops first.
inline std::vector<kernels::cpu::Simd> simd_levels_here() {
  using kernels::cpu::Simd;
  std::vector<Simd> levels;
  for (const Simd level : {Simd::kScalar, Simd::kAvx2, Simd::kAvx512})
    if (level <= kernels::cpu::detected_simd()) levels.push_back(level);
  return levels;
}

// Calls check(level) for every level of simd_levels_here(), kernels prepared inside it capped
// at that level.
template <class Check>
void for_each_simd_level(Check&& check) {
  for (const kernels::cpu::Simd level : simd_levels_here()) {
    SCOPED_TRACE(kernels::cpu::simd_name(level));
    const SimdCeiling ceiling(level);
    check(level);
  }
}

// The name of the blocked layout oneDNN's convolutions take here at rank 4: "nChw16c" with
// AVX-512, "nChw8c" with AVX2.
inline std::string native_blocked_name() {
  return layout_name(kernels::onednn::native_blocked_layout(), 4);
}

// Builds an ir::Graph value by value and node by node.
class GraphBuilder {
 public:
  explicit GraphBuilder(int64_t opset = 17) { graph_.opset = opset; }
  ir::ValueId input(const std::string& name, const std::vector<int64_t>& shape,
                    DType dtype = DType::kF32) {
    const ir::ValueId id = value(name);
    ir::Value& v = graph_.values[size_t(id)];
    v.dtype = dtype;
    v.shape = Shape::of(shape);
    v.shape_known = true;
    v.is_graph_input = true;
    graph_.inputs.push_back(id);
    return id;
  }
  ir::ValueId constant(const std::string& name, Tensor t) {
    const ir::ValueId id = value(name);
    ir::Value& v = graph_.values[size_t(id)];
    v.dtype = t.dtype();
    v.shape = Shape::of(t.shape());
    v.shape_known = true;
    v.constant = std::make_shared<const Tensor>(std::move(t));
    return id;
  }
  // A node; inputs named "" are omitted. Returns the node for attributes.
  ir::Node& node(const std::string& op_type, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& outputs, const std::string& domain = "") {
    ir::Node n;
    n.name = outputs.empty() ? op_type : outputs[0] + "_node";
    n.op_type = op_type;
    n.domain = domain;
    for (const std::string& in : inputs)
      n.inputs.push_back(in.empty() ? ir::kNoValue : graph_.find_value(in));
    for (const std::string& out : outputs) {
      const ir::ValueId id = value(out);
      graph_.values[size_t(id)].producer = int32_t(graph_.nodes.size());
      n.outputs.push_back(id);
    }
    graph_.nodes.push_back(std::move(n));
    return graph_.nodes.back();
  }
  void output(const std::string& name) {
    const ir::ValueId id = graph_.find_value(name);
    graph_.values[size_t(id)].is_graph_output = true;
    graph_.outputs.push_back(id);
  }
  // The graph with every shape inferred.
  ir::Graph build() {
    passes::infer_shapes(graph_);
    return graph_;
  }

 private:
  ir::ValueId value(const std::string& name) {
    const ir::ValueId existing = graph_.find_value(name);
    if (existing != ir::kNoValue) return existing;
    ir::Value v;
    v.name = name;
    graph_.values.push_back(v);
    return ir::ValueId(graph_.values.size() - 1);
  }
  ir::Graph graph_;
};

// A uniformly drawn integer in [lo, hi].
inline int64_t random_int(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A float32 tensor of uniform values in [-1, 1).
inline Tensor random_tensor(std::mt19937& rng, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(DType::kF32, shape);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// What one session produced: its outputs (copied) and how it ran each step.
struct SessionResult {
  std::vector<Tensor> outputs;
  std::vector<runtime::StepInfo> steps;
};

inline SessionResult run_session(const ir::Graph& graph, const std::vector<Tensor>& inputs,
                                 runtime::SessionOptions options) {
  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : inputs) {
    specs.push_back({t.dtype(), t.shape()});
    pointers.push_back(&t);
  }
  runtime::Session session(graph, specs, options);
  session.run(pointers);
  SessionResult r;
  for (size_t i = 0; i < session.num_outputs(); ++i) r.outputs.push_back(session.output(i).clone());
  r.steps = session.steps();
  return r;
}

// Runs `graph` with the fast kernels (layout policy `layout`) and with the reference kernels, and
// expects equal outputs within float32 accumulation error. Returns the fast run's steps.
// `threads`: the fast session's thread count, used by every step whatever its size.
inline std::vector<runtime::StepInfo> expect_fast_matches_reference(
    const ir::Graph& graph, const std::vector<Tensor>& inputs,
    kernels::LayoutPolicy layout = kernels::LayoutPolicy::kAuto, double tolerance = 1e-4,
    int threads = 1) {
  runtime::SessionOptions fast, reference;
  fast.layout = layout;
  fast.threads = threads;
  fast.single_thread_flops = fast.single_thread_bytes = 0;  // every step on `threads`
  reference.fast_kernels = false;
  const SessionResult a = run_session(graph, inputs, fast);
  const SessionResult b = run_session(graph, inputs, reference);
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    double scale = 0;
    const std::vector<double> expected = b.outputs[i].to_double();
    for (double v : expected) scale = std::max(scale, std::abs(v));
    const runtime::Comparison c =
        runtime::compare(a.outputs[i], b.outputs[i], {tolerance, tolerance * (1 + scale)});
    EXPECT_TRUE(c.ok) << "output " << i << ": " << c.problem << " (max abs " << c.max_abs_error
                      << ")";
  }
  return a.steps;
}

// The heap allocations step `step` of a prepared (and warmed-up) session makes in one more run.
class StepAllocationCounter : public runtime::RunHooks {
 public:
  explicit StepAllocationCounter(size_t step) : step_(step) {}
  void before_node(size_t step) override {
    if (step == step_) before_ = profiler::heap_count();
  }
  void after_node(size_t step) override {
    if (step == step_) allocations += profiler::heap_count().allocations - before_.allocations;
  }
  int64_t allocations = 0;

 private:
  size_t step_;
  profiler::HeapCount before_;
};

inline int64_t step_allocations(runtime::Session& session, const std::vector<const Tensor*>& inputs,
                                size_t step) {
  StepAllocationCounter counter(step);
  session.set_hooks(&counter);
  session.run(inputs);
  session.set_hooks(nullptr);
  return counter.allocations;
}

}  // namespace strata::test
