// Concat through oneDNN's concat primitive: f32, every input present and non-empty. Inputs and
// output share the layout convolution outputs come in (blocked or channels-last, as in
// SqueezeNet's, GoogLeNet's and DenseNet's channel concatenations), except where a blocked layout
// would split a block between inputs (channel counts not a multiple of 16): then plain.
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "ops/op.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Concat";
}

int64_t concat_axis(const NodeRequest& r) {
  const int64_t rank = r.output(0).shape.rank();
  const int64_t axis = ops::NodeInfo(r.graph, r.node, r.graph.opset).attr_int("axis", 1);
  return axis < 0 ? axis + rank : axis;
}

Verdict supports(const NodeRequest& r) {
  if (r.node.inputs.empty()) return Verdict::no("no inputs");
  for (size_t i = 0; i < r.node.inputs.size(); ++i) {
    if (!r.has_input(i)) return Verdict::no("an input is omitted");
    if (r.input(i).dtype != DType::kF32)
      return Verdict::no("oneDNN concat runs f32 here; input " + std::to_string(i) + " is " +
                         std::string(dtype_name(r.input(i).dtype)));
    if (r.input(i).shape.numel() == 0) return Verdict::no("an input is empty");
  }
  if (r.output(0).shape.rank() < 1 || r.output(0).shape.rank() > 6)
    return Verdict::no("rank 0 or more than 6 dimensions");
  return Verdict::yes("f32 concatenation");
}

// The layout all inputs and the output share: the first non-plain one among the inputs (DenseNet
// concatenates its plain input with blocked convolution outputs), when every input fits it.
Layout shared_layout(const NodeRequest& r, int64_t axis) {
  if (r.output_needs_plain[0]) return Layout::kPlain;
  Layout layout = Layout::kPlain;
  for (Layout l : r.input_layouts)
    if (layout == Layout::kPlain) layout = l;
  if (!layout_fits(layout, r.output(0).shape.rank())) return Layout::kPlain;
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (layout == Layout::kBlocked16 && axis == 1 && r.input(i).shape.values()[1] % kChannelBlock)
      return Layout::kPlain;  // a block would hold channels of two inputs
  return layout;
}

class ConcatKernel final : public Kernel {
 public:
  explicit ConcatKernel(const NodeRequest& r) {
    const int64_t axis = concat_axis(r);
    const Layout layout = shared_layout(r, axis);
    std::vector<memory::desc> srcs;
    for (size_t i = 0; i < r.inputs.size(); ++i)
      srcs.push_back(desc_of(r.input(i).shape.values(), layout));
    const memory::desc dst = desc_of(r.output(0).shape.values(), layout);
    // oneDNN 2.6's concat descriptor has no list to walk (not a dnnl::primitive_desc): one
    // implementation, the one oneDNN picks.
    const dnnl::concat::primitive_desc pd(dst, int(axis), srcs, cpu_engine(),
                                          user_scratchpad_attr());
    name_ = impl_name(pd);
    primitive_ = BoundPrimitive(dnnl::concat(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    for (size_t i = 0; i < srcs.size(); ++i)
      src_slots_.push_back(primitive_.add_slot(DNNL_ARG_MULTIPLE_SRC + int(i), srcs[i]));
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, dst);
    input_layouts_.assign(r.inputs.size(), layout);
    output_layouts_ = {layout};
  }

  void run(const KernelArgs& args) override {
    for (size_t i = 0; i < src_slots_.size(); ++i)
      primitive_.set(src_slots_[i], args.inputs[i]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  std::vector<int> src_slots_;
  int dst_slot_ = -1;
};

std::unique_ptr<Kernel> prepare(const NodeRequest& r) {
  return std::make_unique<ConcatKernel>(r);
}

}  // namespace

KernelFamily concat_family() {
  return {"onednn_concat", true, &serves, &supports, &prepare, false};
}

}  // namespace strata::kernels::onednn
