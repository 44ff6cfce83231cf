// RotaryEmbedding (opset 23): rotates pairs of each head's first rotary_embedding_dim values (all
// of the head when 0) by the angles whose cosines and sines the caches hold: per pair (x1, x2),
// (cos·x1 − sin·x2, sin·x1 + cos·x2). Pairs are the two halves of the rotated part, or neighbours
// with interleaved=1. X is [B, H, S, D], or [B, S, H·D] with num_heads. The caches are
// [max_position, R/2] read at position_ids [B, S], or [B, S, R/2] without position_ids.
// Cost: 6 FLOPs per rotated pair (4 multiplies, 2 adds); bytes as data movement.
#include "ops/op.h"

namespace strata::ops {

namespace {

class RotaryEmbeddingOp final : public Op {
 public:
  explicit RotaryEmbeddingOp(const NodeInfo& node)
      : interleaved_(node.attr_int("interleaved", 0) != 0),
        rotary_dim_(node.attr_int("rotary_embedding_dim", 0)),
        num_heads_(node.attr_int("num_heads", 0)) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("X has dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() != 3 && x.shape.rank() != 4)
      fail("X must be 3-D or 4-D, got {}", x.shape.str());
    if (x.shape.rank() == 3 && num_heads_ <= 0) fail("a 3-D X needs attribute 'num_heads'");
    if (!ctx.has_input(1) || !ctx.has_input(2))
      fail("inputs 'cos_cache' and 'sin_cache' are required");
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    c.flops = 3 * ctx.numel_out(0);  // at most: 6 per pair of values
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const bool four_d = x.rank() == 4;
    const int64_t B = x.dim(0), S = four_d ? x.dim(2) : x.dim(1);
    const int64_t H = four_d ? x.dim(1) : num_heads_;
    const int64_t hidden = four_d ? x.dim(3) : x.dim(2);
    if (!four_d && hidden % H) fail("hidden size {} does not divide into {} heads", hidden, H);
    const int64_t D = four_d ? hidden : hidden / H;
    const int64_t R = rotary_dim_ > 0 ? rotary_dim_ : D, half = R / 2;
    if (R > D || R % 2)
      fail("rotary_embedding_dim {} must be even and at most the head size {}", R, D);
    const std::vector<double> cos = ctx.input(1).to_double(), sin = ctx.input(2).to_double();
    std::vector<int64_t> positions;
    if (ctx.has_input(3)) positions = ctx.input(3).to_int64();
    if (ctx.has_input(3) && int64_t(positions.size()) != B * S)
      fail("position_ids holds {} values, not one per batch and sequence position ({})",
           positions.size(), B * S);
    const int64_t rows = int64_t(cos.size()) / std::max<int64_t>(half, 1);
    if (int64_t(sin.size()) != int64_t(cos.size()) || rows * half != int64_t(cos.size()))
      fail("cos_cache and sin_cache must both be [..., {}]", half);
    const std::vector<double> in = x.to_double();
    std::vector<double> out = in;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t row = positions.empty() ? b * S + s : positions[size_t(b * S + s)];
        if (row < 0 || row >= rows) fail("position {} is outside the caches' {} rows", row, rows);
        for (int64_t h = 0; h < H; ++h) {
          const int64_t base = four_d ? ((b * H + h) * S + s) * D : ((b * S + s) * H + h) * D;
          for (int64_t i = 0; i < half; ++i) {
            const int64_t first = base + (interleaved_ ? 2 * i : i);
            const int64_t second = base + (interleaved_ ? 2 * i + 1 : i + half);
            const double c = cos[size_t(row * half + i)], n = sin[size_t(row * half + i)];
            const double x1 = in[size_t(first)], x2 = in[size_t(second)];
            out[size_t(first)] = c * x1 - n * x2;
            out[size_t(second)] = n * x1 + c * x2;
          }
        }
      }
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      for (size_t i = 0; i < out.size(); ++i) ctx.output(0).data<T>()[i] = T(float(out[i]));
    });
  }

 private:
  bool interleaved_;
  int64_t rotary_dim_;
  int64_t num_heads_;
};

}  // namespace

std::unique_ptr<Op> make_rotary_embedding(const NodeInfo& node) {
  return std::make_unique<RotaryEmbeddingOp>(node);
}

}  // namespace strata::ops
