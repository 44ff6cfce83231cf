// Concatenated parts (Session::place_concatenated_inputs, Kernel::input_parts): at batch 1 the
// producers of a Concat's inputs write straight into its output, and nothing another step still
// reads is overwritten: in-place kernels keep off shared buffers, groups move whole.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

// A prepared session that ran once, with the inputs it read (tensors kept alive beside it).
struct RanSession {
  std::vector<Tensor> inputs;
  std::unique_ptr<runtime::Session> session;
};

RanSession run_fast(const ir::Graph& graph, std::vector<Tensor> inputs,
                    kernels::LayoutPolicy layout = kernels::LayoutPolicy::kAuto) {
  RanSession r{std::move(inputs), nullptr};
  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : r.inputs) {
    specs.push_back({t.dtype(), t.shape()});
    pointers.push_back(&t);
  }
  runtime::SessionOptions options;
  options.layout = layout;
  r.session = std::make_unique<runtime::Session>(graph, specs, options);
  r.session->run(pointers);
  return r;
}

// The same, after checking its outputs against the reference kernels'.
RanSession run_checked(const ir::Graph& graph, const Tensor& x,
                       kernels::LayoutPolicy layout = kernels::LayoutPolicy::kAuto) {
  expect_fast_matches_reference(graph, {x}, layout);
  return run_fast(graph, {x}, layout);
}

size_t step_of(const runtime::Session& session, const std::string& node_name) {
  for (size_t s = 0; s < session.steps().size(); ++s)
    if (session.graph().nodes[session.steps()[s].node_index].name == node_name) return s;
  ADD_FAILURE() << "no step for node " << node_name;
  return 0;
}

// Where input i of step s lies in the step's output, in bytes (-1: elsewhere).
int64_t offset_in_output(const runtime::Session& session, size_t s, size_t i) {
  const auto* out = static_cast<const std::byte*>(session.step_outputs(s)[0]->raw());
  const auto* in = static_cast<const std::byte*>(session.step_inputs(s)[i]->raw());
  const int64_t d = in - out;
  return d >= 0 && d < int64_t(session.step_outputs(s)[0]->nbytes()) ? d : -1;
}

ir::Node& conv(GraphBuilder& g, std::mt19937& rng, const std::string& x, int64_t in, int64_t out,
               const std::string& y) {
  g.constant(y + "_w", random_tensor(rng, {out, in, 3, 3}));
  ir::Node& n = g.node("Conv", {x, y + "_w"}, {y});
  n.name = y;
  n.attributes["pads"] = attr_ints({1, 1, 1, 1});
  return n;
}

void batch_norm(GraphBuilder& g, std::mt19937& rng, const std::string& x, int64_t channels,
                const std::string& y) {
  for (const char* p : {"scale", "bias", "mean"}) g.constant(y + p, random_tensor(rng, {channels}));
  Tensor var = random_tensor(rng, {channels});
  for (int64_t i = 0; i < channels; ++i)
    var.data<float>()[i] = 0.5f + std::abs(var.data<float>()[i]);
  g.constant(y + "var", var);
  g.node("BatchNormalization", {x, y + "scale", y + "bias", y + "mean", y + "var"}, {y}).name = y;
}

void concat(GraphBuilder& g, const std::vector<std::string>& inputs,
            const std::vector<std::string>& output, const std::string& name) {
  ir::Node& n = g.node("Concat", inputs, output);
  n.name = name;
  n.attributes["axis"] = attr_int(1);
}

TEST(ConcatParts, ProducersWriteTheConcatenationAtBatchOneInEveryLayout) {
  std::mt19937 rng(81);
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kBlocked,
                      kernels::LayoutPolicy::kPlain, kernels::LayoutPolicy::kChannelsLast}) {
    SCOPED_TRACE(kernels::layout_policy_name(layout));
    GraphBuilder g;
    g.input("x", {1, 8, 6, 6});
    conv(g, rng, "x", 8, 16, "a");
    conv(g, rng, "x", 8, 32, "b");
    concat(g, {"a", "b"}, {"c"}, "cat");
    g.node("Relu", {"c"}, {"y"});
    g.output("y");
    const ir::Graph graph = g.build();
    const Tensor x = random_tensor(rng, {1, 8, 6, 6});
    const RanSession r = run_checked(graph, x, layout);
    const size_t s = step_of(*r.session, "cat");
    const runtime::StepInfo& step = r.session->steps()[s];
    // Channels-last interleaves the inputs' channels: no input is one part of the output.
    const bool parts = step.layout != "nhwc";
    EXPECT_EQ(offset_in_output(*r.session, s, 0), parts ? 0 : -1) << step.reason;
    EXPECT_EQ(offset_in_output(*r.session, s, 1), parts ? 16 * 36 * 4 : -1) << step.reason;
    EXPECT_EQ(step.reason.find("no copy") != std::string::npos, parts) << step.reason;
  }
}

// Batch 2 lays the inputs out in turns: each is two parts of the output, so the kernel copies.
TEST(ConcatParts, LargerBatchesAreCopied) {
  std::mt19937 rng(82);
  GraphBuilder g;
  g.input("x", {2, 8, 5, 5});
  conv(g, rng, "x", 8, 8, "a");
  conv(g, rng, "x", 8, 16, "b");
  concat(g, {"a", "b"}, {"y"}, "cat");
  g.output("y");
  const ir::Graph graph = g.build();  // the session refers to it
  const Tensor x = random_tensor(rng, {2, 8, 5, 5});
  const RanSession r = run_checked(graph, x);
  const size_t s = step_of(*r.session, "cat");
  EXPECT_EQ(offset_in_output(*r.session, s, 0), -1);
  EXPECT_EQ(r.session->steps()[s].reason.find("in place"), std::string::npos)
      << r.session->steps()[s].reason;
}

