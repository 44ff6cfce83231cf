// Per-node dispatch overhead of the run loop: a chain of 1,000 Adds of one-element tensors, so
// the kernels do almost nothing and the time per node is the engine's own cost.
//   build/bench_dispatch_overhead [nodes] [runs]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "ops/op.h"
#include "strata_internal.h"

using namespace strata;

namespace {

ir::Graph add_chain(int nodes, int64_t elements) {
  ir::Graph g;
  g.opset = 17;
  auto add_value = [&](std::string name) {
    ir::Value v;
    v.name = std::move(name);
    v.dtype = DType::kF32;
    v.shape = Shape::of({elements});
    v.shape_known = true;
    g.values.push_back(std::move(v));
    return ir::ValueId(g.values.size() - 1);
  };
  ir::ValueId x = add_value("x");
  g.values[size_t(x)].is_graph_input = true;
  g.inputs.push_back(x);
  ir::ValueId prev = x;
  for (int i = 0; i < nodes; ++i) {
    ir::Node n;
    n.name = fmt::format("add_{}", i);
    n.op_type = "Add";
    n.inputs = {prev, x};
    prev = add_value(fmt::format("y{}", i));
    n.outputs = {prev};
    g.values[size_t(prev)].producer = i;
    g.nodes.push_back(std::move(n));
  }
  g.values[size_t(prev)].is_graph_output = true;
  g.outputs.push_back(prev);
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 2000;
  const ir::Graph g = add_chain(nodes, 1);
  const Tensor x = Tensor::from<float>({1}, {1.0f});
  runtime::Session session(g, {{DType::kF32, {1}}}, {});
  for (int i = 0; i < 100; ++i) session.run({&x});  // warm up

  std::vector<double> per_node_ns;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    session.run({&x});
    per_node_ns.push_back(runtime::elapsed_ms(start) * 1e6 / nodes);
  }
  const float result = session.output(0).data<float>()[0];
  if (result != float(nodes + 1)) {
    fmt::print(stderr, "wrong result {} (expected {})\n", result, nodes + 1);
    return 3;
  }
  const profiler::Summary s = profiler::summarize(per_node_ns);
  fmt::print("dispatch overhead: chain of {} Adds on 1-element tensors, {} runs\n", nodes, runs);
  fmt::print("per node: median {:.1f} ns, min {:.1f} ns, p90 {:.1f} ns (kernel work included)\n",
             s.median, s.min, s.p90);
  fmt::print("goal: under 1000 ns per node -> {}\n", s.median < 1000 ? "met" : "NOT met");
  return 0;
}
