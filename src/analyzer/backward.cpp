#include "analyzer/backward.h"

#include <algorithm>
#include <array>

namespace strata::analyzer {

namespace {

struct Entry {
  std::string_view op_type;
  double flops_factor;
  Saves saves;
};

// Matrix products: the gradients with respect to both operands cost one product each (2×).
// Element-wise and other arithmetic ops: about as much work backward as forward (1×).
// Data movement, comparisons and generators: no arithmetic backward (0×).
constexpr auto kRules = std::to_array<Entry>({
    {"Abs", 1, Saves::kActivationInputs},
    {"Add", 1, Saves::kNothing},
    {"And", 0, Saves::kNothing},
    {"ArgMax", 0, Saves::kNothing},
    {"ArgMin", 0, Saves::kNothing},
    {"AveragePool", 1, Saves::kNothing},
    {"BatchNormalization", 1, Saves::kActivationInputs},
    {"Cast", 0, Saves::kNothing},
    {"Ceil", 0, Saves::kNothing},
    {"Clip", 1, Saves::kActivationInputs},
    {"Concat", 0, Saves::kNothing},
    {"Constant", 0, Saves::kNothing},
    {"ConstantOfShape", 0, Saves::kNothing},
    {"Conv", 2, Saves::kActivationInputs},
    {"ConvTranspose", 2, Saves::kActivationInputs},
    {"Cos", 1, Saves::kActivationInputs},
    {"CumSum", 1, Saves::kNothing},
    {"DepthToSpace", 0, Saves::kNothing},
    {"Div", 1, Saves::kActivationInputs},
    {"Dropout", 1, Saves::kNothing},
    {"Einsum", 2, Saves::kActivationInputs},
    {"Elu", 1, Saves::kActivationInputs},
    {"Equal", 0, Saves::kNothing},
    {"Erf", 1, Saves::kActivationInputs},
    {"Exp", 1, Saves::kOutputs},
    {"Expand", 0, Saves::kNothing},
    {"EyeLike", 0, Saves::kNothing},
    {"Flatten", 0, Saves::kNothing},
    {"Floor", 0, Saves::kNothing},
    {"Gather", 0, Saves::kIndexInputs},
    {"GatherElements", 0, Saves::kIndexInputs},
    {"GatherND", 0, Saves::kIndexInputs},
    {"Gelu", 1, Saves::kActivationInputs},
    {"Gemm", 2, Saves::kActivationInputs},
    {"GlobalAveragePool", 1, Saves::kNothing},
    {"GlobalMaxPool", 1, Saves::kActivationInputs},
    {"Greater", 0, Saves::kNothing},
    {"GreaterOrEqual", 0, Saves::kNothing},
    {"HardSigmoid", 1, Saves::kActivationInputs},
    {"HardSwish", 1, Saves::kActivationInputs},
    {"Identity", 0, Saves::kNothing},
    {"InstanceNormalization", 1, Saves::kActivationInputs},
    {"IsNaN", 0, Saves::kNothing},
    {"LRN", 1, Saves::kActivationInputs},
    {"LayerNormalization", 1, Saves::kActivationInputs},
    {"LeakyRelu", 1, Saves::kActivationInputs},
    {"Less", 0, Saves::kNothing},
    {"LessOrEqual", 0, Saves::kNothing},
    {"Log", 1, Saves::kActivationInputs},
    {"LogSoftmax", 1, Saves::kOutputs},
    {"MatMul", 2, Saves::kActivationInputs},
    {"Max", 1, Saves::kActivationInputs},
    {"MaxPool", 1, Saves::kActivationInputs},
    {"Mean", 1, Saves::kNothing},
    {"Min", 1, Saves::kActivationInputs},
    {"Mod", 0, Saves::kNothing},
    {"Mul", 1, Saves::kActivationInputs},
    {"Neg", 1, Saves::kNothing},
    {"Not", 0, Saves::kNothing},
    {"OneHot", 0, Saves::kNothing},
    {"Or", 0, Saves::kNothing},
    {"PRelu", 1, Saves::kActivationInputs},
    {"Pad", 0, Saves::kNothing},
    {"Pow", 1, Saves::kActivationInputs},
    {"Range", 0, Saves::kNothing},
    {"Reciprocal", 1, Saves::kOutputs},
    {"ReduceL1", 1, Saves::kActivationInputs},
    {"ReduceL2", 1, Saves::kActivationInputs},
    {"ReduceLogSumExp", 1, Saves::kActivationInputs},
    {"ReduceMax", 1, Saves::kActivationInputs},
    {"ReduceMean", 1, Saves::kNothing},
    {"ReduceMin", 1, Saves::kActivationInputs},
    {"ReduceProd", 1, Saves::kActivationInputs},
    {"ReduceSum", 1, Saves::kNothing},
    {"ReduceSumSquare", 1, Saves::kActivationInputs},
    {"Relu", 1, Saves::kOutputs},
    {"Reshape", 0, Saves::kNothing},
    {"Resize", 1, Saves::kNothing},
    {"Round", 0, Saves::kNothing},
    {"ScatterElements", 0, Saves::kIndexInputs},
    {"ScatterND", 0, Saves::kIndexInputs},
    {"Selu", 1, Saves::kActivationInputs},
    {"Shape", 0, Saves::kNothing},
    {"Sigmoid", 1, Saves::kOutputs},
    {"Sign", 0, Saves::kNothing},
    {"Sin", 1, Saves::kActivationInputs},
    {"Size", 0, Saves::kNothing},
    {"Slice", 0, Saves::kNothing},
    {"Softmax", 1, Saves::kOutputs},
    {"Softplus", 1, Saves::kActivationInputs},
    {"Softsign", 1, Saves::kActivationInputs},
    {"SpaceToDepth", 0, Saves::kNothing},
    {"Split", 0, Saves::kNothing},
    {"Sqrt", 1, Saves::kOutputs},
    {"Squeeze", 0, Saves::kNothing},
    {"Sub", 1, Saves::kNothing},
    {"Sum", 1, Saves::kNothing},
    {"Tan", 1, Saves::kActivationInputs},
    {"Tanh", 1, Saves::kOutputs},
    {"Tile", 0, Saves::kNothing},
    {"TopK", 0, Saves::kOutputs},
    {"Transpose", 0, Saves::kNothing},
    {"Trilu", 0, Saves::kNothing},
    {"Unsqueeze", 0, Saves::kNothing},
    {"Where", 0, Saves::kIndexInputs},
    {"Xor", 0, Saves::kNothing},
});

}  // namespace

BackwardRule backward_rule(std::string_view op_type) {
  static_assert(std::is_sorted(kRules.begin(), kRules.end(), [](const Entry& a, const Entry& b) {
    return a.op_type < b.op_type;
  }));
  const auto it =
      std::lower_bound(kRules.begin(), kRules.end(), op_type,
                       [](const Entry& e, std::string_view t) { return e.op_type < t; });
  if (it == kRules.end() || it->op_type != op_type) return {};
  return {it->flops_factor, it->saves, true};
}

}  // namespace strata::analyzer
