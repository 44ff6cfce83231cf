// The fast recurrent kernels against the reference kernels of RNN, GRU and LSTM, on random shapes
// from a fixed seed: strata's small-batch kernel (src/kernels/cpu/recurrent.cpp, batches up to 8
// on AVX-512 CPUs) and oneDNN's RNN primitives (src/kernels/onednn/rnn.cpp, larger batches);
// every direction, with and without initial states, biases, peepholes and Y_h/Y_c, both GRU
// variants; and the cases both must leave to the reference kernel.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

struct RecurrentCase {
  std::string op;
  std::string direction = "forward";
  bool bias = true, initial = true, peepholes = false, linear_before_reset = false;
  bool all_outputs = true;
};

struct Sizes {
  int64_t seq, batch, input, hidden;
};

// A graph with one recurrent node whose weights are constants; returns it and its inputs.
std::pair<ir::Graph, std::vector<Tensor>> build(const RecurrentCase& c, const Sizes& s,
                                                std::mt19937& rng,
                                                const std::function<void(ir::Node&)>& extra = {}) {
  const int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  const int64_t gates = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
  GraphBuilder g(14);
  std::vector<Tensor> inputs{random_tensor(rng, {s.seq, s.batch, s.input})};
  g.input("x", {s.seq, s.batch, s.input});
  g.constant("w", random_tensor(rng, {dirs, gates * s.hidden, s.input}));
  g.constant("r", random_tensor(rng, {dirs, gates * s.hidden, s.hidden}));
  if (c.bias) g.constant("b", random_tensor(rng, {dirs, 2 * gates * s.hidden}));
  std::vector<std::string> names{"x", "w", "r", c.bias ? "b" : "", ""};
  if (c.initial) {
    g.input("h0", {dirs, s.batch, s.hidden});
    inputs.push_back(random_tensor(rng, {dirs, s.batch, s.hidden}));
    names.push_back("h0");
    if (c.op == "LSTM") {
      g.input("c0", {dirs, s.batch, s.hidden});
      inputs.push_back(random_tensor(rng, {dirs, s.batch, s.hidden}));
      names.push_back("c0");
    }
  }
  if (c.peepholes) {
    names.resize(7);
    g.constant("p", random_tensor(rng, {dirs, 3 * s.hidden}));
    names.push_back("p");
  }
  std::vector<std::string> outputs{"y"};
  if (c.all_outputs) {
    outputs.push_back("y_h");
    if (c.op == "LSTM") outputs.push_back("y_c");
  }
  ir::Node& node = g.node(c.op, names, outputs);
  node.attributes["hidden_size"] = attr_int(s.hidden);
  node.attributes["direction"] = attr_string(c.direction);
  if (c.linear_before_reset) node.attributes["linear_before_reset"] = attr_int(1);
  if (extra) extra(node);
  for (const std::string& o : outputs) g.output(o);
  return {g.build(), inputs};
}

// Batches the small-batch kernel takes, and batches that go to oneDNN.
enum class Batch { kSmall, kLarge };

Sizes random_sizes(std::mt19937& rng, Batch batch) {
  const int64_t n = batch == Batch::kSmall ? random_int(rng, 1, 8) : random_int(rng, 9, 13);
  return {random_int(rng, 1, 9), n, random_int(rng, 1, 40), random_int(rng, 1, 70)};
}

// The kernel a batch should run on: strata's where the CPU has AVX2 or AVX-512 (within the
// ceiling), else oneDNN's.
std::string expected_kernel_prefix(Batch batch) {
  const kernels::cpu::Simd level = kernels::cpu::simd_level();
  return batch == Batch::kSmall && level != kernels::cpu::Simd::kScalar
             ? std::string("strata:recurrent_") + kernels::cpu::simd_name(level)
             : "onednn:";
}

