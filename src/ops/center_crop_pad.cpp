// CenterCropPad (opset 18): each axis in `axes` (all when absent) is cropped or zero-padded to the
// size given by input 'shape', keeping the centre: a crop starts at (dim - size) / 2, a pad puts
// (size - dim) / 2 zeros before (both rounded down).
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class CenterCropPadOp final : public Op {
 public:
  explicit CenterCropPadOp(const NodeInfo& node) : axes_(node.attr_ints("axes")) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const std::vector<int64_t> sizes = ctx.ints(1);
    const std::vector<int64_t> axes = resolved_axes(in.rank());
    if (sizes.size() != axes.size())
      fail("input 'shape' has {} entries for {} axes", sizes.size(), axes.size());
    Shape out = in;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (sizes[i] < 0) fail("input 'shape' has a negative entry {}", sizes[i]);
      out[axes[i]] = sizes[i];
    }
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  // The output is zero, then the overlap of input and output (each axis: the input from
  // max(0, (dim - size) / 2), the output from max(0, (size - dim) / 2)) is copied across.
  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    std::memset(dst.raw(), 0, dst.nbytes());
    const std::vector<int64_t> src_strides = row_major_strides(src.shape());
    const std::vector<int64_t> dst_strides = row_major_strides(dst.shape());
    std::vector<int64_t> extent(size_t(src.rank()));
    int64_t src_offset = 0, dst_offset = 0;
    for (int64_t d = 0; d < src.rank(); ++d) {
      const int64_t in = src.dim(d), out = dst.dim(d);
      extent[size_t(d)] = std::min(in, out);
      if (in > out) src_offset += (in - out) / 2 * src_strides[size_t(d)];
      if (out > in) dst_offset += (out - in) / 2 * dst_strides[size_t(d)];
    }
    const size_t bytes = dtype_size(src.dtype());
    int64_t count = 1;
    for (int64_t e : extent) count *= e;
    if (count == 0) return;
    const auto* from = static_cast<const std::byte*>(src.raw());
    auto* to = static_cast<std::byte*>(dst.raw());
    std::vector<int64_t> index(extent.size(), 0);
    for (int64_t n = 0; n < count; ++n) {
      std::memcpy(to + size_t(dst_offset) * bytes, from + size_t(src_offset) * bytes, bytes);
      for (size_t d = extent.size(); d-- > 0;) {  // the next index, odometer order
        src_offset += src_strides[d];
        dst_offset += dst_strides[d];
        if (++index[d] < extent[d]) break;
        src_offset -= src_strides[d] * extent[d];
        dst_offset -= dst_strides[d] * extent[d];
        index[d] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> resolved_axes(int64_t rank) const {
    if (axes_.empty()) {
      std::vector<int64_t> all(static_cast<size_t>(rank));
      for (int64_t d = 0; d < rank; ++d) all[size_t(d)] = d;
      return all;
    }
    return normalize_axes(axes_, rank, "axes value");
  }

  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<Op> make_center_crop_pad(const NodeInfo& node) {
  return std::make_unique<CenterCropPadOp>(node);
}

}  // namespace strata::ops
