// Add, Sub, Mul, Div (and Sum of two inputs) of float32 with numpy broadcasting along any axes,
// for the broadcasts oneDNN's binary primitive takes only with its reference implementation
// (onednn_binary turns those down at prepare): Swin's shifted-window attention adds a mask of
// [1, windows, 1, 49, 49] to scores of [1, windows, heads, 49, 49], which oneDNN 2.6's `ref:any`
// ran at 54 ns a value (25 ms a call). Axes along which both operands step alike are merged; the
// innermost merged axis is a row each operand reads whole or as one repeated value (loops the
// compiler vectorises);
// the rows are shared among the threads. Plain layouts.
#include <omp.h>

#include <algorithm>

#include "kernels/kernel.h"
#include "kernels/omp_threads.h"

namespace strata::kernels::cpu {

namespace {

enum class Arithmetic { kAdd, kSub, kMul, kDiv };

bool broadcast_binary_serves(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "Add" || node.op_type == "Sub" || node.op_type == "Mul" ||
          node.op_type == "Div" || (node.op_type == "Sum" && node.inputs.size() == 2));
}

Verdict broadcast_binary_supports(const NodeRequest& r) {
  if (r.node.inputs.size() != 2 || !r.has_input(0) || !r.has_input(1))
    return Verdict::no("needs two operands");
  for (size_t i = 0; i < 2; ++i)
    if (r.input(i).dtype != DType::kF32) return Verdict::no("f32 operands only");
  if (r.output(0).dtype != DType::kF32) return Verdict::no("f32 output only");
  if (r.output(0).shape.rank() > 8) return Verdict::no("more than 8 axes");
  return Verdict::yes("numpy broadcasting along any axes, rows vectorised");
}

// out[i] = a[i·SA] ∘ b[i·SB] for i < n: SA and SB are 1 (a row) or 0 (one repeated value).
template <Arithmetic OP, int SA, int SB>
void row(const float* __restrict a, const float* __restrict b, float* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = a[i * SA], y = b[i * SB];
    if constexpr (OP == Arithmetic::kAdd) out[i] = x + y;
    if constexpr (OP == Arithmetic::kSub) out[i] = x - y;
    if constexpr (OP == Arithmetic::kMul) out[i] = x * y;
    if constexpr (OP == Arithmetic::kDiv) out[i] = x / y;
  }
}

using Row = void (*)(const float*, const float*, float*, int64_t);

template <Arithmetic OP>
Row row_for(int64_t sa, int64_t sb) {
  if (sa && sb) return &row<OP, 1, 1>;
  if (sa) return &row<OP, 1, 0>;
  if (sb) return &row<OP, 0, 1>;
  return &row<OP, 0, 0>;
}

Row row_for(Arithmetic op, int64_t sa, int64_t sb) {
  switch (op) {
    case Arithmetic::kAdd: return row_for<Arithmetic::kAdd>(sa, sb);
    case Arithmetic::kSub: return row_for<Arithmetic::kSub>(sa, sb);
    case Arithmetic::kMul: return row_for<Arithmetic::kMul>(sa, sb);
    case Arithmetic::kDiv: break;
  }
  return row_for<Arithmetic::kDiv>(sa, sb);
}

// An operand's strides along the output's axes: 0 where it broadcasts (numpy: shapes aligned
// from the right, missing leading axes broadcast).
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& shape,
                                       const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t from_end = shape.size() - 1 - i, d = out.size() - 1 - i;
    if (shape[from_end] != 1) strides[d] = stride;
    stride *= shape[from_end];
  }
  return strides;
}

class BroadcastBinaryKernel final : public Kernel {
 public:
  explicit BroadcastBinaryKernel(const NodeRequest& r) {
    name_ = "cpu:broadcast_binary";
    const std::string& type = r.node.op_type;
    const Arithmetic op = type == "Sub"   ? Arithmetic::kSub
                          : type == "Mul" ? Arithmetic::kMul
                          : type == "Div" ? Arithmetic::kDiv
                                          : Arithmetic::kAdd;
    const std::vector<int64_t> out = r.output(0).shape.values();
    const std::vector<int64_t> sa = broadcast_strides(r.input(0).shape.values(), out);
    const std::vector<int64_t> sb = broadcast_strides(r.input(1).shape.values(), out);
    // Merge each axis into the next inner one where both operands step through them as one.
    for (size_t d = 0; d < out.size(); ++d) {
      if (out[d] == 1) continue;
      if (!dims_.empty() && sa_.back() == sa[d] * out[d] && sb_.back() == sb[d] * out[d]) {
        dims_.back() *= out[d];
        sa_.back() = sa[d];
        sb_.back() = sb[d];
      } else {
        dims_.push_back(out[d]);
        sa_.push_back(sa[d]);
        sb_.push_back(sb[d]);
      }
    }
    if (dims_.empty()) dims_ = {1}, sa_ = {0}, sb_ = {0};
    length_ = dims_.back();
    rows_ = 1;
    for (size_t d = 0; d + 1 < dims_.size(); ++d) rows_ *= dims_[d];
    row_ = row_for(op, sa_.back(), sb_.back());
    threads_ = rows_ > 1 ? std::min<int>(pass_threads(rows_ * length_, r.threads), int(rows_)) : 1;
    input_layouts_ = {Layout::kPlain, Layout::kPlain};
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    if (rows_ == 0 || length_ == 0) return;  // an empty output
    const float* a = args.inputs[0]->data<float>();
    const float* b = args.inputs[1]->data<float>();
    float* out = args.outputs[0]->data<float>();
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
    {
      const int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
      run_rows(a, b, out, rows_ * t / team, rows_ * (t + 1) / team);
    }
  }

 private:
  // Rows [begin, end): the outer axes' index kept as an odometer, the operands' offsets with it.
  void run_rows(const float* a, const float* b, float* out, int64_t begin, int64_t end) const {
    const size_t outer = dims_.size() - 1;
    int64_t index[8] = {0};
    int64_t offset_a = 0, offset_b = 0;
    for (size_t d = outer, rest = size_t(begin); d-- > 0;) {
      index[d] = int64_t(rest) % dims_[d];
      rest /= size_t(dims_[d]);
      offset_a += index[d] * sa_[d];
      offset_b += index[d] * sb_[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      row_(a + offset_a, b + offset_b, out + i * length_, length_);
      for (size_t d = outer; d-- > 0;) {  // the next row
        offset_a += sa_[d];
        offset_b += sb_[d];
        if (++index[d] < dims_[d]) break;
        offset_a -= sa_[d] * dims_[d];
        offset_b -= sb_[d] * dims_[d];
        index[d] = 0;
      }
    }
  }

  std::vector<int64_t> dims_, sa_, sb_;  // merged axes; the operands' strides along them
  int64_t length_ = 1, rows_ = 1;
  Row row_ = nullptr;
  int threads_ = 1;
};

std::unique_ptr<Kernel> broadcast_binary_prepare(const NodeRequest& r) {
  return std::make_unique<BroadcastBinaryKernel>(r);
}

}  // namespace

KernelFamily broadcast_binary_family() {
  return {"cpu_broadcast_binary",    false, &broadcast_binary_serves, &broadcast_binary_supports,
          &broadcast_binary_prepare, false};
}

}  // namespace strata::kernels::cpu