void expect_kernel_matches_reference(const RecurrentCase& c, Batch batch, std::mt19937& rng) {
  const Sizes s = random_sizes(rng, batch);
  SCOPED_TRACE(testing::Message() << c.op << " " << c.direction << " seq " << s.seq << " batch "
                                  << s.batch << " input " << s.input << " hidden " << s.hidden
                                  << (c.bias ? " B" : "") << (c.initial ? " initial" : "")
                                  << (c.peepholes ? " P" : "")
                                  << (c.linear_before_reset ? " lbr" : ""));
  auto [graph, inputs] = build(c, s, rng);
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kAuto, 1e-4);
  EXPECT_EQ(steps[0].kernel.rfind(expected_kernel_prefix(batch), 0), 0u) << steps[0].reason;
}

TEST(RecurrentKernels, LstmEveryDirectionAndOptionalInput) {
  std::mt19937 rng(51);
  for (const char* direction : {"forward", "reverse", "bidirectional"})
    for (int variant = 0; variant < 4; ++variant) {
      RecurrentCase c{"LSTM", direction};
      c.bias = variant != 1;
      c.initial = variant != 2;
      c.peepholes = variant == 3;
      c.all_outputs = variant != 2;
      for (Batch batch : {Batch::kSmall, Batch::kLarge})
        for_each_simd_level([&](auto) { expect_kernel_matches_reference(c, batch, rng); });
    }
}

TEST(RecurrentKernels, GruBothVariantsEveryDirection) {
  std::mt19937 rng(52);
  for (const char* direction : {"forward", "reverse", "bidirectional"})
    for (int variant = 0; variant < 4; ++variant) {
      RecurrentCase c{"GRU", direction};
      c.linear_before_reset = variant % 2 == 1;
      c.bias = variant != 2;
      c.initial = variant != 3;
      for (Batch batch : {Batch::kSmall, Batch::kLarge})
        for_each_simd_level([&](auto) { expect_kernel_matches_reference(c, batch, rng); });
    }
}

TEST(RecurrentKernels, VanillaRnnEachActivation) {
  std::mt19937 rng(53);
  for (const char* direction : {"forward", "reverse", "bidirectional"})
    for (const char* f : {"Tanh", "Relu", "Sigmoid"})
      for (Batch batch : {Batch::kSmall, Batch::kLarge})
        for_each_simd_level([&](auto) {
          const Sizes s = random_sizes(rng, batch);
          SCOPED_TRACE(testing::Message() << direction << " " << f << " batch " << s.batch);
          RecurrentCase c{"RNN", direction};
          const int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
          auto [graph, inputs] = build(c, s, rng, [&](ir::Node& n) {
            n.attributes["activations"] = attr_strings(std::vector<std::string>(size_t(dirs), f));
          });
          const std::vector<runtime::StepInfo> steps =
              expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kAuto, 1e-4);
          EXPECT_EQ(steps[0].kernel.rfind(expected_kernel_prefix(batch), 0), 0u) << steps[0].reason;
        });
}

// Runs the graph on strata's small-batch kernel with these threads and on the reference kernels:
// the outputs agree within the tolerance.
void expect_small_batch_kernel_matches_reference(const ir::Graph& graph,
                                                 const std::vector<Tensor>& inputs, int threads,
                                                 double tolerance) {
  runtime::SessionOptions fast_options, reference;
  fast_options.threads = threads;
  reference.fast_kernels = false;
  const SessionResult fast = run_session(graph, inputs, fast_options);
  const SessionResult slow = run_session(graph, inputs, reference);
  EXPECT_EQ(fast.steps[0].kernel.rfind(expected_kernel_prefix(Batch::kSmall), 0), 0u)
      << fast.steps[0].reason;
  for (size_t i = 0; i < fast.outputs.size(); ++i) {
    const runtime::Comparison cmp =
        runtime::compare(fast.outputs[i], slow.outputs[i], {tolerance, tolerance});
    EXPECT_TRUE(cmp.ok) << "output " << i << ": " << cmp.problem;
  }
}

