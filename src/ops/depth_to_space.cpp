// DepthToSpace (modes DCR and CRD, opset 11) and SpaceToDepth: move blocksize x blocksize blocks
// between the channel axis and the spatial axes of an NCHW tensor. Each is a reshape to 6-D, a
// transpose and a reshape back, so the kernel is one strided copy.
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class DepthToSpaceOp final : public Op {
 public:
  DepthToSpaceOp(const NodeInfo& node, bool to_space)
      : to_space_(to_space), block_(node.required_int("blocksize")) {
    if (block_ < 1) fail("attribute 'blocksize' must be positive, got {}", block_);
    const std::string mode = to_space ? node.attr_string("mode", "DCR") : "DCR";
    if (mode != "DCR" && mode != "CRD") fail("attribute 'mode' '{}' is not supported", mode);
    crd_ = mode == "CRD";
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    if (in.rank() != 4) fail("input must be 4-D (NCHW), got rank {}", in.rank());
    const Dim b = block_;
    const Dim& c = in[1];
    const Dim& h = in[2];
    const Dim& w = in[3];
    if (to_space_) {
      if (c.is_static() && c.value() % (block_ * block_) != 0)
        fail("channels {} are not divisible by blocksize^2 = {}", c.value(), block_ * block_);
      ctx.set_output(0, ctx.dtype(0), Shape{in[0], floor_div(c, b * b), h * b, w * b});
    } else {
      for (const Dim& d : {h, w})
        if (d.is_static() && d.value() % block_ != 0)
          fail("spatial size {} is not divisible by blocksize {}", d.value(), block_);
      ctx.set_output(0, ctx.dtype(0), Shape{in[0], c * b * b, floor_div(h, b), floor_div(w, b)});
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    const int64_t n = src.dim(0), c = src.dim(1), h = src.dim(2), w = src.dim(3), b = block_;
    std::vector<int64_t> view;  // the input seen as 6-D
    std::vector<int64_t> perm;  // the transpose applied to it
    if (to_space_ && crd_) {
      view = {n, c / (b * b), b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else if (to_space_) {
      view = {n, b, b, c / (b * b), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else {
      view = {n, c, h / b, b, w / b, b};
      perm = {0, 3, 5, 1, 2, 4};
    }
    const std::vector<int64_t> view_strides = row_major_strides(view);
    std::vector<int64_t> shape, strides;
    for (int64_t axis : perm) {
      shape.push_back(view[size_t(axis)]);
      strides.push_back(view_strides[size_t(axis)]);
    }
    if (shape[0] * shape[1] * shape[2] * shape[3] * shape[4] * shape[5] != dst.numel())
      fail("input shape {} changed between infer and run", src.shape_str());
    strided_copy(src.raw(), 0, strides, shape, dst.raw(), dtype_size(src.dtype()));
  }

 private:
  bool to_space_;
  int64_t block_;
  bool crd_ = false;
};

}  // namespace

std::unique_ptr<Op> make_depth_to_space(const NodeInfo& node) {
  return std::make_unique<DepthToSpaceOp>(node, node.op_type() == "DepthToSpace");
}

}  // namespace strata::ops
