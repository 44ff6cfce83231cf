// `strata run` on a model whose Gradient node (ai.onnx.preview.training) would have to
// differentiate an op without a backward rule: exit 2 and one sentence naming both nodes and the
// op, before anything runs.
#include <gtest/gtest.h>

#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

TEST(CliBadInput, GradientThroughAnOpWithoutABackwardRule) {
  TempDir dir;
  ModelBuilder m{17};
  auto* import = m.proto().add_opset_import();
  import->set_domain("ai.onnx.preview.training");
  import->set_version(1);
  m.add_input("x", DType::kF32, {2, 3});
  m.add_node("Softmax", {"x"}, {"y"}, "soft");
  onnx::NodeProto& grad = m.add_node("Gradient", {"x"}, {"dy_dx"}, "grad");
  grad.set_domain("ai.onnx.preview.training");
  onnx::AttributeProto* xs = grad.add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("x");
  set_attr(grad, "y", std::string("y"));
  m.add_output("dy_dx");
  const std::string model = m.save(dir.path("gradient.onnx"));
  expect_bad_input(run_strata(dir, {"run", model, "--iter", "1", "--warmup", "0"}),
                   {"Gradient node 'grad'", "Softmax node 'soft'", "no backward rule for Softmax"});
}

}  // namespace
}  // namespace strata::test
