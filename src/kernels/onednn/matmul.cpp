// MatMul, FusedMatMul and Gemm through oneDNN's matmul: f32, batched with broadcasting, 1-D
// operands promoted as numpy does, Gemm's transposes read through strides. Constant weights are
// packed once at prepare; the scale (alpha), the bias, the residual and the activation are
// post-ops. Data is plain row-major.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/memory_hint.h"
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "ops/fused_matmul.h"
#include "ops/gemm.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

// Weights smaller than this (elements) are read in place rather than packed.
constexpr int64_t kMinPackedElements = 4096;

// A row-major f32 descriptor of `dims` whose rows are `pad` elements longer than `dims` says.
memory::desc padded_rows(const memory::dims& dims, int64_t pad) {
  memory::dims strides(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= d + 1 == dims.size() ? dims[d] + pad : dims[d];
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

bool matmul_serves(const ir::Node& node) {
  return (node.domain.empty() && (node.op_type == "MatMul" || node.op_type == "Gemm")) ||
         node.op_type == "FusedMatMul";
}

// What the product computes besides A x B, from the op: Y = act(alpha * A x B + beta * C + Z).
struct Product {
  bool trans_a = false, trans_b = false;
  float alpha = 1, beta = 1;
  ops::Activation activation;
  int c_input = -1, z_input = -1;  // addend inputs, -1 when none
};

std::optional<Product> product_of(const NodeRequest& r) {
  Product p;
  if (const std::optional<ops::GemmAttributes> g = ops::gemm_attributes(r.op)) {
    p.trans_a = g->trans_a;
    p.trans_b = g->trans_b;
    p.alpha = g->alpha;
    p.beta = g->beta;
    if (r.has_input(2) && g->beta != 0) p.c_input = 2;
    return p;
  }
  if (const std::optional<ops::FusedMatMulAttributes> f = ops::fused_matmul_attributes(r.op)) {
    p.alpha = f->alpha;
    p.activation = f->activation;
    if (r.has_input(ops::kFusedMatMulBias)) p.c_input = int(ops::kFusedMatMulBias);
    if (r.has_input(ops::kFusedMatMulResidual)) p.z_input = int(ops::kFusedMatMulResidual);
    return p;
  }
  if (r.node.op_type == "MatMul") return p;
  return std::nullopt;
}

int64_t product(const memory::dims& d, size_t from, size_t to) {
  return std::accumulate(d.begin() + long(from), d.begin() + long(to), int64_t(1),
                         std::multiplies<>());
}

Verdict matmul_supports(const NodeRequest& r) {
  const std::optional<Product> p = product_of(r);
  if (!p) return Verdict::no("the op is not a matrix product");
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (r.has_input(i) && r.input(i).dtype != DType::kF32)
      return Verdict::no("oneDNN matmul runs f32 here; input " + std::to_string(i) + " is " +
                         std::string(dtype_name(r.input(i).dtype)));
  if (r.output(0).shape.rank() > 8) return Verdict::no("more than 8 dimensions");
  // oneDNN refuses an empty product ("invalid arguments"); the reference gives the empty result.
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (r.has_input(i) && r.input(i).shape.numel() == Dim(0))
      return Verdict::no("an empty operand: nothing to compute");
  if (r.output(0).shape.numel() == Dim(0))
    return Verdict::no("an empty product: nothing to compute");
  if (p->c_input >= 0 && p->beta != 1 && !r.input(size_t(p->c_input)).value)
    return Verdict::no("Gemm's beta scales a C known only while running");
  dnnl::post_ops probe;
  if (!append_activation(probe, p->activation))
    return Verdict::no("oneDNN has no post-op for the fused activation");
  return Verdict::yes("f32 matrix product");
}

class MatMulKernel final : public Kernel {
 public:
  explicit MatMulKernel(const NodeRequest& r) {
    const Product p = *product_of(r);
    std::vector<int64_t> a = r.input(0).shape.values(), b = r.input(1).shape.values();
    const std::vector<int64_t> y = r.output(0).shape.values();
    // Gemm's operands are 2-D and may be stored transposed; MatMul promotes 1-D operands.
    const int64_t m = p.trans_a ? a[1] : (a.size() == 1 ? 1 : a[a.size() - 2]);
    const int64_t k = p.trans_a ? a[0] : a.back();
    const int64_t n = p.trans_b ? b[0] : (b.size() == 1 ? 1 : b.back());
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    const size_t rank = std::max(a.size(), b.size());
    memory::dims a_dims = padded(a, rank), b_dims = padded(b, rank), y_dims(rank);
    for (size_t d = 0; d + 2 < rank; ++d) y_dims[d] = std::max(a_dims[d], b_dims[d]);
    a_dims[rank - 2] = m;
    a_dims[rank - 1] = k;
    b_dims[rank - 2] = k;
    b_dims[rank - 1] = n;
    y_dims[rank - 2] = m;
    y_dims[rank - 1] = n;

    // Addends as broadcast descriptors of the product's rank.
    auto addend_dims = [&](int input) {
      return padded(r.input(size_t(input)).shape.values(), rank);
    };
    // B shared by every batch (weights): fold A's batches into its rows, a plain 2-D product.
    const bool b_shared = product(b_dims, 0, rank - 2) == 1 && !p.trans_a;
    bool collapse = b_shared && rank > 2;
    for (int input : {p.c_input, p.z_input}) {
      if (input < 0 || !collapse) continue;
      const memory::dims d = addend_dims(input);
      const bool row_vector = product(d, 0, rank - 1) == 1;
      collapse = row_vector || d == y_dims;
    }
    auto fold = [&](const memory::dims& d) {
      return collapse ? memory::dims{product(d, 0, rank - 1), d[rank - 1]} : d;
    };
    if (collapse) {
      a_dims = fold(a_dims);
      y_dims = fold(y_dims);
      b_dims = {k, n};
    }
    const size_t out_rank = y_dims.size();
    auto strided = [&](const memory::dims& dims, bool transposed) {
      memory::dims strides(dims.size());
      int64_t stride = 1;
      for (size_t d = dims.size(); d-- > 0;) {
        strides[d] = stride;
        stride *= dims[d];
      }
      if (transposed) {  // stored [cols, rows]: rows step by 1, columns by the row count
        strides[dims.size() - 1] = dims[dims.size() - 2];
        strides[dims.size() - 2] = 1;
      }
      return memory::desc(dims, memory::data_type::f32, strides);
    };
    const memory::desc src = strided(a_dims, p.trans_a);
    const memory::desc b_plain = strided(b_dims, p.trans_b);
    const memory::desc dst = strided(y_dims, false);
    // Constant weights are packed into the implementation's format, except small ones, read in
    // place: packing pads them to whole blocks (a 3x2 matrix would take 4 KiB).
    const bool b_constant = r.input(1).value != nullptr;
    const bool pack = b_constant && k * n >= kMinPackedElements;
    const memory::desc weights =
        pack ? memory::desc(b_dims, memory::data_type::f32, memory::format_tag::any) : b_plain;

    // C is oneDNN's bias when it is a row of n values added unscaled; otherwise C and Z are
    // addends after the scaled product, in the op's order.
    memory::desc bias_desc;
    std::vector<Addend> addends;
    std::vector<float> scaled_c;  // beta * C for a constant C when beta != 1
    if (p.c_input >= 0) {
      const memory::dims d = fold(addend_dims(p.c_input));
      // oneDNN's optimised matmuls take a bias of one value per column only.
      if (p.alpha == 1 && p.beta == 1 && product(d, 0, out_rank - 1) == 1 && d.back() == n)
        bias_desc = strided(d, false);
      else
        addends.push_back({p.c_input, strided(d, false)});
      if (p.beta != 1) {
        const std::vector<double> c = r.input(size_t(p.c_input)).value->to_double();
        for (double v : c) scaled_c.push_back(float(v * p.beta));
      }
    }
    if (p.z_input >= 0)
      addends.push_back({p.z_input, strided(fold(addend_dims(p.z_input)), false)});

    // The scale is always a post-op of the product; the addends and the activation are too when
    // `fused`, else a second primitive applies them in place on the output.
    auto product_attr = [&](bool fused) {
      dnnl::post_ops post_ops;
      if (p.alpha != 1) post_ops.append_eltwise(1, dnnl::algorithm::eltwise_linear, p.alpha, 0);
      if (fused) {
        for (const Addend& a : addends) post_ops.append_binary(dnnl::algorithm::binary_add, a.desc);
        append_activation(post_ops, p.activation);
      }
      dnnl::primitive_attr attr = user_scratchpad_attr();
      attr.set_post_ops(post_ops);
      return attr;
    };
    auto desc_with = [&](const memory::desc& w) {
      return bias_desc.get_size() > 0 ? dnnl::matmul::desc(src, w, bias_desc, dst)
                                      : dnnl::matmul::desc(src, w, dst);
    };
    dnnl::matmul::desc desc = desc_with(weights);
    dnnl::matmul::primitive_desc pd(desc, product_attr(true), cpu_engine());
    // Without a packed format of its own (oneDNN 2.6's GEMM-based matmul, on CPUs without
    // AVX-512) the weights stay row-major; rows of a multiple of 128 floats then fall on the same
    // cache sets and the product runs 2-3x slower (AMD Zen 3: 128x512x2048 at 24 GFLOP/s instead
    // of 89). The packed copy gets 16 floats of padding per row instead.
    const bool pad_rows =
        pack && n % 128 == 0 && pd.weights_desc() == desc_of(b_dims, Layout::kPlain);
    if (pad_rows) {
      desc = desc_with(padded_rows(b_dims, 16));
      pd = dnnl::matmul::primitive_desc(desc, product_attr(true), cpu_engine());
    }
    // oneDNN 2.6 answers some fusions only with its reference implementation (a [T, T] mask
    // added to [N, heads, T, T] attention scores: 0.2 GFLOP/s); the product alone and the
    // additions as a binary primitive are both optimised, so they run apart.
    const bool has_epilogue = !addends.empty() || p.activation.kind != ops::ActivationKind::kNone;
    bool fused = true;
    std::string rejected;  // the fused implementation, when it was turned down
    if (is_reference(pd) && has_epilogue) {
      dnnl::matmul::primitive_desc apart(desc, product_attr(false), cpu_engine());
      if (!is_reference(apart)) {
        rejected = pd.impl_info_str();
        pd = apart;
        fused = false;
      }
    }
    select_implementation(pd, r.implementation);
    name_ = impl_name(pd);
    primitive_ = BoundPrimitive(dnnl::matmul(pd), pd.scratchpad_desc());
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, dst);
    if (pack) {
      primitive_.add_fixed(DNNL_ARG_WEIGHTS,
                           reorder_to(r.input(1).value->raw(), b_plain, pd.weights_desc()));
      packed_bytes_ = int64_t(pd.weights_desc().get_size());
      // The run reads the packed copy: the plain weights (a view of the model file) need not stay
      // resident.
      release_resident_pages(r.input(1).value->raw(), r.input(1).value->nbytes());
    } else if (b_constant) {
      constants_.push_back(r.input(1).value);
      primitive_.add_fixed(DNNL_ARG_WEIGHTS, memory(b_plain, cpu_engine(),
                                                    const_cast<void*>(constants_.back()->raw())));
    } else {
      weights_slot_ = primitive_.add_slot(DNNL_ARG_WEIGHTS, b_plain);
    }
    if (!scaled_c.empty()) {
      scaled_c_ = std::move(scaled_c);
      scaled_c_input_ = p.c_input;
    }
    if (bias_desc.get_size() > 0) bind_addend(r, primitive_, p.c_input, DNNL_ARG_BIAS, bias_desc);
    if (fused) {
      for (size_t i = 0; i < addends.size(); ++i)
        bind_addend(r, primitive_, addends[i].input,
                    DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(i) + (p.alpha != 1)) | DNNL_ARG_SRC_1,
                    addends[i].desc);
    } else {
      prepare_epilogue(r, addends, p.activation, dst);
      note_ += " (fused, oneDNN offers only " + rejected + ")";
    }
    if (pad_rows)
      note_ += std::string(note_.empty() ? "" : "; ") +
               "the packed weights' rows padded by 16 floats (unpadded rows of 128·k floats "
               "share cache sets)";
    scratch_bytes_ = std::max(primitive_.scratch_bytes(), epilogue_scratch_bytes());
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, args.inputs[0]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    if (weights_slot_ >= 0) primitive_.set(weights_slot_, args.inputs[1]->raw());
    for (const auto& [input, slot] : addend_slots_) primitive_.set(slot, args.inputs[input]->raw());
    primitive_.run(args.scratch);
    if (epilogue_slots_.dst_in >= 0) {
      void* y = args.outputs[0]->raw();
      epilogue_.set(epilogue_slots_.dst_in, y);
      epilogue_.set(epilogue_slots_.dst_out, y);
      for (const auto& [input, slot] : epilogue_slots_.addends)
        epilogue_.set(slot, args.inputs[input]->raw());
      epilogue_.run(args.scratch);
    }
    if (!activation_.empty()) activation_.run(args.outputs[0]->raw(), args.scratch);
  }

 private:
  struct Addend {
    int input;  // C or Z
    memory::desc desc;
  };
  struct EpilogueSlots {
    int dst_in = -1, dst_out = -1;
    std::vector<std::pair<int, int>> addends;  // (input, slot)
  };

  // Binds input `input` of the node to `arg` of `primitive`: constants (and beta * C) once, the
  // others through a slot of this->primitive_ or of the epilogue.
  void bind_addend(const NodeRequest& r, BoundPrimitive& primitive, int input, int arg,
                   const memory::desc& d) {
    const std::shared_ptr<const Tensor>& value = r.input(size_t(input)).value;
    if (input == scaled_c_input_) {
      primitive.add_fixed(arg, memory(d, cpu_engine(), scaled_c_.data()));
    } else if (value) {
      constants_.push_back(value);  // read in place: the constant outlives the session
      primitive.add_fixed(arg, memory(d, cpu_engine(), const_cast<void*>(value->raw())));
    } else {
      auto& slots = &primitive == &primitive_ ? addend_slots_ : epilogue_slots_.addends;
      slots.push_back({input, primitive.add_slot(arg, d)});
    }
  }

  // y = act(y + addends...) in place: a binary primitive adding the first addend, with the
  // others and the activation as its post-ops; or the activation alone.
  void prepare_epilogue(const NodeRequest& r, const std::vector<Addend>& addends,
                        const ops::Activation& activation, const memory::desc& y) {
    if (addends.empty()) {
      activation_ = InPlaceActivation(activation, y);
      note_ = "the product runs alone, then " + activation_.name() + " for the activation";
      return;
    }
    dnnl::post_ops post_ops;
    for (size_t i = 1; i < addends.size(); ++i)
      post_ops.append_binary(dnnl::algorithm::binary_add, addends[i].desc);
    append_activation(post_ops, activation);
    dnnl::primitive_attr attr = user_scratchpad_attr();
    attr.set_post_ops(post_ops);
    const dnnl::binary::desc desc(dnnl::algorithm::binary_add, y, addends[0].desc, y);
    const dnnl::binary::primitive_desc pd(desc, attr, cpu_engine());
    epilogue_ = BoundPrimitive(dnnl::binary(pd), pd.scratchpad_desc());
    note_ = fmt::format("the product runs alone, then binary {} for the addition{}{}",
                        pd.impl_info_str(), addends.size() > 1 ? "s" : "",
                        activation.kind == ops::ActivationKind::kNone ? "" : " and the activation");
    epilogue_slots_.dst_in = epilogue_.add_slot(DNNL_ARG_SRC_0, y);
    epilogue_slots_.dst_out = epilogue_.add_slot(DNNL_ARG_DST, y);
    bind_addend(r, epilogue_, addends[0].input, DNNL_ARG_SRC_1, addends[0].desc);
    for (size_t i = 1; i < addends.size(); ++i)
      bind_addend(r, epilogue_, addends[i].input,
                  DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(i) - 1) | DNNL_ARG_SRC_1, addends[i].desc);
  }

  int64_t epilogue_scratch_bytes() const {
    return std::max(epilogue_.scratch_bytes(), activation_.scratch_bytes());
  }

  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1, weights_slot_ = -1;
  std::vector<std::pair<int, int>> addend_slots_;  // (input, slot)
  // The additions and activation when they run apart from the product (see the constructor).
  BoundPrimitive epilogue_;
  EpilogueSlots epilogue_slots_;
  InPlaceActivation activation_;
  std::vector<std::shared_ptr<const Tensor>> constants_;
  std::vector<float> scaled_c_;
  int scaled_c_input_ = -1;  // the input scaled_c_ stands for
};

std::unique_ptr<Kernel> matmul_prepare(const NodeRequest& r) {
  return std::make_unique<MatMulKernel>(r);
}

}  // namespace

KernelFamily matmul_family() {
  return {"onednn_matmul", false, &matmul_serves, &matmul_supports, &matmul_prepare, true};
}

}  // namespace strata::kernels::onednn
