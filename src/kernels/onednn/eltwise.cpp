// Element-wise functions of one tensor through oneDNN's eltwise primitive (JIT-vectorised, shared
// among the session's threads): the activations, Exp, Sqrt, Abs, Neg, Reciprocal and Pow by a
// constant scalar. Log and Softplus stay with their reference kernels: oneDNN 2.6's versions miss
// by more than the ONNX tests allow (Log(1) gives -1.4e-6; Softplus is 1% off for small values).
// f32, in whatever layout the input comes in (the output keeps it).
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "ops/activation.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::algorithm;

struct Eltwise {
  algorithm alg;
  float alpha = 0, beta = 0;
};

// Ops with no attributes, by type.
std::optional<Eltwise> plain_function(const std::string& type) {
  if (type == "Relu") return Eltwise{algorithm::eltwise_relu};
  if (type == "Sigmoid") return Eltwise{algorithm::eltwise_logistic};
  if (type == "Tanh") return Eltwise{algorithm::eltwise_tanh};
  if (type == "Exp") return Eltwise{algorithm::eltwise_exp};
  if (type == "Sqrt") return Eltwise{algorithm::eltwise_sqrt};
  if (type == "Abs") return Eltwise{algorithm::eltwise_abs};
  if (type == "Neg") return Eltwise{algorithm::eltwise_linear, -1, 0};
  if (type == "Reciprocal") return Eltwise{algorithm::eltwise_pow, 1, -1};
  return std::nullopt;
}

// The function a node computes, or nullopt with `why` set.
std::optional<Eltwise> function_of(const NodeRequest& r, std::string& why) {
  if (std::optional<Eltwise> f = plain_function(r.node.op_type)) return f;
  if (r.node.op_type == "Pow") {
    const std::shared_ptr<const Tensor>& exponent = r.has_input(1) ? r.input(1).value : nullptr;
    if (!exponent || exponent->numel() != 1) {
      why = "the exponent is not a constant scalar";
      return std::nullopt;
    }
    return Eltwise{algorithm::eltwise_pow, 1, float(exponent->to_double()[0])};
  }
  const std::optional<ops::ActivationOfOp> a = ops::activation_of(r.op);
  if (!a) {
    why = "oneDNN has no such function";
    return std::nullopt;
  }
  ops::Activation act = a->activation;
  if (a->bounds_from_inputs) {  // Clip's bounds must be known at prepare
    for (size_t i : {size_t(1), size_t(2)}) {
      if (!r.has_input(i)) continue;
      const std::shared_ptr<const Tensor>& bound = r.input(i).value;
      if (!bound || bound->numel() != 1) {
        why = "Clip's bounds are known only while running";
        return std::nullopt;
      }
      (i == 1 ? act.alpha : act.beta) = float(bound->to_double()[0]);
    }
  }
  using K = ops::ActivationKind;
  switch (act.kind) {
    case K::kLeakyRelu: return Eltwise{algorithm::eltwise_relu, act.alpha};
    case K::kClip: return Eltwise{algorithm::eltwise_clip, act.alpha, act.beta};
    case K::kElu: return Eltwise{algorithm::eltwise_elu, act.alpha};
    case K::kGelu: return Eltwise{algorithm::eltwise_gelu_erf};
    case K::kGeluTanh: return Eltwise{algorithm::eltwise_gelu_tanh};
    case K::kHardSwish: return Eltwise{algorithm::eltwise_hardswish};
    default: break;
  }
  why = "oneDNN has no single eltwise for this activation";
  return std::nullopt;
}

bool eltwise_serves(const ir::Node& node) {
  static const char* const kTypes[] = {
      "Relu", "Sigmoid",   "Tanh", "Exp", "Sqrt", "Abs",       "Neg",         "Reciprocal",
      "Pow",  "LeakyRelu", "Clip", "Elu", "Gelu", "HardSwish", "HardSigmoid", "Selu"};
  if (!node.domain.empty()) return false;
  for (const char* t : kTypes)
    if (node.op_type == t) return true;
  return false;
}

Verdict eltwise_supports(const NodeRequest& r) {
  if (r.input(0).dtype != DType::kF32)
    return Verdict::no("oneDNN eltwise runs f32 here; the input is " +
                       std::string(dtype_name(r.input(0).dtype)));
  if (r.node.op_type == "Pow" && r.input(0).shape != r.output(0).shape)
    return Verdict::no("the exponent broadcasts the base");
  std::string why;
  if (!function_of(r, why)) return Verdict::no(why);
  return Verdict::yes("f32 element-wise function");
}

class EltwiseKernel final : public SrcDstKernel {
 public:
  explicit EltwiseKernel(const NodeRequest& r) {
    std::string why;
    const Eltwise f = *function_of(r, why);
    const std::vector<int64_t> shape = r.input(0).shape.values();
    const Layout layout = layout_fits(r.input_layouts[0], int64_t(shape.size()))
                              ? r.input_layouts[0]
                              : Layout::kPlain;
    const dnnl::memory::desc data = desc_of(shape, layout);
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, f.alg, data, f.alpha,
                                           f.beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
    select_implementation(pd, r.implementation);
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    input_layouts_[0] = layout;
    output_layouts_ = {layout};
    bind_src_dst(pd, dnnl::eltwise_forward(pd), data, data);
  }
};

std::unique_ptr<Kernel> eltwise_prepare(const NodeRequest& r) {
  return std::make_unique<EltwiseKernel>(r);
}

}  // namespace

KernelFamily eltwise_family() {
  return {"onednn_eltwise", true, &eltwise_serves, &eltwise_supports, &eltwise_prepare, true};
}

}  // namespace strata::kernels::onednn
