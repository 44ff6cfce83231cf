// RNN, GRU and LSTM through oneDNN's RNN primitives (vanilla RNN, LSTM with or without peepholes,
// GRU, and linear-before-reset GRU as PyTorch exports it): f32, layout 0, one layer, forward,
// reverse or bidirectional, the spec's default functions (RNN: Tanh, Relu or Sigmoid), no clip.
// The constant weights are packed once at prepare, their gates moved from ONNX's order to
// oneDNN's (LSTM: ONNX i, o, f, c; oneDNN i, f, c, o) and the two biases summed (oneDNN adds one
// per gate; linear-before-reset GRU keeps the candidate's recurrence bias as a fourth).
// Everything else the spec allows (clip, input_forget, other functions, run-time sequence_lens,
// layout 1) stays with the reference kernel, which says why.
#include <cstring>

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "kernels/recurrent_support.h"
#include "ops/recurrent.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;
using ops::RecurrentCell;

bool rnn_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN");
}

dnnl::algorithm rnn_activation(RnnFunction f) {
  return f == RnnFunction::kTanh   ? dnnl::algorithm::eltwise_tanh
         : f == RnnFunction::kRelu ? dnnl::algorithm::eltwise_relu
                                   : dnnl::algorithm::eltwise_logistic;
}

Verdict rnn_supports(const NodeRequest& r) {
  return recurrent_support(r);
}

// oneDNN's gate g is ONNX's gate kGateOf[cell][g].
std::vector<int64_t> onnx_gate_order(RecurrentCell cell) {
  if (cell == RecurrentCell::kLstm) return {0, 2, 3, 1};  // i, f, c, o from i, o, f, c
  if (cell == RecurrentCell::kGru) return {0, 1, 2};
  return {0};
}

// W or R ([dirs, gates·H, cols] in ONNX's gate order) with its gates in oneDNN's order.
std::vector<float> permute_gates(const Tensor& weights, const std::vector<int64_t>& order,
                                 int64_t dirs, int64_t hidden, int64_t cols) {
  const int64_t gates = int64_t(order.size()), block = hidden * cols;
  std::vector<float> out(static_cast<size_t>(dirs * gates * block));
  const float* in = weights.data<float>();
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t g = 0; g < gates; ++g)
      std::memcpy(&out[size_t((d * gates + g) * block)],
                  in + (d * gates + order[size_t(g)]) * block, size_t(block) * sizeof(float));
  return out;
}

// oneDNN's bias [dirs, gates, H] from ONNX's B [dirs, 2·gates·H] (input then recurrence biases):
// their sum per gate; linear-before-reset GRU adds a fourth, the candidate's recurrence bias,
// which oneDNN applies inside the reset product as ONNX does.
std::vector<float> combined_bias(const Tensor* b, const ops::RecurrentAttributes& a,
                                 const std::vector<int64_t>& order, int64_t hidden) {
  const int64_t gates = int64_t(order.size()), dirs = a.directions;
  const bool lbr = a.cell == RecurrentCell::kGru && a.linear_before_reset;
  const int64_t out_gates = lbr ? 4 : gates;
  std::vector<float> out(static_cast<size_t>(dirs * out_gates * hidden), 0.0f);
  if (!b) return out;
  const float* in = b->data<float>();
  for (int64_t d = 0; d < dirs; ++d) {
    const float* wb = in + d * 2 * gates * hidden;
    const float* rb = wb + gates * hidden;
    float* o = &out[size_t(d * out_gates * hidden)];
    for (int64_t g = 0; g < gates; ++g) {
      const int64_t src = order[size_t(g)];
      const bool candidate_apart = lbr && g == 2;
      for (int64_t h = 0; h < hidden; ++h)
        o[g * hidden + h] = wb[src * hidden + h] + (candidate_apart ? 0.0f : rb[src * hidden + h]);
    }
    if (lbr)
      for (int64_t h = 0; h < hidden; ++h) o[3 * hidden + h] = rb[2 * hidden + h];
  }
  return out;
}

// LSTM peepholes [dirs, 3·H] from ONNX's i, o, f to oneDNN's i, f, o.
std::vector<float> permute_peepholes(const Tensor& p, int64_t dirs, int64_t hidden) {
  std::vector<float> out(static_cast<size_t>(dirs * 3 * hidden));
  const int64_t order[3] = {0, 2, 1};
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t g = 0; g < 3; ++g)
      std::memcpy(&out[size_t((d * 3 + g) * hidden)], p.data<float>() + (d * 3 + order[g]) * hidden,
                  size_t(hidden) * sizeof(float));
  return out;
}

