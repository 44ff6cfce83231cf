#include "kernels/onednn/onednn.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <atomic>

#include "core/error.h"
#include "core/memory_hint.h"
#include "kernels/kernel.h"
#include "kernels/onednn/version.h"

namespace strata::kernels::onednn {

using dnnl::memory;
using tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& cpu_stream() {
  static dnnl::stream stream(cpu_engine());
  return stream;
}

std::optional<memory::data_type> data_type_of(DType dtype) {
  switch (dtype) {
    case DType::kF32: return memory::data_type::f32;
    case DType::kBF16: return memory::data_type::bf16;
    case DType::kF16: return memory::data_type::f16;
    case DType::kI32: return memory::data_type::s32;
    case DType::kI8: return memory::data_type::s8;
    case DType::kU8: return memory::data_type::u8;
    default: return std::nullopt;
  }
}

memory::format_tag format_of(Layout layout, int64_t rank) {
  static constexpr tag kPlain[] = {tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
  switch (layout) {
    case Layout::kPlain:
      if (rank >= 1 && rank <= 6) return kPlain[rank - 1];
      break;
    case Layout::kChannelsLast:
      if (rank == 3) return tag::acb;
      if (rank == 4) return tag::acdb;
      if (rank == 5) return tag::acdeb;
      break;
    case Layout::kBlocked16:
      if (rank == 3) return tag::aBc16b;
      if (rank == 4) return tag::aBcd16b;
      if (rank == 5) return tag::aBcde16b;
      break;
    case Layout::kBlocked8:
      if (rank == 3) return tag::aBc8b;
      if (rank == 4) return tag::aBcd8b;
      if (rank == 5) return tag::aBcde8b;
      break;
  }
  fail_internal("no oneDNN format for layout {} at rank {}", layout_name(layout, rank), rank);
}

memory::desc desc_of(const std::vector<int64_t>& shape, Layout layout, memory::data_type type) {
  if (shape.empty()) return memory::desc({1}, type, tag::a);  // a scalar as one element
  return memory::desc(memory::dims(shape.begin(), shape.end()), type,
                      format_of(layout, int64_t(shape.size())));
}

std::vector<int64_t> padded(std::vector<int64_t> shape, size_t rank) {
  shape.insert(shape.begin(), rank - std::min(rank, shape.size()), 1);
  return shape;
}

std::optional<Layout> layout_of(const memory::desc& desc) {
  const memory::dims dims = desc.dims();
  const std::vector<int64_t> shape(dims.begin(), dims.end());
  for (Layout layout :
       {Layout::kPlain, Layout::kChannelsLast, Layout::kBlocked16, Layout::kBlocked8}) {
    if (!layout_fits(layout, int64_t(shape.size()))) continue;
    if (desc == desc_of(shape, layout, desc.data_type())) return layout;
  }
  return std::nullopt;
}

bool append_activation(dnnl::post_ops& post_ops, const ops::Activation& a) {
  using algo = dnnl::algorithm;
  using K = ops::ActivationKind;
  switch (a.kind) {
    case K::kNone: return true;
    case K::kRelu: post_ops.append_eltwise(1, algo::eltwise_relu, 0, 0); return true;
    case K::kLeakyRelu: post_ops.append_eltwise(1, algo::eltwise_relu, a.alpha, 0); return true;
    case K::kClip: post_ops.append_eltwise(1, algo::eltwise_clip, a.alpha, a.beta); return true;
    case K::kSigmoid: post_ops.append_eltwise(1, algo::eltwise_logistic, 0, 0); return true;
    case K::kTanh: post_ops.append_eltwise(1, algo::eltwise_tanh, 0, 0); return true;
    case K::kSilu: post_ops.append_eltwise(1, algo::eltwise_swish, 1, 0); return true;
    case K::kGelu: post_ops.append_eltwise(1, algo::eltwise_gelu_erf, 0, 0); return true;
    case K::kGeluTanh: post_ops.append_eltwise(1, algo::eltwise_gelu_tanh, 0, 0); return true;
    case K::kElu: post_ops.append_eltwise(1, algo::eltwise_elu, a.alpha, 0); return true;
    case K::kHardSigmoid:
      post_ops.append_eltwise(1, algo::eltwise_linear, a.alpha, a.beta);
      post_ops.append_eltwise(1, algo::eltwise_clip, 0, 1);
      return true;
    case K::kHardSwish: post_ops.append_eltwise(1, algo::eltwise_hardswish, 0, 0); return true;
  }
  return false;
}

dnnl::primitive_attr user_scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void set_requantization(dnnl::primitive_attr& attr, float x_scale,
                        const std::vector<double>& w_scales, float y_scale, int32_t y_zero_point) {
  // The multipliers as the reference kernel computes them (float32 products), as ONNX Runtime does.
  std::vector<float> multipliers;
  for (double w_scale : w_scales) multipliers.push_back(x_scale * float(w_scale) / y_scale);
  attr.set_output_scales(multipliers.size() == 1 ? 0 : 1 << 1, multipliers);
  if (y_zero_point == 0) return;
  // QuantizeLinear rounds, then adds the zero point: two post-ops, exact in float32 (a rounded
  // value and a zero point are small integers). oneDNN's own destination zero point is added
  // before its final conversion rounds (-8.499999 + 127 = 118.5 in float32 would round the other
  // way), and in oneDNN 2.6 it keeps a convolution off its brgemm kernels: on AMX, the older
  // jit_1x1 kernel took 1.5–9 times as long for mobilenet_v2's 1×1 convolutions.
  dnnl::post_ops requantize;
  requantize.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
  requantize.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f, float(y_zero_point));
  attr.set_post_ops(requantize);
}

void select_implementation(dnnl::primitive_desc& pd, int index) {
  if (index == 0) return;
  const PrimitiveCachePause pause;  // the list is only the list without the cache (version.h)
  for (int i = 0; i < index; ++i)
    if (!pd.next_impl()) throw NoSuchImplementation();
}

Layout native_blocked_layout() {
  const unsigned avx512 = unsigned(dnnl::cpu_isa::avx512_core);
  return (unsigned(dnnl::get_effective_cpu_isa()) & avx512) == avx512 ? Layout::kBlocked16
                                                                      : Layout::kBlocked8;
}

bool is_reference(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

std::string impl_name(const dnnl::primitive_desc_base& pd) {
  return "onednn:" + std::string(pd.impl_info_str());
}

BoundPrimitive::BoundPrimitive(dnnl::primitive primitive, const memory::desc& scratch_desc)
    : primitive_(std::move(primitive)), scratch_bytes_(int64_t(scratch_desc.get_size())) {
  if (scratch_bytes_ > 0) {
    scratch_ = memory(scratch_desc, cpu_engine(), nullptr);
    args_.push_back({DNNL_ARG_SCRATCHPAD, scratch_.get()});
  }
}

int BoundPrimitive::add_slot(int arg, const memory::desc& desc) {
  memories_.push_back(memory(desc, cpu_engine(), nullptr));
  args_.push_back({arg, memories_.back().get()});
  slot_memory_.push_back(memories_.size() - 1);
  slot_data_.push_back(nullptr);
  return int(slot_memory_.size() - 1);
}

void BoundPrimitive::add_fixed(int arg, const memory& m) {
  memories_.push_back(m);
  args_.push_back({arg, m.get()});
}

void BoundPrimitive::set(int slot, const void* data) {
  if (slot_data_[size_t(slot)] == data) return;
  memories_[slot_memory_[size_t(slot)]].set_data_handle(const_cast<void*>(data));
  slot_data_[size_t(slot)] = data;
}

namespace {
std::atomic<int64_t> g_library_calls{0};
}  // namespace

void BoundPrimitive::run(void* scratch) {
  g_library_calls.fetch_add(1, std::memory_order_relaxed);
  if (scratch_bytes_ > 0) scratch_.set_data_handle(scratch);
  const dnnl_status_t status =
      dnnl_primitive_execute(primitive_.get(), cpu_stream().get(), int(args_.size()), args_.data());
  if (status != dnnl_success) fail_internal("oneDNN primitive failed with status {}", int(status));
}

void SrcDstKernel::run(const KernelArgs& args) {
  primitive_.set(src_slot_, args.inputs[0]->raw());
  primitive_.set(dst_slot_, args.outputs[0]->raw());
  primitive_.run(args.scratch);
}

InPlaceActivation::InPlaceActivation(const ops::Activation& activation, const memory::desc& data) {
  dnnl::post_ops post_ops;
  if (!append_activation(post_ops, activation))
    fail_internal("oneDNN has no eltwise for activation {}", int(activation.kind));
  for (int i = 0; i < post_ops.len(); ++i) {
    float scale = 1, alpha = 0, beta = 0;
    dnnl::algorithm algorithm;
    post_ops.get_params_eltwise(i, scale, algorithm, alpha, beta);
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, data,
                                           alpha, beta);
    const dnnl::eltwise_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
    Step step{BoundPrimitive(dnnl::eltwise_forward(pd), pd.scratchpad_desc())};
    step.src_slot = step.primitive.add_slot(DNNL_ARG_SRC, data);
    step.dst_slot = step.primitive.add_slot(DNNL_ARG_DST, data);
    scratch_bytes_ = std::max(scratch_bytes_, step.primitive.scratch_bytes());
    name_ += (name_.empty() ? "" : "+") +
             std::string(dnnl_alg_kind2str(dnnl_alg_kind_t(algorithm))) + ":" + pd.impl_info_str();
    steps_.push_back(std::move(step));
  }
}

void InPlaceActivation::run(void* data, void* scratch) {
  for (Step& step : steps_) {
    step.primitive.set(step.src_slot, data);
    step.primitive.set(step.dst_slot, data);
    step.primitive.run(scratch);
  }
}

std::shared_ptr<const Tensor> bind_weights_and_bias(BoundPrimitive& primitive, const NodeRequest& r,
                                                    const memory::desc& w_plain,
                                                    const memory::desc& packed) {
  const Tensor& weights = *r.input(1).value;
  primitive.add_fixed(DNNL_ARG_WEIGHTS, reorder_to(weights.raw(), w_plain, packed));
  release_resident_pages(weights.raw(), weights.nbytes());
  if (!r.has_input(2)) return nullptr;
  std::shared_ptr<const Tensor> bias = r.input(2).value;
  primitive.add_fixed(DNNL_ARG_BIAS, memory(desc_of({bias->numel()}, Layout::kPlain), cpu_engine(),
                                            const_cast<void*>(bias->raw())));
  return bias;
}

memory reorder_to(const void* src, const memory::desc& plain_desc, const memory::desc& desc) {
  memory from(plain_desc, cpu_engine(), const_cast<void*>(src));
  memory to(desc, cpu_engine());
  dnnl::reorder(from, to).execute(cpu_stream(), from, to);
  cpu_stream().wait();
  return to;
}

}  // namespace strata::kernels::onednn

namespace strata::kernels {
int64_t library_calls() {
  return onednn::g_library_calls.load(std::memory_order_relaxed);
}
}  // namespace strata::kernels
