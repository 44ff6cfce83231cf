// Gather as row copies: for every index and every outer position, one copy of the contiguous
// slice after `axis` (typed when it is one value). Indices are read while running (they are usually
// token ids) and checked like the reference kernel checks them; nothing is allocated.
#include "ops/gather.h"

#include <cstring>

#include "kernels/kernel.h"
#include "ops/indexing.h"

namespace strata::kernels::cpu {

namespace {

bool gather_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Gather";
}

Verdict gather_supports(const NodeRequest& r) {
  if (!ops::gather_axis(r.op)) return Verdict::no("not a Gather op");
  if (r.node.outputs.size() != 1 || !r.has_input(0) || !r.has_input(1))
    return Verdict::no("needs data and indices");
  if (r.input(0).dtype == DType::kString) return Verdict::no("string tensors are not bytes");
  if (r.input(1).dtype != DType::kI32 && r.input(1).dtype != DType::kI64)
    return Verdict::no("indices are neither int32 nor int64");
  if (r.input(0).shape.rank() == 0) return Verdict::no("scalar data");
  return Verdict::yes("contiguous slices copied row by row");
}

class GatherKernel final : public Kernel {
 public:
  explicit GatherKernel(const NodeRequest& r) {
    name_ = "strata:gather";
    const std::vector<int64_t> data = r.input(0).shape.values();
    const int64_t rank = int64_t(data.size());
    axis_ = *ops::gather_axis(r.op);
    if (axis_ < 0) axis_ += rank;
    axis_dim_ = data[size_t(axis_)];
    for (int64_t d = 0; d < axis_; ++d) outer_ *= data[size_t(d)];
    int64_t inner = 1;
    for (int64_t d = axis_ + 1; d < rank; ++d) inner *= data[size_t(d)];
    row_bytes_ = size_t(inner) * dtype_size(r.input(0).dtype);
    for (int64_t d : r.input(1).shape.values()) indices_ *= d;
    wide_ = r.input(1).dtype == DType::kI64;
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    const auto* from = static_cast<const std::byte*>(args.inputs[0]->raw());
    auto* to = static_cast<std::byte*>(args.outputs[0]->raw());
    const void* indices = args.inputs[1]->raw();
    // Index by index, each resolved once, its slice copied for every outer position: a column
    // (scores[:, k] of a detector's 91 classes, one row_bytes_ value per box) is one strided loop.
    const size_t from_step = size_t(axis_dim_) * row_bytes_,
                 to_step = size_t(indices_) * row_bytes_;
    for (int64_t i = 0; i < indices_; ++i) {
      const int64_t raw =
          wide_ ? static_cast<const int64_t*>(indices)[i] : static_cast<const int32_t*>(indices)[i];
      const int64_t index = ops::resolve_index(raw, axis_dim_, axis_);
      const std::byte* src = from + size_t(index) * row_bytes_;
      std::byte* dst = to + size_t(i) * row_bytes_;
      switch (row_bytes_) {
        case 4: copy_strided<uint32_t>(src, dst, from_step, to_step); break;
        case 8: copy_strided<uint64_t>(src, dst, from_step, to_step); break;
        case 2: copy_strided<uint16_t>(src, dst, from_step, to_step); break;
        case 1: copy_strided<uint8_t>(src, dst, from_step, to_step); break;
        default:
          for (int64_t o = 0; o < outer_; ++o)
            std::memcpy(dst + size_t(o) * to_step, src + size_t(o) * from_step, row_bytes_);
      }
    }
  }

 private:
  // One T per outer position; the steps (in bytes) are multiples of sizeof(T), so aligned.
  template <class T>
  void copy_strided(const std::byte* src, std::byte* dst, size_t from_step, size_t to_step) const {
    const auto* in = reinterpret_cast<const T*>(src);
    auto* out = reinterpret_cast<T*>(dst);
    const size_t in_step = from_step / sizeof(T), out_step = to_step / sizeof(T);
    for (int64_t o = 0; o < outer_; ++o) out[size_t(o) * out_step] = in[size_t(o) * in_step];
  }

  int64_t axis_ = 0, axis_dim_ = 0, outer_ = 1, indices_ = 1;
  size_t row_bytes_ = 0;
  bool wide_ = false;
};

std::unique_ptr<Kernel> gather_prepare(const NodeRequest& r) {
  return std::make_unique<GatherKernel>(r);
}

}  // namespace

KernelFamily gather_family() {
  return {"cpu_gather", false, &gather_serves, &gather_supports, &gather_prepare, false};
}

}  // namespace strata::kernels::cpu
