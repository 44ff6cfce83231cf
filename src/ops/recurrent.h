// The recurrent ops' attributes (RNN, GRU, LSTM), parsed once by the op (src/ops/recurrent.cpp)
// and read by the fast kernels.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

enum class RecurrentCell { kRnn, kGru, kLstm };

struct RecurrentAttributes {
  RecurrentCell cell = RecurrentCell::kLstm;
  int64_t hidden_size = 0;  // 0: not given (W's rows ÷ gates)
  int64_t layout = 0;       // 0: [seq, batch, ...]; 1: [batch, seq, ...]
  bool has_clip = false;
  float clip = 0;
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM
  bool reverse = false;              // direction "reverse"
  int directions = 1;                // 2 for "bidirectional"
  // The functions of every direction in order (defaults filled in), and the alpha/beta values as
  // given (consumed in order by the functions that take them).
  std::vector<std::string> activations;
  std::vector<float> activation_alpha, activation_beta;

  int64_t gates() const {
    return cell == RecurrentCell::kRnn ? 1 : cell == RecurrentCell::kGru ? 3 : 4;
  }
};

// The attributes of an RNN, GRU or LSTM op, or nullopt for other ops.
std::optional<RecurrentAttributes> recurrent_attributes(const Op& op);

}  // namespace strata::ops
