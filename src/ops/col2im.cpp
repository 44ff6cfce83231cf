// Col2Im (opset 18): the inverse of im2col. input [N, C · ∏block, L] holds, for each of the L
// sliding-block positions (row-major over the position grid), the block's C · ∏block values;
// each is added into output [N, C, image_shape...] at position · stride + tap · dilation - pad.
// image_shape and block_shape are 1-D integer inputs; dilations, pads and strides attributes.
// Cost: 1 FLOP (an add) per input element.
#include "core/checked.h"
#include "ops/conv_geometry.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

class Col2ImOp final : public Op {
 public:
  explicit Col2ImOp(const NodeInfo& node) : attrs_(node) {
    if (node.has_attr("auto_pad") || node.has_attr("kernel_shape"))
      fail("Col2Im takes its block shape from the input 'block_shape', not attributes");
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype) && !is_integer(x.dtype))
      fail("does not support dtype {}", dtype_name(x.dtype));
    const std::vector<int64_t> image = ctx.ints(1), block = ctx.ints(2);
    const Geometry g = geometry(image, block);
    if (x.shape.rank() != 3) fail("input must be [N, C * block size, L], got {}", x.shape.str());
    const Dim rows = x.shape[1];
    if (rows.is_static() && rows.value() % g.block_size != 0)
      fail("input dim 1 ({}) is not a multiple of the block size {}", rows.value(), g.block_size);
    if (x.shape[2].is_static() && x.shape[2].value() != g.positions)
      fail("input dim 2 ({}) must be the number of block positions {}", x.shape[2].value(),
           g.positions);
    Shape out{x.shape[0], rows.is_static() ? Dim(rows.value() / g.block_size) : rows};
    for (int64_t d : image) out.push_back(d);
    ctx.set_output(0, x.dtype, out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    c.flops = ctx.numel_in(0);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> image = ctx.input(1).to_int64();
    const Geometry g = geometry(image, ctx.input(2).to_int64());
    const int64_t batch = x.dim(0), channels = x.dim(1) / g.block_size;
    const int64_t image_size = product(image);
    const std::vector<std::vector<MappedRow>> taps = map_taps(g.window, g.grid, image);
    const int64_t step = g.window.strides.back();
    Tensor& y = ctx.output(0);
    visit_numeric(x.dtype(), [&]<class T>(Type<T>) {
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      std::vector<acc_t<T>> acc(static_cast<size_t>(image_size));
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t c = 0; c < channels; ++c) {
          std::fill(acc.begin(), acc.end(), acc_t<T>(0));
          for (size_t k = 0; k < taps.size(); ++k) {
            const T* row = src + ((n * channels + c) * g.block_size + int64_t(k)) * g.positions;
            for (const MappedRow& r : taps[k])
              for (int64_t i = 0; i < r.count; ++i)
                acc[size_t(r.q + i * step)] += to_acc<T>(row[r.p + i]);
          }
          T* plane = dst + (n * channels + c) * image_size;
          for (int64_t i = 0; i < image_size; ++i) plane[i] = from_acc<T>(acc[size_t(i)]);
        }
    });
  }

 private:
  struct Geometry {
    Window window;
    std::vector<int64_t> grid;  // block positions per axis
    int64_t block_size = 1, positions = 1;
  };

  Geometry geometry(const std::vector<int64_t>& image, const std::vector<int64_t>& block) const {
    if (image.empty() || image.size() != block.size())
      fail(
          "inputs 'image_shape' ({} values) and 'block_shape' ({}) must have one value per "
          "spatial axis",
          image.size(), block.size());
    Geometry g;
    g.window = attrs_.resolve(image.size(), block);
    for (size_t d = 0; d < image.size(); ++d) {
      if (image[d] < 1) fail("image_shape values must be positive, got {}", image[d]);
      const int64_t out = window_output_dim(g.window, d, Dim(image[d])).value();
      if (out < 1) fail("block {} does not fit image axis {} of size {}", block[d], d, image[d]);
      g.grid.push_back(out);
      g.block_size = checked_mul(g.block_size, block[d]);  // sizes from the file: checked
      g.positions = checked_mul(g.positions, out);
    }
    return g;
  }

  WindowAttrs attrs_;
};

}  // namespace

std::unique_ptr<Op> make_col2im(const NodeInfo& node) {
  return std::make_unique<Col2ImOp>(node);
}

}  // namespace strata::ops
