// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool through oneDNN's pooling: f32 (and
// 8-bit max pooling), 1 to 3 spatial axes, in whatever layout the input comes in (the output keeps
// it).
#include "ops/pool.h"

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "kernels/pool_window.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool pool_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "MaxPool" || node.op_type == "AveragePool" || is_global_pool(node));
}

dnnl::algorithm algorithm_of(const NodeRequest& r) {
  if (r.node.op_type == "GlobalMaxPool") return dnnl::algorithm::pooling_max;
  if (r.node.op_type == "GlobalAveragePool") return dnnl::algorithm::pooling_avg_exclude_padding;
  const ops::PoolAttributes attrs = *ops::pool_attributes(r.op);
  if (attrs.is_max) return dnnl::algorithm::pooling_max;
  return attrs.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                 : dnnl::algorithm::pooling_avg_exclude_padding;
}

Verdict pool_supports(const NodeRequest& r) {
  const ops::Meta& x = r.input(0);
  // 8-bit max pooling too (a QDQ network's, fuse_qdq): the maximum is exact in any type.
  const bool max_8_bit = is_8_bit(x.dtype) && algorithm_of(r) == dnnl::algorithm::pooling_max;
  if (x.dtype != DType::kF32 && !max_8_bit)
    return Verdict::no("oneDNN pooling runs f32, and 8-bit max pooling, here; X is " +
                       std::string(dtype_name(x.dtype)));
  if (x.shape.rank() < 3 || x.shape.rank() > 5)
    return Verdict::no("oneDNN pooling takes 1 to 3 spatial axes");
  if (const std::string problem = pool_window_problem(r); !problem.empty())
    return Verdict::no(problem);
  return Verdict::yes(max_8_bit ? "8-bit max pooling" : "f32 pooling");
}

class PoolKernel final : public SrcDstKernel {
 public:
  explicit PoolKernel(const NodeRequest& r) {
    // oneDNN pools 8-bit data fast in channels-last only (its other layouts take the reference
    // implementation): the input is made channels-last first where it comes in another.
    const bool eight_bit = is_8_bit(r.input(0).dtype);
    const Layout layout = eight_bit ? Layout::kChannelsLast : r.input_layouts[0];
    const memory::data_type type = *data_type_of(r.input(0).dtype);
    const memory::desc src = desc_of(r.input(0).shape.values(), layout, type);
    const memory::desc dst = desc_of(r.output(0).shape.values(), layout, type);
    const PoolWindow w = pool_window_of(r);
    const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm_of(r),
                                              src, dst, w.strides, w.kernel, w.dilations,
                                              w.pads_begin, w.pads_end);
    dnnl::pooling_v2_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
    select_implementation(pd, r.implementation);
    input_layouts_ = {layout};
    output_layouts_ = {layout};
    bind_src_dst(pd, dnnl::pooling_v2_forward(pd), src, dst);
  }
};

std::unique_ptr<Kernel> pool_prepare(const NodeRequest& r) {
  return std::make_unique<PoolKernel>(r);
}

}  // namespace

KernelFamily pool_family() {
  return {"onednn_pool", true, &pool_serves, &pool_supports, &pool_prepare, true};
}

}  // namespace strata::kernels::onednn
