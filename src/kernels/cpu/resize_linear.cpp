// Resize and Upsample that interpolate (linear and cubic modes, antialiased or not) over the last
// two axes of float32 data, every other axis kept: segmentation heads upsample their class maps
// to the image (torchvision's deeplabv3 and lraspp: [1, 21, 40, 40] → [1, 21, 320, 320],
// bilinear), where the reference kernel took 83 ms. The op gives each axis's taps (ops/resize.h:
// every coordinate transformation, cubic coefficient and antialias is the reference's); per
// output row the kernel first blends the row's input rows with their weights into one row of
// input width (vectorised), then blends along it with each output column's taps; rows of the
// output shared among the threads. Plain layout.
#include <omp.h>

#include <algorithm>

#include "kernels/cpu/resize_query.h"
#include "kernels/kernel.h"
#include "kernels/omp_threads.h"

namespace strata::kernels::cpu {

namespace {

bool resize_linear_serves(const ir::Node& node) {
  return node.domain.empty() && (node.op_type == "Resize" || node.op_type == "Upsample");
}

// Whether an axis keeps every coordinate: one tap of weight 1 on itself.
bool keeps(const ops::ResizeTaps& t) {
  if (t.count != 1) return false;
  for (size_t x = 0; x < t.index.size(); ++x)
    if (t.index[x] != int64_t(x) || t.weight[x] != 1) return false;
  return true;
}

std::optional<std::vector<ops::ResizeTaps>> taps_of(const NodeRequest& r) {
  if (!r.has_input(0) || r.node.outputs.size() != 1) return std::nullopt;
  try {
    return query_resize(r, ops::resize_taps);
  } catch (const std::exception&) {
    return std::nullopt;  // the reference kernel names the node and the problem
  }
}

Verdict resize_linear_supports(const NodeRequest& r) {
  if (r.input(0).dtype != DType::kF32 || r.output(0).dtype != DType::kF32)
    return Verdict::no("f32 only");
  if (r.output(0).shape.rank() < 2) return Verdict::no("fewer than 2 axes");
  const std::optional<std::vector<ops::ResizeTaps>> taps = taps_of(r);
  if (!taps)
    return Verdict::no(
        "extrapolated points (tf_crop_and_resize) or scales known only while running");
  for (size_t d = 0; d + 2 < taps->size(); ++d)
    if (!keeps((*taps)[d])) return Verdict::no("an axis before the last two is resized");
  return Verdict::yes("interpolation along the last two axes with the op's taps");
}

class ResizeLinearKernel final : public Kernel {
 public:
  explicit ResizeLinearKernel(const NodeRequest& r) {
    name_ = "cpu:resize_interpolate";
    std::vector<ops::ResizeTaps> taps = *taps_of(r);
    rows_ = std::move(taps[taps.size() - 2]);
    columns_ = std::move(taps.back());
    for (double& w : rows_.weight) row_weight_.push_back(float(w));
    for (double& w : columns_.weight) column_weight_.push_back(float(w));
    const std::vector<int64_t> in = r.input(0).shape.values(), out = r.output(0).shape.values();
    in_height_ = in[in.size() - 2];
    in_width_ = in.back();
    out_height_ = out[out.size() - 2];
    out_width_ = out.back();
    planes_ = 1;
    for (size_t d = 0; d + 2 < out.size(); ++d) planes_ *= out[d];
    threads_ = pass_threads(planes_ * out_height_ * (out_width_ + in_width_), r.threads);
    scratch_bytes_ = scratch_aligned(int64_t(sizeof(float)) * in_width_) * threads_;
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    const float* in = args.inputs[0]->data<float>();
    float* out = args.outputs[0]->data<float>();
    const int64_t rows = planes_ * out_height_;
    const int64_t stride = scratch_aligned(int64_t(sizeof(float)) * in_width_);
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
    {
      const int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
      float* blended = reinterpret_cast<float*>(static_cast<char*>(args.scratch) + t * stride);
      for (int64_t row = rows * t / team; row < rows * (t + 1) / team; ++row)
        output_row(in, row / out_height_, row % out_height_, blended, out + row * out_width_);
    }
  }

 private:
  void output_row(const float* in, int64_t plane, int64_t y, float* blended, float* out) const {
    const float* source = in + plane * in_height_ * in_width_;
    std::fill(blended, blended + in_width_, 0.0f);
    for (int64_t k = 0; k < rows_.count; ++k) {
      const size_t tap = size_t(y * rows_.count + k);
      const float w = row_weight_[tap];
      if (w == 0) continue;
      const float* __restrict line = source + rows_.index[tap] * in_width_;
      float* __restrict into = blended;
      for (int64_t x = 0; x < in_width_; ++x) into[x] += w * line[x];
    }
    for (int64_t x = 0; x < out_width_; ++x) {
      float sum = 0;
      for (int64_t k = 0; k < columns_.count; ++k) {
        const size_t tap = size_t(x * columns_.count + k);
        sum += column_weight_[tap] * blended[columns_.index[tap]];
      }
      out[x] = sum;
    }
  }

  ops::ResizeTaps rows_, columns_;
  std::vector<float> row_weight_, column_weight_;
  int64_t planes_ = 1, in_height_ = 0, in_width_ = 0, out_height_ = 0, out_width_ = 0;
  int threads_ = 1;
};

std::unique_ptr<Kernel> resize_linear_prepare(const NodeRequest& r) {
  return std::make_unique<ResizeLinearKernel>(r);
}

}  // namespace

KernelFamily resize_linear_family() {
  return {"cpu_resize_linear",    false, &resize_linear_serves, &resize_linear_supports,
          &resize_linear_prepare, false};
}

}  // namespace strata::kernels::cpu
