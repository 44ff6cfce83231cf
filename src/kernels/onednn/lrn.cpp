// LRN across channels through oneDNN's lrn primitive: f32, 1 to 3 spatial axes, an odd window
// (oneDNN centres it; ONNX puts the extra channel of an even window after), in whatever layout the
// input comes. Both scale alpha by the window size: y = x / (bias + alpha / size * sum x^2)^beta.
// GoogLeNet/Inception v1 from Caffe2 spent 37% of its time on the reference kernel here.
#include "ops/lrn.h"

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

bool lrn_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "LRN";
}

Verdict lrn_supports(const NodeRequest& r) {
  const std::optional<ops::LrnAttributes> a = ops::lrn_attributes(r.op);
  if (!a) return Verdict::no("the op is not an LRN");
  if (r.input(0).dtype != DType::kF32) return Verdict::no("oneDNN LRN runs f32 here");
  if (a->size % 2 == 0) return Verdict::no("an even window (oneDNN centres its windows)");
  const int64_t rank = r.input(0).shape.rank();
  if (rank < 3 || rank > 5) return Verdict::no("not 1 to 3 spatial axes");
  return Verdict::yes("f32 LRN across channels");
}

class LrnKernel final : public SrcDstKernel {
 public:
  explicit LrnKernel(const NodeRequest& r) {
    const ops::LrnAttributes a = *ops::lrn_attributes(r.op);
    const std::vector<int64_t> shape = r.input(0).shape.values();
    const Layout layout = r.output_needs_plain[0] ? Layout::kPlain : r.input_layouts[0];
    const dnnl::memory::desc data = desc_of(shape, layout);
    const dnnl::lrn_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::lrn_across_channels, data, a.size, a.alpha,
                                       a.beta, a.bias);
    dnnl::lrn_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
    select_implementation(pd, r.implementation);
    bind_src_dst(pd, dnnl::lrn_forward(pd), data, data);
    input_layouts_ = {layout};
    output_layouts_ = {layout};
  }
};

std::unique_ptr<Kernel> lrn_prepare(const NodeRequest& r) {
  return std::make_unique<LrnKernel>(r);
}

}  // namespace

KernelFamily lrn_family() {
  return {"onednn_lrn", true, &lrn_serves, &lrn_supports, &lrn_prepare, true};
}

}  // namespace strata::kernels::onednn
