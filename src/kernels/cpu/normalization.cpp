// RMSNormalization and GroupNormalization, f32: each row (RMS: the axes from `axis` on; group
// norm: one group's channels and positions) is summed, then scaled, vectorised with AVX-512 where
// the CPU has it (src/kernels/cpu/row_math.h), rows split among threads when there are enough
// values. Statistics: 16 float lanes per row or channel, added up in double; the group's variance
// from deviations to its mean (two passes, no cancellation).
#include <fmt/format.h>
#include <omp.h>

#include <cmath>

#include "kernels/cpu/row_math.h"
#include "kernels/kernel.h"
#include "ops/group_norm.h"
#include "ops/layer_norm.h"

namespace strata::kernels::cpu {

namespace {

// Below this many values in all, a second thread costs about what it saves (SiLU measured 2^19
// values per thread for one pass; the normalisations read every value two or three times).
constexpr int64_t kNormalizationShareValues = int64_t(1) << 18;

Verdict all_f32(const NodeRequest& r) {
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (r.has_input(i) && r.input(i).dtype != DType::kF32)
      return Verdict::no("runs f32 only; input " + std::to_string(i) + " is " +
                         std::string(dtype_name(r.input(i).dtype)));
  return Verdict::yes("");
}

// --- RMSNormalization ---

bool rms_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "RMSNormalization";
}

Verdict rms_supports(const NodeRequest& r) {
  const auto a = ops::rms_norm_attributes(r.op);
  if (!a) return Verdict::no("not an RMSNormalization op");
  if (!r.has_input(0) || !r.has_input(1)) return Verdict::no("needs X and scale");
  const Verdict types = all_f32(r);
  if (!types.ok) return types;
  if (a->stash != DType::kF32)
    return Verdict::no(fmt::format("stash_type {} asks for statistics this kernel does not keep",
                                   dtype_name(a->stash)));
  const std::vector<int64_t> shape = r.input(0).shape.values();
  const int64_t rank = int64_t(shape.size());
  if (rank == 0) return Verdict::no("a scalar: the reference kernel");  // no axis to index
  const int64_t axis = a->axis < 0 ? a->axis + rank : a->axis;
  int64_t inner = 1;
  for (int64_t d = axis; d < rank; ++d) inner *= shape[size_t(d)];
  const int64_t scale = r.input(1).shape.numel().value();
  if (scale != inner && scale != 1)
    return Verdict::no("scale broadcasts along an axis of the normalised row");
  return Verdict::yes("f32 rows, vectorised");
}

class RmsNormKernel final : public Kernel {
 public:
  explicit RmsNormKernel(const NodeRequest& r) : wide_(has_avx512()) {
    const ops::RmsNormAttributes a = *ops::rms_norm_attributes(r.op);
    name_ = wide_ ? "strata:rms_norm:avx512" : "strata:rms_norm";
    const std::vector<int64_t> shape = r.input(0).shape.values();
    const int64_t rank = int64_t(shape.size());
    const int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? rows_ : inner_) *= shape[size_t(d)];
    one_scale_ = r.input(1).shape.numel().value() == 1 && inner_ != 1;
    epsilon_ = double(a.epsilon);
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
    inplace_input_ = 0;
  }

  void run(const KernelArgs& args) override {
    const float* x = args.inputs[0]->data<float>();
    const float* scale = args.inputs[1]->data<float>();
    float* y = args.outputs[0]->data<float>();
#pragma omp parallel for schedule(static) if (rows_ * inner_ >= kNormalizationShareValues && \
                                              rows_ > 1)
    for (int64_t row = 0; row < rows_; ++row) {
      const float* in = x + row * inner_;
      float* out = y + row * inner_;
      double sum = 0, squares = 0;
      row_sums(wide_, in, inner_, &sum, &squares);
      const float inv_rms = float(1 / std::sqrt(squares / double(inner_) + epsilon_));
      if (one_scale_)
        affine(wide_, in, inv_rms * scale[0], 0.f, out, inner_);
      else
        scale_times(wide_, in, inv_rms, scale, out, inner_);
    }
  }

 private:
  bool wide_;
  bool one_scale_ = false;
  int64_t rows_ = 1, inner_ = 1;
  double epsilon_ = 0;
};

