// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool through oneDNN's pooling: f32, 1 to 3
// spatial axes, in whatever layout the input comes in (the output keeps it).
#include "ops/pool.h"

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool is_global(const ir::Node& node) {
  return node.op_type == "GlobalAveragePool" || node.op_type == "GlobalMaxPool";
}

bool pool_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "MaxPool" || node.op_type == "AveragePool" || is_global(node));
}

// The window actually applied: pads as resolved for this input, the end pad grown so the last
// output's window fits (ceil_mode).
struct PoolWindow {
  memory::dims kernel, strides, dilations, pads_begin, pads_end;
  bool grown = false;  // ceil_mode added end padding beyond the written pads
};

PoolWindow window_of(const NodeRequest& r) {
  const std::vector<int64_t> x = r.input(0).shape.values(), y = r.output(0).shape.values();
  PoolWindow w;
  if (is_global(r.node)) {
    for (size_t d = 2; d < x.size(); ++d) {
      w.kernel.push_back(x[d]);
      w.strides.push_back(1);
      w.dilations.push_back(0);
      w.pads_begin.push_back(0);
      w.pads_end.push_back(0);
    }
    return w;
  }
  const ops::PoolAttributes attrs = *ops::pool_attributes(r.op);
  const std::vector<int64_t> in = ops::spatial_dims(x);
  const ops::Window window = ops::with_forward_pads(attrs.window->resolve(in.size()), in);
  for (size_t d = 0; d < window.rank(); ++d) {
    const int64_t out = y[d + 2];
    const int64_t needed =
        (out - 1) * window.strides[d] + window.extent(d) - in[d] - window.pads_begin[d];
    w.kernel.push_back(window.kernel[d]);
    w.strides.push_back(window.strides[d]);
    w.dilations.push_back(window.dilations[d] - 1);
    w.pads_begin.push_back(window.pads_begin[d]);
    w.pads_end.push_back(std::max(needed, window.pads_end[d]));
    w.grown |= needed > window.pads_end[d];
  }
  return w;
}

Verdict pool_supports(const NodeRequest& r) {
  const ops::Meta& x = r.input(0);
  if (x.dtype != DType::kF32)
    return Verdict::no("oneDNN pooling runs f32 here; X is " + std::string(dtype_name(x.dtype)));
  if (x.shape.rank() < 3 || x.shape.rank() > 5)
    return Verdict::no("oneDNN pooling takes 1 to 3 spatial axes");
  if (!is_global(r.node)) {
    const std::optional<ops::PoolAttributes> attrs = ops::pool_attributes(r.op);
    if (!attrs) return Verdict::no("the op is not a pooling");
    if (attrs->wants_indices) return Verdict::no("MaxPool's Indices output is read");
    const PoolWindow w = window_of(r);
    if (!attrs->is_max && w.grown)
      return Verdict::no("ceil_mode average pooling counts the grown window differently");
    for (size_t d = 0; d < w.kernel.size(); ++d) {
      const int64_t extent = (w.kernel[d] - 1) * (w.dilations[d] + 1) + 1;
      if (w.pads_begin[d] >= extent || w.pads_end[d] >= extent)
        return Verdict::no("a pad as large as the window leaves windows without input");
    }
  }
  return Verdict::yes("f32 pooling");
}

dnnl::algorithm algorithm_of(const NodeRequest& r) {
  if (r.node.op_type == "GlobalMaxPool") return dnnl::algorithm::pooling_max;
  if (r.node.op_type == "GlobalAveragePool") return dnnl::algorithm::pooling_avg_exclude_padding;
  const ops::PoolAttributes attrs = *ops::pool_attributes(r.op);
  if (attrs.is_max) return dnnl::algorithm::pooling_max;
  return attrs.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                 : dnnl::algorithm::pooling_avg_exclude_padding;
}

class PoolKernel final : public SrcDstKernel {
 public:
  explicit PoolKernel(const NodeRequest& r) {
    const Layout layout = r.input_layouts[0];
    const memory::desc src = desc_of(r.input(0).shape.values(), layout);
    const memory::desc dst = desc_of(r.output(0).shape.values(), layout);
    const PoolWindow w = window_of(r);
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
