#include "testutil/control_flow_models.h"

namespace strata::test {

ModelBuilder body() {
  return ModelBuilder();
}

ModelBuilder if_model(int64_t else_rows) {
  ModelBuilder then_b = body();
  then_b.add_initializer("one", Tensor::from<float>({}, {1.0f}));
  then_b.add_node("Add", {"x", "one"}, {"t"}, "then_add");
  then_b.add_output("t", DType::kF32, {3});
  ModelBuilder else_b = body();
  if (else_rows == 3) {
    else_b.add_node("Neg", {"x"}, {"e"}, "else_neg");
  } else {
    else_b.add_node("Concat", {"x", "x"}, {"e"}, "else_concat");
    set_attr(*else_b.graph().mutable_node(0), "axis", int64_t(0));
  }
  else_b.add_output("e", DType::kF32, {else_rows});
  ModelBuilder m;
  m.add_input("cond", DType::kBool, {});
  m.add_input("x", DType::kF32, {3});
  auto& node = m.add_node("If", {"cond"}, {"y"}, "choose");
  set_attr(node, "then_branch", then_b.graph());
  set_attr(node, "else_branch", else_b.graph());
  m.add_output("y", DType::kF32, {DimSpec::unknown()});
  return m;
}

ModelBuilder loop_model(int64_t stop_at, int64_t constant_trips) {
  ModelBuilder b = body();
  b.add_input("i", DType::kI64, {});
  b.add_input("cond_in", DType::kBool, {});
  b.add_input("acc_in", DType::kF32, {2});
  b.add_node("Add", {"acc_in", "x"}, {"acc_out"}, "body_add");
  b.add_node("Identity", {"acc_out"}, {"scan"}, "body_scan");
  if (stop_at > 0) {
    b.add_initializer("limit", Tensor::from<int64_t>({}, {stop_at - 1}));
    b.add_node("Less", {"i", "limit"}, {"cond_out"}, "body_less");
  } else {
    b.add_node("Identity", {"cond_in"}, {"cond_out"}, "body_cond");
  }
  b.add_output("cond_out", DType::kBool, {});
  b.add_output("acc_out", DType::kF32, {2});
  b.add_output("scan", DType::kF32, {2});
  ModelBuilder m;
  if (constant_trips > 0)
    m.add_initializer("M", Tensor::from<int64_t>({}, {constant_trips}));
  else
    m.add_input("M", DType::kI64, {});
  m.add_input("x", DType::kF32, {2});
  m.add_initializer("cond", Tensor::from<bool>({}, {true}));
  m.add_initializer("acc0", Tensor::from<float>({2}, {10, 20}));
  auto& node = m.add_node("Loop", {"M", "cond", "acc0"}, {"acc", "stack"}, "repeat");
  set_attr(node, "body", b.graph());
  m.add_output("acc", DType::kF32, {2});
  m.add_output("stack", DType::kF32, {DimSpec::unknown(), 2});
  return m;
}

ModelBuilder scan_model(int64_t axis, int64_t reverse, int64_t output_axis) {
  ModelBuilder b = body();
  b.add_input("s_in", DType::kF32, {2});
  b.add_input("row", DType::kF32, {2});
  b.add_node("Add", {"s_in", "row"}, {"s_out"}, "body_add");
  b.add_node("Identity", {"s_out"}, {"y"}, "body_id");
  b.add_output("s_out", DType::kF32, {2});
  b.add_output("y", DType::kF32, {2});
  ModelBuilder m;
  m.add_input("x", DType::kF32,
              axis == 0 ? std::vector<DimSpec>{3, 2} : std::vector<DimSpec>{2, 3});
  m.add_initializer("s0", Tensor::from<float>({2}, {0, 0}));
  auto& node = m.add_node("Scan", {"s0", "x"}, {"s", "ys"}, "scan");
  set_attr(node, "body", b.graph());
  set_attr(node, "num_scan_inputs", int64_t(1));
  set_attr(node, "scan_input_axes", std::vector<int64_t>{axis});
  set_attr(node, "scan_input_directions", std::vector<int64_t>{reverse});
  set_attr(node, "scan_output_axes", std::vector<int64_t>{output_axis});
  m.add_output("s", DType::kF32, {2});
  m.add_output("ys", DType::kF32, {DimSpec::unknown(), DimSpec::unknown()});
  return m;
}

ModelBuilder growing_loop_model(int64_t trips, bool inner_if, bool declare_first_shape) {
  ModelBuilder b = body();
  b.add_input("i", DType::kI64, {});
  b.add_input("cond_in", DType::kBool, {});
  if (declare_first_shape)
    b.add_input("acc_in", DType::kF32, {1, 4});
  else
    b.add_input("acc_in", DType::kF32, {DimSpec::unknown(), 4});
  if (inner_if) {
    ModelBuilder then_b = body();
    then_b.add_node("Relu", {"x"}, {"t"}, "inner_relu");
    then_b.add_output("t", DType::kF32, {1, 4});
    ModelBuilder else_b = body();
    else_b.add_node("Identity", {"x"}, {"e"}, "inner_id");
    else_b.add_output("e", DType::kF32, {1, 4});
    auto& gate = b.add_node("If", {"cond_in"}, {"row"}, "gate");
    set_attr(gate, "then_branch", then_b.graph());
    set_attr(gate, "else_branch", else_b.graph());
  } else {
    b.add_node("Relu", {"x"}, {"row"}, "body_relu");
  }
  auto& concat = b.add_node("Concat", {"acc_in", "row"}, {"acc_out"}, "body_concat");
  set_attr(concat, "axis", int64_t(0));
  b.add_node("Identity", {"cond_in"}, {"cond_out"}, "body_cond");
  b.add_output("cond_out", DType::kBool, {});
  b.add_output("acc_out", DType::kF32, {DimSpec::unknown(), 4});
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1, 4});
  m.add_initializer("M", Tensor::from<int64_t>({}, {trips}));
  m.add_initializer("cond", Tensor::from<bool>({}, {true}));
  m.add_initializer("acc0", Tensor::from<float>({1, 4}, {0, 0, 0, 0}));
  auto& node = m.add_node("Loop", {"M", "cond", "acc0"}, {"acc"}, "grow");
  set_attr(node, "body", b.graph());
  m.add_output("acc", DType::kF32, {DimSpec::unknown(), 4});
  return m;
}

}  // namespace strata::test
