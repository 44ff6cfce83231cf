// What the oneDNN kernels share: the CPU engine and stream, memory descriptors for strata tensors,
// and a primitive whose arguments are bound once at prepare so that running it builds nothing.
// src/kernels/onednn/ is the only place that includes dnnl.hpp.
#pragma once

#include <dnnl.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/layout.h"
#include "kernels/kernel.h"
#include "ops/fused_activation.h"

namespace strata::kernels::onednn {

dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();

// oneDNN's data type for a strata dtype (nullopt when it has none).
std::optional<dnnl::memory::data_type> data_type_of(DType dtype);

// The format tag of a layout at a rank (plain: abc...; channels-last: acdb...; blocked: aBcd16b).
dnnl::memory::format_tag format_of(Layout layout, int64_t rank);

// The channel-blocked layout oneDNN's convolutions work in on this CPU: nChw16c where they run
// AVX-512 (a vector of 16 floats), nChw8c below it (AVX2's 8; oneDNN has no AVX2 convolution in
// blocks of 16 and answers nChw16c with its reference implementation there).
Layout native_blocked_layout();

// A descriptor for a tensor of `shape` in `layout` (f32 unless told).
dnnl::memory::desc desc_of(const std::vector<int64_t>& shape, Layout layout,
                           dnnl::memory::data_type type = dnnl::memory::data_type::f32);

// `shape` with leading 1s up to `rank` (how operands broadcast to a rank).
std::vector<int64_t> padded(std::vector<int64_t> shape, size_t rank);

// The strata layout a descriptor oneDNN chose is in, or nullopt when it is none of them.
std::optional<Layout> layout_of(const dnnl::memory::desc& desc);

// Appends the eltwise post-ops for a fused activation; false when oneDNN has no equivalent.
bool append_activation(dnnl::post_ops& post_ops, const ops::Activation& activation);

// Attributes every strata primitive uses: scratch memory given by the caller (booked at prepare).
dnnl::primitive_attr user_scratchpad_attr();

// Sets the requantization of an int8 convolution or matmul writing a quantized output: the int32
// sums times x_scale · w_scale / y_scale (one multiplier, or one per output channel along
// dimension 1), rounded half to even, plus y_zero_point, saturated.
void set_requantization(dnnl::primitive_attr& attr, float x_scale,
                        const std::vector<double>& w_scales, float y_scale, int32_t y_zero_point);

// Moves `pd` to implementation number `index` in oneDNN's list for its descriptor (0: the one
// oneDNN prefers, as built); throws NoSuchImplementation past the list's end (fast-run). The
// operation descriptor `pd` was built from must still be alive: oneDNN's iterator points at it.
void select_implementation(dnnl::primitive_desc& pd, int index);

// Whether oneDNN picked one of its reference implementations ("ref:any"): written for clarity,
// tens to thousands of times slower than its optimised ones.
bool is_reference(const dnnl::primitive_desc_base& pd);

// "onednn:" + the implementation oneDNN picked ("onednn:brgconv:avx512_core").
std::string impl_name(const dnnl::primitive_desc_base& pd);

// A primitive with every argument bound once. Arguments whose buffer changes between runs get a
// slot; run() points the slots at this run's buffers and executes without building anything.
class BoundPrimitive {
 public:
  BoundPrimitive() = default;
  BoundPrimitive(dnnl::primitive primitive, const dnnl::memory::desc& scratch_desc);

  // An argument whose buffer is given at run time; returns its slot.
  int add_slot(int arg, const dnnl::memory::desc& desc);
  // An argument that stays the same (packed weights, bias).
  void add_fixed(int arg, const dnnl::memory& memory);
  int64_t scratch_bytes() const { return scratch_bytes_; }

  // Points slot `slot` at `data` (a no-op when it already points there).
  void set(int slot, const void* data);
  void run(void* scratch);

 private:
  dnnl::primitive primitive_;
  std::vector<dnnl::memory> memories_;  // keeps every bound memory alive
  std::vector<dnnl_exec_arg_t> args_;
  std::vector<const void*> slot_data_;
  std::vector<size_t> slot_memory_;  // slot → index into memories_
  dnnl::memory scratch_;
  int64_t scratch_bytes_ = 0;
};

// A kernel whose primitive reads input 0 and writes output 0 and nothing else (eltwise, pooling,
// softmax): derived classes build the primitive, this binds the two buffers and runs it.
class SrcDstKernel : public Kernel {
 public:
  void run(const KernelArgs& args) override;

 protected:
  BoundPrimitive& primitive() { return primitive_; }
  // Records the implementation's name and scratch size and the two run-time slots.
  template <class PrimitiveDesc>
  void bind_src_dst(const PrimitiveDesc& pd, dnnl::primitive primitive,
                    const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
    name_ = impl_name(pd);
    primitive_ = BoundPrimitive(std::move(primitive), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, dst);
  }

 private:
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1;
};

// The eltwise post-ops of an activation run as their own primitives, in place on a tensor of
// `data`'s format, one after the other: for implementations that would apply them as post-ops
// through oneDNN's scalar reference code.
class InPlaceActivation {
 public:
  InPlaceActivation() = default;
  InPlaceActivation(const ops::Activation& activation, const dnnl::memory::desc& data);
  bool empty() const { return steps_.empty(); }
  // "eltwise_relu:jit:avx512_core" for each step, joined by '+'.
  const std::string& name() const { return name_; }
  int64_t scratch_bytes() const { return scratch_bytes_; }
  void run(void* data, void* scratch);

 private:
  struct Step {
    BoundPrimitive primitive;
    int src_slot = -1, dst_slot = -1;
  };
  std::vector<Step> steps_;
  std::string name_;
  int64_t scratch_bytes_ = 0;
};

// Binds the constant weights (input 1, reordered once from `w_plain` into `packed`) and bias
// (input 2 when present, read in place) of a convolution-like primitive. The run reads the packed
// copy, so the plain weights' pages (a view of the model file) are released. Returns the bias, to
// be kept alive beside the primitive (nullptr without one).
std::shared_ptr<const Tensor> bind_weights_and_bias(BoundPrimitive& primitive, const NodeRequest& r,
                                                    const dnnl::memory::desc& w_plain,
                                                    const dnnl::memory::desc& packed);

// Copies `src` (plain, e.g. a constant weight) into a new memory of `desc`, reordering once.
dnnl::memory reorder_to(const void* src, const dnnl::memory::desc& plain_desc,
                        const dnnl::memory::desc& desc);

}  // namespace strata::kernels::onednn
