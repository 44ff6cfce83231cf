// What every fast recurrent kernel (strata's small-batch kernel and oneDNN's RNN primitives)
// requires of an RNN, GRU or LSTM node; the rest of the spec stays with the reference kernel.
#pragma once

#include <optional>
#include <string>

#include "kernels/kernel.h"
#include "ops/recurrent.h"

namespace strata::kernels {

// Input and output positions of the ONNX recurrent ops.
enum RecurrentInput {
  kRecurrentX,
  kRecurrentW,
  kRecurrentR,
  kRecurrentB,
  kRecurrentSequenceLens,
  kRecurrentInitialH,
  kRecurrentInitialC,
  kRecurrentPeepholes
};
enum RecurrentOutput { kRecurrentY, kRecurrentYH, kRecurrentYC };

// Yes for f32 data, constant f32 weights (W, R, B and LSTM's P), layout 0, no clip, no coupled
// input-forget gate, the default functions (a vanilla RNN: Tanh, Relu or Sigmoid, the same for
// every direction), and sequence_lens absent or constant and equal to the sequence's length.
Verdict recurrent_support(const NodeRequest& r);

// The one function of a vanilla RNN the fast kernels compute (recurrent_support said yes).
enum class RnnFunction { kTanh, kRelu, kSigmoid };
std::optional<RnnFunction> rnn_function(const std::string& name);

}  // namespace strata::kernels