// Wide enough states are shared among two threads by hidden units (strata's kernel), and each
// direction of a bidirectional op runs on its own thread: the outputs are the reference's.
TEST(RecurrentKernels, StepsSharedAmongThreads) {
  std::mt19937 rng(56);
  for (const char* op : {"LSTM", "GRU", "RNN"})
    for (const char* direction : {"forward", "bidirectional"})
      for (bool lbr : {false, true})
        for_each_simd_level([&](auto) {
          if (lbr && std::string(op) != "GRU") return;
          RecurrentCase c{op, direction};
          c.linear_before_reset = lbr;
          c.peepholes = std::string(op) == "LSTM";
          const Sizes s{5, random_int(rng, 1, 3), 24, std::string(op) == "RNN" ? 400 : 230};
          SCOPED_TRACE(testing::Message()
                       << op << " " << direction << (lbr ? " lbr" : "") << " batch " << s.batch);
          auto [graph, inputs] = build(c, s, rng);
          // The RNN's pre-activations are sums of 400 products of values up to 1: float32
          // rounding reaches 1e-4 where tanh is steep.
          expect_small_batch_kernel_matches_reference(graph, inputs, 2,
                                                      std::string(op) == "RNN" ? 1e-3 : 1e-4);
        });
}

// Inputs wider than the projection's chunk of 128 inputs (with a remainder), an odd state width
// (the matrix–vector product's odd last input) and up to 45 rows of projection (every row
// blocking), on one and two threads. Nine steps: over twenty, these random recurrences amplify
// float32 rounding past any tolerance (the reference kernels' own error included).
TEST(RecurrentKernels, WideInputsAndManyRows) {
  std::mt19937 rng(57);
  for (const char* op : {"LSTM", "GRU"})
    for (const char* direction : {"forward", "bidirectional"})
      for (int threads : {1, 2})
        for_each_simd_level([&](auto) {
          const Sizes s{9, random_int(rng, 1, 5), 300, 133};
          SCOPED_TRACE(testing::Message()
                       << op << " " << direction << " threads " << threads << " batch " << s.batch);
          auto [graph, inputs] = build(RecurrentCase{op, direction}, s, rng);
          expect_small_batch_kernel_matches_reference(graph, inputs, threads, 1e-4);
        });
}

// What oneDNN cannot compute stays on the reference kernel, and the step says why.
TEST(RecurrentKernels, UnsupportedAttributesStayOnTheReferenceKernel) {
  std::mt19937 rng(54);
  const std::vector<std::pair<std::function<void(ir::Node&)>, std::string>> cases{
      {[](ir::Node& n) { n.attributes["clip"] = attr_float(0.5f); }, "clip"},
      {[](ir::Node& n) { n.attributes["input_forget"] = attr_int(1); }, "input-forget"},
      {[](ir::Node& n) {
         n.attributes["activations"] = attr_strings({"HardSigmoid", "Tanh", "Tanh"});
       },
       "HardSigmoid"},
  };
  for (const auto& [edit, why] : cases) {
    auto [graph, inputs] = build(RecurrentCase{"LSTM"}, {3, 2, 4, 5}, rng, edit);
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kAuto, 1e-4);
    EXPECT_EQ(steps[0].kernel, "reference");
    EXPECT_NE(steps[0].reason.find(why), std::string::npos) << steps[0].reason;
  }
}

// Lengths given as a constant equal to the sequence are the whole sequence: a fast kernel runs
// them.
TEST(RecurrentKernels, ConstantFullSequenceLengthsRunOnAFastKernel) {
  std::mt19937 rng(55);
  const Sizes s{4, 3, 5, 6};
  GraphBuilder g(14);
  g.input("x", {s.seq, s.batch, s.input});
  g.constant("w", random_tensor(rng, {1, 3 * s.hidden, s.input}));
  g.constant("r", random_tensor(rng, {1, 3 * s.hidden, s.hidden}));
  Tensor lengths = Tensor::zeros(DType::kI32, {s.batch});
  for (int64_t i = 0; i < s.batch; ++i) lengths.data<int32_t>()[i] = int32_t(s.seq);
  g.constant("lens", lengths);
  g.node("GRU", {"x", "w", "r", "", "lens"}, {"y"}).attributes["hidden_size"] = attr_int(s.hidden);
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {s.seq, s.batch, s.input})});
  EXPECT_EQ(steps[0].kernel.rfind(expected_kernel_prefix(Batch::kSmall), 0), 0u) << steps[0].reason;
}

}  // namespace
}  // namespace strata::test