class RecurrentKernel final : public Kernel {
 public:
  explicit RecurrentKernel(const NodeRequest& r) {
    const ops::RecurrentAttributes a = *ops::recurrent_attributes(r.op);
    const std::vector<int64_t> x = r.input(kRecurrentX).shape.values();
    seq_ = x[0];
    batch_ = x[1];
    const int64_t input = x[2], dirs = a.directions;
    const int64_t gates = a.gates();
    hidden_ = a.hidden_size > 0 ? a.hidden_size : r.input(kRecurrentW).shape[1].value() / gates;
    dirs_ = dirs;
    const bool lstm = a.cell == RecurrentCell::kLstm;
    const bool has_peepholes = lstm && r.has_input(kRecurrentPeepholes);
    const std::vector<int64_t> order = onnx_gate_order(a.cell);
    const bool lbr = a.cell == RecurrentCell::kGru && a.linear_before_reset;

    const memory::desc src_layer = desc_of({seq_, batch_, input}, Layout::kPlain);
    const memory::desc state = desc_of({1, dirs, batch_, hidden_}, Layout::kPlain);
    const memory::desc none;
    const memory::desc src_iter = r.has_input(kRecurrentInitialH) ? state : none;
    const memory::desc src_iter_c = lstm && r.has_input(kRecurrentInitialC) ? state : none;
    const memory::desc dst_iter = has_output(r, kRecurrentYH) ? state : none;
    const memory::desc dst_iter_c = lstm && has_output(r, kRecurrentYC) ? state : none;
    // Bidirectional output concatenates the directions per step: [seq, batch, 2·H], copied into
    // ONNX's [seq, dirs, batch, H] after the run. One direction's [seq, batch, H] is Y itself.
    const memory::desc dst_layer = desc_of({seq_, batch_, dirs * hidden_}, Layout::kPlain);
    const auto any = memory::format_tag::any;
    const memory::desc w_layer({1, dirs, input, gates, hidden_}, memory::data_type::f32, any);
    const memory::desc w_iter({1, dirs, hidden_, gates, hidden_}, memory::data_type::f32, any);
    const memory::desc w_peep =
        has_peepholes ? desc_of({1, dirs, 3, hidden_}, Layout::kPlain) : none;
    const memory::desc bias = desc_of({1, dirs, lbr ? 4 : gates, hidden_}, Layout::kPlain);
    const dnnl::rnn_direction direction = dirs == 2 ? dnnl::rnn_direction::bidirectional_concat
                                          : a.reverse
                                              ? dnnl::rnn_direction::unidirectional_right2left
                                              : dnnl::rnn_direction::unidirectional_left2right;
    const auto prop = dnnl::prop_kind::forward_inference;
    const dnnl::primitive_attr attr = user_scratchpad_attr();

    dnnl::primitive primitive;
    memory::desc packed_layer, packed_iter, scratchpad;
    auto finish = [&](const auto& pd, dnnl::primitive p) {
      name_ = impl_name(pd);
      packed_layer = pd.weights_layer_desc();
      packed_iter = pd.weights_iter_desc();
      scratchpad = pd.scratchpad_desc();
      primitive = std::move(p);
    };
    if (lstm) {
      const dnnl::lstm_forward::desc desc(prop, direction, src_layer, src_iter, src_iter_c, w_layer,
                                          w_iter, w_peep, bias, dst_layer, dst_iter, dst_iter_c);
      const dnnl::lstm_forward::primitive_desc pd(desc, attr, cpu_engine());
      finish(pd, dnnl::lstm_forward(pd));
    } else if (a.cell == RecurrentCell::kGru && lbr) {
      const dnnl::lbr_gru_forward::desc desc(prop, direction, src_layer, src_iter, w_layer, w_iter,
                                             bias, dst_layer, dst_iter);
      const dnnl::lbr_gru_forward::primitive_desc pd(desc, attr, cpu_engine());
      finish(pd, dnnl::lbr_gru_forward(pd));
    } else if (a.cell == RecurrentCell::kGru) {
      const dnnl::gru_forward::desc desc(prop, direction, src_layer, src_iter, w_layer, w_iter,
                                         bias, dst_layer, dst_iter);
      const dnnl::gru_forward::primitive_desc pd(desc, attr, cpu_engine());
      finish(pd, dnnl::gru_forward(pd));
    } else {
      const dnnl::vanilla_rnn_forward::desc desc(
          prop, rnn_activation(*rnn_function(a.activations[0])), direction, src_layer, src_iter,
          w_layer, w_iter, bias, dst_layer, dst_iter);
      const dnnl::vanilla_rnn_forward::primitive_desc pd(desc, attr, cpu_engine());
      finish(pd, dnnl::vanilla_rnn_forward(pd));
    }
    primitive_ = BoundPrimitive(std::move(primitive), scratchpad);

    // Weights: ONNX's [dirs, gates·H, cols] is oneDNN's ldgoi once the gates are in its order.
    const auto ldgoi = memory::format_tag::ldgoi;
    const std::vector<float> wl =
        permute_gates(*r.input(kRecurrentW).value, order, dirs, hidden_, input);
    const std::vector<float> wi =
        permute_gates(*r.input(kRecurrentR).value, order, dirs, hidden_, hidden_);
    primitive_.add_fixed(
        DNNL_ARG_WEIGHTS_LAYER,
        reorder_to(wl.data(),
                   memory::desc({1, dirs, input, gates, hidden_}, memory::data_type::f32, ldgoi),
                   packed_layer));
    primitive_.add_fixed(
        DNNL_ARG_WEIGHTS_ITER,
        reorder_to(wi.data(),
                   memory::desc({1, dirs, hidden_, gates, hidden_}, memory::data_type::f32, ldgoi),
                   packed_iter));
    const std::vector<float> b = combined_bias(
        r.has_input(kRecurrentB) ? r.input(kRecurrentB).value.get() : nullptr, a, order, hidden_);
    primitive_.add_fixed(DNNL_ARG_BIAS, reorder_to(b.data(), bias, bias));
    packed_bytes_ = int64_t(packed_layer.get_size() + packed_iter.get_size() + bias.get_size());
    if (has_peepholes) {
      const std::vector<float> p =
          permute_peepholes(*r.input(kRecurrentPeepholes).value, dirs, hidden_);
      primitive_.add_fixed(DNNL_ARG_WEIGHTS_PEEPHOLE, reorder_to(p.data(), w_peep, w_peep));
      packed_bytes_ += int64_t(w_peep.get_size());
    }

    src_layer_slot_ = primitive_.add_slot(DNNL_ARG_SRC_LAYER, src_layer);
    if (r.has_input(kRecurrentInitialH))
      src_iter_slot_ = primitive_.add_slot(DNNL_ARG_SRC_ITER, state);
    if (lstm && r.has_input(kRecurrentInitialC))
      src_iter_c_slot_ = primitive_.add_slot(DNNL_ARG_SRC_ITER_C, state);
    if (has_output(r, kRecurrentYH)) dst_iter_slot_ = primitive_.add_slot(DNNL_ARG_DST_ITER, state);
    if (lstm && has_output(r, kRecurrentYC))
      dst_iter_c_slot_ = primitive_.add_slot(DNNL_ARG_DST_ITER_C, state);
    dst_layer_slot_ = primitive_.add_slot(DNNL_ARG_DST_LAYER, dst_layer);
    y_in_scratch_ = dirs == 2 || !has_output(r, kRecurrentY);
    if (y_in_scratch_) note_ = dirs == 2 ? "both directions' steps are copied into Y's layout" : "";
    y_offset_ = scratch_aligned(primitive_.scratch_bytes());
    scratch_bytes_ = y_offset_ + (y_in_scratch_ ? int64_t(dst_layer.get_size()) : 0);
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_layer_slot_, args.inputs[kRecurrentX]->raw());
    if (src_iter_slot_ >= 0) primitive_.set(src_iter_slot_, args.inputs[kRecurrentInitialH]->raw());
    if (src_iter_c_slot_ >= 0)
      primitive_.set(src_iter_c_slot_, args.inputs[kRecurrentInitialC]->raw());
    if (dst_iter_slot_ >= 0) primitive_.set(dst_iter_slot_, args.outputs[kRecurrentYH]->raw());
    if (dst_iter_c_slot_ >= 0) primitive_.set(dst_iter_c_slot_, args.outputs[kRecurrentYC]->raw());
    float* steps = y_in_scratch_
                       ? reinterpret_cast<float*>(static_cast<char*>(args.scratch) + y_offset_)
                       : args.outputs[kRecurrentY]->data<float>();
    primitive_.set(dst_layer_slot_, steps);
    primitive_.run(args.scratch);
    if (y_in_scratch_ && args.num_outputs > kRecurrentY && args.outputs[kRecurrentY])
      copy_directions(steps, *args.outputs[kRecurrentY]);
  }

 private:
  static bool has_output(const NodeRequest& r, size_t o) {
    return o < r.outputs.size() && r.outputs[o] != nullptr;
  }

  // [seq, batch, dirs·H] → [seq, dirs, batch, H].
  void copy_directions(const float* steps, Tensor& y) const {
    float* out = y.data<float>();
    const size_t row = size_t(hidden_) * sizeof(float);
    for (int64_t t = 0; t < seq_; ++t)
      for (int64_t d = 0; d < dirs_; ++d)
        for (int64_t n = 0; n < batch_; ++n)
          std::memcpy(out + ((t * dirs_ + d) * batch_ + n) * hidden_,
                      steps + (t * batch_ + n) * dirs_ * hidden_ + d * hidden_, row);
  }

  BoundPrimitive primitive_;
  int64_t seq_ = 0, batch_ = 0, hidden_ = 0, dirs_ = 1;
  int src_layer_slot_ = -1, src_iter_slot_ = -1, src_iter_c_slot_ = -1;
  int dst_layer_slot_ = -1, dst_iter_slot_ = -1, dst_iter_c_slot_ = -1;
  bool y_in_scratch_ = false;
  int64_t y_offset_ = 0;
};

std::unique_ptr<Kernel> rnn_prepare(const NodeRequest& r) {
  return std::make_unique<RecurrentKernel>(r);
}

}  // namespace

KernelFamily rnn_family() {
  return {"onednn_rnn", false, &rnn_serves, &rnn_supports, &rnn_prepare, false};
}

}  // namespace strata::kernels::onednn
