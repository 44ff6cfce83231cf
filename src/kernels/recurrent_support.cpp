#include "kernels/recurrent_support.h"

#include <vector>

namespace strata::kernels {

namespace {

using ops::RecurrentCell;

// Why the functions keep the node off the fast kernels, or "" when they compute them.
std::string functions_refusal(const ops::RecurrentAttributes& a) {
  if (a.cell == RecurrentCell::kRnn) {
    for (const std::string& f : a.activations)
      if (f != a.activations[0] || !rnn_function(f))
        return "a vanilla RNN runs fast with one of Tanh, Relu or Sigmoid for every direction";
    return "";
  }
  const std::vector<std::string> defaults =
      a.cell == RecurrentCell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                    : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  for (size_t i = 0; i < a.activations.size(); ++i)
    if (a.activations[i] != defaults[i % defaults.size()])
      return "the fast kernels compute the default functions only (" + a.activations[i] +
             " is not one)";
  return "";
}

bool is_constant_f32(const NodeRequest& r, size_t i) {
  return r.input(i).value && r.input(i).dtype == DType::kF32;
}

}  // namespace

std::optional<RnnFunction> rnn_function(const std::string& name) {
  if (name == "Tanh") return RnnFunction::kTanh;
  if (name == "Relu") return RnnFunction::kRelu;
  if (name == "Sigmoid") return RnnFunction::kSigmoid;
  return std::nullopt;
}

Verdict recurrent_support(const NodeRequest& r) {
  const std::optional<ops::RecurrentAttributes> a = ops::recurrent_attributes(r.op);
  if (!a) return Verdict::no("the op is not a recurrent op");
  if (r.input(kRecurrentX).dtype != DType::kF32) return Verdict::no("X is not f32");
  if (!is_constant_f32(r, kRecurrentW) || !is_constant_f32(r, kRecurrentR))
    return Verdict::no("the weights W and R are not constant f32 (packed at prepare)");
  if (r.has_input(kRecurrentB) && !is_constant_f32(r, kRecurrentB))
    return Verdict::no("the bias B is not constant");
  if (a->cell == RecurrentCell::kLstm && r.has_input(kRecurrentPeepholes) &&
      !is_constant_f32(r, kRecurrentPeepholes))
    return Verdict::no("the peepholes P are not constant");
  if (a->layout != 0) return Verdict::no("layout 1 (batch first)");
  if (a->has_clip) return Verdict::no("clip is computed by the reference kernel only");
  if (a->input_forget)
    return Verdict::no("the coupled input-forget gate is computed by the reference kernel only");
  if (std::string why = functions_refusal(*a); !why.empty()) return Verdict::no(why);
  for (int i : {kRecurrentInitialH, kRecurrentInitialC})
    if (r.has_input(size_t(i)) && r.input(size_t(i)).dtype != DType::kF32)
      return Verdict::no("the initial states are not f32");
  if (r.has_input(kRecurrentSequenceLens)) {
    const ops::Meta& lengths = r.input(kRecurrentSequenceLens);
    if (!lengths.value)
      return Verdict::no(
          "sequence_lens is given at run time (the fast kernels run every step of every item)");
    const int64_t seq = r.input(kRecurrentX).shape[0].value();
    for (int64_t l : lengths.value->to_int64())
      if (l != seq) return Verdict::no("sequence_lens holds lengths shorter than the sequence");
  }
  return Verdict::yes("f32 recurrent op with constant weights and the default functions");
}

}  // namespace strata::kernels