// DenseNet's block: each layer reads the concatenation of all outputs before it through a
// BatchNormalization (a kernel that would write in place into its input), and the block ends
// with the concatenation of them all. The earlier concatenations become the first bytes of the
// last one, and the normalizations must not overwrite them.
TEST(ConcatParts, GrowingConcatenationsShareTheLastOnesBuffer) {
  std::mt19937 rng(83);
  GraphBuilder g;
  g.input("x", {1, 8, 8, 8});
  // 16 channels each: whole blocks in nChw16c and nChw8c alike.
  conv(g, rng, "x", 8, 16, "x0");
  conv(g, rng, "x0", 16, 16, "x1");
  concat(g, {"x0", "x1"}, {"c1"}, "cat1");
  batch_norm(g, rng, "c1", 32, "n1");
  conv(g, rng, "n1", 32, 16, "x2");
  concat(g, {"x0", "x1", "x2"}, {"c2"}, "cat2");
  batch_norm(g, rng, "c2", 48, "n2");
  conv(g, rng, "n2", 48, 16, "x3");
  concat(g, {"x0", "x1", "x2", "x3"}, {"c3"}, "cat3");
  // The same values in another order: copied, since each already lies elsewhere.
  concat(g, {"x1", "x0"}, {"swapped"}, "swapped");
  g.node("Relu", {"c3"}, {"y"});
  g.output("y");
  g.output("swapped");
  const ir::Graph graph = g.build();
  const Tensor x = random_tensor(rng, {1, 8, 8, 8});
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kPlain}) {
    SCOPED_TRACE(kernels::layout_policy_name(layout));
    const RanSession r = run_checked(graph, x, layout);
    const runtime::Session& session = *r.session;
    const size_t s1 = step_of(session, "cat1"), s2 = step_of(session, "cat2"),
                 s3 = step_of(session, "cat3"), s4 = step_of(session, "swapped");
    EXPECT_EQ(session.step_outputs(s1)[0]->raw(), session.step_outputs(s3)[0]->raw());
    EXPECT_EQ(session.step_outputs(s2)[0]->raw(), session.step_outputs(s3)[0]->raw());
    for (size_t i = 0; i < 4; ++i)
      EXPECT_EQ(offset_in_output(session, s3, i), int64_t(i * 16 * 64 * 4));
    EXPECT_FALSE(session.steps()[step_of(session, "n1")].in_place);
    EXPECT_EQ(offset_in_output(session, s4, 0), -1);
    EXPECT_EQ(session.steps()[s4].reason.find("in place"), std::string::npos);
  }
}

// Inputs that cannot be placed are copied beside those that are, and the reason counts them: a
// graph input (bound by the caller), a graph output, and a value given twice.
TEST(ConcatParts, OnlyValuesTheSessionWritesOnceArePlaced) {
  std::mt19937 rng(84);
  GraphBuilder g;
  g.input("x", {1, 8, 4, 4});
  conv(g, rng, "x", 8, 8, "a");
  conv(g, rng, "x", 8, 8, "b");
  conv(g, rng, "x", 8, 8, "o");
  concat(g, {"x", "a", "o", "b", "b"}, {"c"}, "cat");
  g.node("Relu", {"c"}, {"y"});
  g.output("y");
  g.output("o");
  const ir::Graph graph = g.build();
  const Tensor x = random_tensor(rng, {1, 8, 4, 4});
  const RanSession r = run_checked(graph, x, kernels::LayoutPolicy::kPlain);
  const size_t s = step_of(*r.session, "cat");
  const std::vector<int64_t> expected = {-1, 8 * 16 * 4, -1, -1, -1};
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(offset_in_output(*r.session, s, i), expected[i]) << i;
  EXPECT_NE(r.session->steps()[s].reason.find("1 of its 5 inputs"), std::string::npos)
      << r.session->steps()[s].reason;
}

// A view of an output a kernel writes in place follows it into its input's buffer (with another
// buffer planned first, so that a view left behind would read the wrong one).
TEST(ConcatParts, ViewsOfInPlaceOutputsFollowThem) {
  std::mt19937 rng(85);
  GraphBuilder g;
  g.input("x", {1, 8, 4, 4});
  g.constant("shape", Tensor::from<int64_t>({2}, {8, 16}));
  g.node("Abs", {"x"}, {"z"});
  g.node("Neg", {"x"}, {"n"});
  batch_norm(g, rng, "n", 8, "b");
  g.node("Reshape", {"b", "shape"}, {"r"});
  g.node("Relu", {"r"}, {"y"});
  g.output("y");
  g.output("z");
  const ir::Graph graph = g.build();
  const Tensor x = random_tensor(rng, {1, 8, 4, 4});
  const RanSession r = run_checked(graph, x, kernels::LayoutPolicy::kPlain);
  const runtime::Session& session = *r.session;
  const size_t bn = step_of(session, "b");
  ASSERT_TRUE(session.steps()[bn].in_place) << session.steps()[bn].reason;
  EXPECT_EQ(session.step_outputs(bn)[0]->raw(), session.step_inputs(bn)[0]->raw());
  EXPECT_EQ(session.step_outputs(bn + 1)[0]->raw(), session.step_inputs(bn)[0]->raw());
}

}  // namespace
}  // namespace strata::test
