// Where where every operand is the output's shape, a suffix of it (leading axes broadcast: the
// [T, T] causal mask of masked_fill over [batch·heads, T, T] scores) or one value: blocks of the
// smallest such suffix, each operand read at a stride of 1 (or 0 for one value). Any dtype of 1,
// 2, 4 or 8 bytes. Other broadcasts stay with the reference kernel.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

bool where_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Where";
}

// How many elements an operand of `shape` repeats with against `out`: its own count when it is
// the output's trailing axes (leading ones dropped) or one value; 0 when it broadcasts otherwise.
int64_t period(const std::vector<int64_t>& shape, const std::vector<int64_t>& out) {
  size_t first = 0;
  while (first < shape.size() && shape[first] == 1) ++first;
  const size_t kept = shape.size() - first;
  if (kept > out.size()) return 0;
  int64_t count = 1;
  for (size_t d = 0; d < kept; ++d) {
    if (shape[first + d] != out[out.size() - kept + d]) return 0;
    count *= shape[first + d];
  }
  return count;
}

Verdict where_supports(const NodeRequest& r) {
  if (r.node.inputs.size() != 3 || !r.has_input(0) || !r.has_input(1) || !r.has_input(2))
    return Verdict::no("needs a condition and two values");
  const size_t bytes = dtype_size(r.input(1).dtype);
  if (r.input(1).dtype == DType::kString || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
    return Verdict::no("values of " + std::string(dtype_name(r.input(1).dtype)));
  const std::vector<int64_t> out = r.output(0).shape.values();
  for (size_t i = 0; i < 3; ++i)
    if (period(r.input(i).shape.values(), out) == 0)
      return Verdict::no("input " + std::to_string(i) + " broadcasts along an inner axis");
  return Verdict::yes("blocks of the operands' common period");
}

class WhereKernel final : public Kernel {
 public:
  explicit WhereKernel(const NodeRequest& r) : bytes_(dtype_size(r.input(1).dtype)) {
    name_ = "strata:where";
    const std::vector<int64_t> out = r.output(0).shape.values();
    total_ = 1;
    for (int64_t d : out) total_ *= d;
    block_ = total_;
    for (size_t i = 0; i < 3; ++i) {
      periods_[i] = period(r.input(i).shape.values(), out);
      if (periods_[i] > 1) block_ = std::min(block_, periods_[i]);
    }
    input_layouts_.assign(3, Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    switch (bytes_) {
      case 1: select<uint8_t>(args); break;
      case 2: select<uint16_t>(args); break;
      case 4: select<uint32_t>(args); break;
      default: select<uint64_t>(args); break;
    }
  }

 private:
  template <class T>
  void select(const KernelArgs& args) const {
    const bool* cond = args.inputs[0]->data<bool>();
    const T* x = static_cast<const T*>(args.inputs[1]->raw());
    const T* y = static_cast<const T*>(args.inputs[2]->raw());
    T* dst = static_cast<T*>(args.outputs[0]->raw());
    const int64_t blocks = block_ > 0 ? total_ / block_ : 0;
    const int64_t step[3] = {periods_[0] > 1, periods_[1] > 1, periods_[2] > 1};
#pragma omp parallel for schedule(static) if (total_ >= kShareElements)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t start = b * block_;
      const bool* c = cond + (step[0] ? start % periods_[0] : 0);
      const T* a = x + (step[1] ? start % periods_[1] : 0);
      const T* e = y + (step[2] ? start % periods_[2] : 0);
      T* o = dst + start;
      for (int64_t j = 0; j < block_; ++j) o[j] = c[j * step[0]] ? a[j * step[1]] : e[j * step[2]];
    }
  }

  static constexpr int64_t kShareElements = int64_t(1) << 20;
  size_t bytes_;
  int64_t total_ = 0, block_ = 0;
  int64_t periods_[3] = {};
};

std::unique_ptr<Kernel> where_prepare(const NodeRequest& r) {
  return std::make_unique<WhereKernel>(r);
}

}  // namespace

KernelFamily where_family() {
  return {"cpu_where", false, &where_serves, &where_supports, &where_prepare, false};
}

}  // namespace strata::kernels::cpu
