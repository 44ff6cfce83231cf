// Add, Sub, Mul, Div (and Sum of two inputs) through oneDNN's binary primitive (JIT-vectorised,
// shared among the session's threads): f32, numpy broadcasting where the first operand (or, for Add
// and Mul, either) has the output's shape. Same-shape and per-channel operations keep the layout
// the first operand comes in; other broadcasts run plain, or, where oneDNN has only its reference
// implementation for them, are turned down for strata's cpu_broadcast_binary.

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool binary_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "Add" || node.op_type == "Sub" || node.op_type == "Mul" ||
          node.op_type == "Div" || (node.op_type == "Sum" && node.inputs.size() == 2));
}

// Sum of two inputs is an Add (Caffe2's ShuffleNet adds its residuals with Sum).
bool commutative(const std::string& type) {
  return type == "Add" || type == "Mul" || type == "Sum";
}

dnnl::algorithm algorithm_of(const std::string& type) {
  if (type == "Add" || type == "Sum") return dnnl::algorithm::binary_add;
  if (type == "Sub") return dnnl::algorithm::binary_sub;
  if (type == "Mul") return dnnl::algorithm::binary_mul;
  return dnnl::algorithm::binary_div;
}

// Which input is the full-shape one (src0): 0, 1 (commutative ops only), or -1.
int full_input(const NodeRequest& r) {
  const Shape& out = r.output(0).shape;
  if (r.input(0).shape == out) return 0;
  if (commutative(r.node.op_type) && r.input(1).shape == out) return 1;
  return -1;
}

Verdict binary_supports(const NodeRequest& r) {
  if (r.node.inputs.size() != 2 || !r.has_input(0) || !r.has_input(1))
    return Verdict::no("needs two inputs");
  if (r.graph.opset < 7 && r.node.op_type != "Sum")
    return Verdict::no("before opset 7 the op broadcasts by attribute");
  for (size_t i : {size_t(0), size_t(1)})
    if (r.input(i).dtype != DType::kF32)
      return Verdict::no("oneDNN binary runs f32 here; input " + std::to_string(i) + " is " +
                         std::string(dtype_name(r.input(i).dtype)));
  if (full_input(r) < 0) return Verdict::no("the first operand broadcasts to the output's shape");
  if (r.output(0).shape.rank() > 6) return Verdict::no("more than 6 dimensions");
  return Verdict::yes("f32 element-wise arithmetic");
}

class BinaryKernel final : public Kernel {
 public:
  explicit BinaryKernel(const NodeRequest& r) : src0_(size_t(full_input(r))), src1_(1 - src0_) {
    const std::vector<int64_t> out = r.output(0).shape.values();
    const std::vector<int64_t> other = padded(r.input(src1_).shape.values(), out.size());
    // The second operand can follow the first's layout when it has the same shape, or is one
    // value per channel (then every layout orders it the same way).
    bool per_channel = out.size() >= 3;
    for (size_t d = 0; d < other.size(); ++d)
      per_channel = per_channel && (other[d] == 1 || (d == 1 && other[d] == out[1]));
    // A per-channel operand of lower rank ([C,1,1], as ConvNeXt's layer scale is written) is
    // converted at its own rank, where axis 1 is not the channel axis: it is read plain instead,
    // which orders its bytes as channels-last does (every other axis has size 1). Blocked needs
    // the channels padded: that case runs plain.
    // A constant one is laid out once here instead, at the output's rank (Caffe2's Scale layers
    // after DenseNet's blocked batch normalisations).
    const bool lower_rank = r.input(src1_).shape.rank() < int64_t(out.size());
    Layout layout = r.input_layouts[src0_];
    const bool laid_out_here = per_channel && r.input(src1_).value && layout != Layout::kPlain;
    if (per_channel && lower_rank && channel_block(layout) > 1 && !laid_out_here)
      per_channel = false;
    if (layout != Layout::kPlain && other != out && !per_channel) layout = Layout::kPlain;
    const bool follows = other == out || (per_channel && (!lower_rank || laid_out_here));
    memory::desc d0 = desc_of(out, layout);
    memory::desc d1 = desc_of(other, follows ? layout : Layout::kPlain);
    dnnl::binary::primitive_desc pd(dnnl::binary::desc(algorithm_of(r.node.op_type), d0, d1, d0),
                                    user_scratchpad_attr(), cpu_engine());
    if (layout == Layout::kPlain && is_reference(pd) && out.size() < 6) {
      // oneDNN's jit binary broadcasts a [C,1,1] operand along axis 1 of its destination; at
      // rank 3 that axis is H (an image normalised by channel: [3,H,W] - [3,1,1]) and only its
      // reference implementation takes it. The same bytes read with a leading 1 put C on axis 1.
      const memory::desc w0 = desc_of(padded(out, out.size() + 1), Layout::kPlain);
      const memory::desc w1 = desc_of(padded(other, out.size() + 1), Layout::kPlain);
      dnnl::binary::primitive_desc wider(
          dnnl::binary::desc(algorithm_of(r.node.op_type), w0, w1, w0), user_scratchpad_attr(),
          cpu_engine());
      if (!is_reference(wider)) {
        note_ = "read with a leading axis of 1 (at rank " + std::to_string(out.size()) +
                " oneDNN offers only " + impl_name(pd) + ")";
        pd = wider;
        d0 = w0;
        d1 = w1;
      }
    }
    // Other broadcasts (a middle axis: Swin's window mask) oneDNN 2.6 runs only on its reference
    // implementation, 50 ns a value: strata's broadcast kernel (cpu_broadcast_binary) takes them.
    if (r.implementation == 0 && is_reference(pd))
      throw std::runtime_error("oneDNN offers only " + impl_name(pd) + " for this broadcast");
    select_implementation(pd, r.implementation);
    name_ = impl_name(pd);
    input_layouts_ = {Layout::kPlain, Layout::kPlain};
    input_layouts_[src0_] = layout;
    if (follows) input_layouts_[src1_] = layout;
    output_layouts_ = {layout};
    primitive_ = BoundPrimitive(dnnl::binary(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    slot0_ = primitive_.add_slot(DNNL_ARG_SRC_0, d0);
    if (laid_out_here && layout == input_layouts_[src1_]) {
      input_layouts_[src1_] = Layout::kPlain;  // read from the copy, not from the session
      primitive_.add_fixed(DNNL_ARG_SRC_1, reorder_to(r.input(src1_).value->raw(),
                                                      desc_of(other, Layout::kPlain), d1));
    } else {
      slot1_ = primitive_.add_slot(DNNL_ARG_SRC_1, d1);
    }
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, d0);
  }

  void run(const KernelArgs& args) override {
    primitive_.set(slot0_, args.inputs[src0_]->raw());
    if (slot1_ >= 0) primitive_.set(slot1_, args.inputs[src1_]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  size_t src0_, src1_;
  BoundPrimitive primitive_;
  int slot0_ = -1, slot1_ = -1, dst_slot_ = -1;
};

std::unique_ptr<Kernel> binary_prepare(const NodeRequest& r) {
  return std::make_unique<BinaryKernel>(r);
}

}  // namespace

KernelFamily binary_family() {
  return {"onednn_binary", true, &binary_serves, &binary_supports, &binary_prepare, true};
}

}  // namespace strata::kernels::onednn
