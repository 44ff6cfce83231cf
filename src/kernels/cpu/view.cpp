// Reshape, Flatten, Squeeze, Unsqueeze and Identity as views: the output is the input's bytes
// under another shape, so the session lets both share one buffer and the kernel does nothing
// (it copies only when the session had to keep them apart).
#include <cstring>

#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

bool view_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "Reshape" || node.op_type == "Flatten" || node.op_type == "Squeeze" ||
          node.op_type == "Unsqueeze" || node.op_type == "Identity");
}

Verdict view_supports(const NodeRequest& r) {
  if (r.node.outputs.size() != 1) return Verdict::no("more than one output");
  if (r.input(0).dtype == DType::kString) return Verdict::no("string tensors are not bytes");
  return Verdict::yes("the output is the input's bytes under another shape");
}

class ViewKernel final : public Kernel {
 public:
  explicit ViewKernel(const NodeRequest& r) {
    name_ = "strata:view";
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
    view_of_input_ = 0;
  }

  void run(const KernelArgs& args) override {
    const Tensor& src = *args.inputs[0];
    Tensor& dst = *args.outputs[0];
    if (src.raw() != dst.raw()) std::memcpy(dst.raw(), src.raw(), dst.nbytes());
  }
};

std::unique_ptr<Kernel> view_prepare(const NodeRequest& r) {
  return std::make_unique<ViewKernel>(r);
}

}  // namespace

KernelFamily view_family() {
  return {"cpu_view", false, &view_serves, &view_supports, &view_prepare, false};
}

}  // namespace strata::kernels::cpu