std::unique_ptr<Kernel> rms_prepare(const NodeRequest& r) {
  return std::make_unique<RmsNormKernel>(r);
}

// --- GroupNormalization ---

bool group_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "GroupNormalization";
}

Verdict group_supports(const NodeRequest& r) {
  if (!ops::group_norm_attributes(r.op)) return Verdict::no("not a GroupNormalization op");
  if (!r.has_input(0) || !r.has_input(1) || !r.has_input(2))
    return Verdict::no("needs X, scale and bias");
  const Verdict types = all_f32(r);
  if (!types.ok) return types;
  return Verdict::yes("f32 groups, vectorised");
}

class GroupNormKernel final : public Kernel {
 public:
  explicit GroupNormKernel(const NodeRequest& r) : wide_(has_avx512()) {
    const ops::GroupNormAttributes a = *ops::group_norm_attributes(r.op);
    name_ = wide_ ? "strata:group_norm:avx512" : "strata:group_norm";
    const std::vector<int64_t> shape = r.input(0).shape.values();
    batch_ = shape[0];
    channels_ = shape[1];
    for (size_t d = 2; d < shape.size(); ++d) spatial_ *= shape[d];
    groups_ = a.groups;
    per_group_ = channels_ / groups_;
    per_channel_ = a.per_channel;
    epsilon_ = double(a.epsilon);
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
    inplace_input_ = 0;
  }

  void run(const KernelArgs& args) override {
    const float* x = args.inputs[0]->data<float>();
    const float* scale = args.inputs[1]->data<float>();
    const float* bias = args.inputs[2]->data<float>();
    float* y = args.outputs[0]->data<float>();
    const int64_t tasks = batch_ * groups_;
    const int64_t count = per_group_ * spatial_;
#pragma omp parallel for schedule(static) if (tasks * count >= kNormalizationShareValues && \
                                              tasks > 1)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t g = task % groups_;
      const int64_t begin = (task / groups_ * channels_ + g * per_group_) * spatial_;
      const float* in = x + begin;
      double total = 0;
      for (int64_t c = 0; c < per_group_; ++c) {
        double sum = 0, squares = 0;
        row_sums(wide_, in + c * spatial_, spatial_, &sum, &squares);
        total += sum;
      }
      const double mean = count > 0 ? total / double(count) : 0;
      double deviations = 0;
      for (int64_t c = 0; c < per_group_; ++c)
        deviations += squared_deviations(wide_, in + c * spatial_, spatial_, float(mean));
      const double inv = 1 / std::sqrt((count > 0 ? deviations / double(count) : 0) + epsilon_);
      for (int64_t c = 0; c < per_group_; ++c) {
        const int64_t p = per_channel_ ? g * per_group_ + c : g;
        const double a = inv * double(scale[p]);
        affine(wide_, in + c * spatial_, float(a), float(double(bias[p]) - mean * a),
               y + begin + c * spatial_, spatial_);
      }
    }
  }

 private:
  bool wide_;
  bool per_channel_ = true;
  int64_t batch_ = 1, channels_ = 1, spatial_ = 1, groups_ = 1, per_group_ = 1;
  double epsilon_ = 0;
};

std::unique_ptr<Kernel> group_prepare(const NodeRequest& r) {
  return std::make_unique<GroupNormKernel>(r);
}

}  // namespace

KernelFamily rms_norm_family() {
  return {"cpu_rms_norm", false, &rms_serves, &rms_supports, &rms_prepare, false};
}

KernelFamily group_norm_family() {
  return {"cpu_group_norm", false, &group_serves, &group_supports, &group_prepare, false};
}

}  // namespace strata::kernels::cpu
