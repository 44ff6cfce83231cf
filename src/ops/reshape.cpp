// Reshape: the same elements under the shape given by input 1, where 0 copies the input's dim
// (unless allowzero=1, opset 14) and one -1 takes whatever size the element count implies.
#include <algorithm>

#include "core/checked.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

// Splits a shape's element count into the product of its static dims and its symbolic dims.
struct Factors {
  int64_t known = 1;
  std::vector<std::string> symbols;
  explicit Factors(std::span<const Dim> dims) {
    for (const Dim& d : dims) {
      if (d.is_static()) {
        known = checked_mul(known, d.value());
      } else {
        symbols.push_back(d.symbol());
      }
    }
  }
};

// The size of the -1 dim: numel(in) / product(other output dims). Symbols that appear on both
// sides cancel (Reshape [N,3,4] -> [N,-1] gives 12); NotStatic when the quotient stays unknown.
Dim inferred_dim(const Shape& in, const Shape& others) {
  Factors num(in.dims());
  Factors den(others.dims());
  for (const std::string& s : den.symbols) {
    auto it = std::find(num.symbols.begin(), num.symbols.end(), s);
    if (it == num.symbols.end()) throw NotStatic{};
    num.symbols.erase(it);
  }
  if (den.known == 0) {
    if (num.known == 0) fail("cannot infer the -1 dim of a shape with a 0 dim and no elements");
    fail("cannot reshape {} elements into a shape with a 0 dim", in.str());
  }
  if (num.known % den.known != 0) {
    if (num.symbols.empty()) fail("cannot reshape {} into a shape with -1", in.str());
    throw NotStatic{};  // the symbols' values decide whether it divides
  }
  Dim result = num.known / den.known;
  for (const std::string& s : num.symbols) result = result * Dim::symbol(s);
  return result;
}

class ReshapeOp final : public Op {
 public:
  explicit ReshapeOp(const NodeInfo& node) : allow_zero_(node.attr_int("allowzero", 0) != 0) {
    if (node.opset() < 5) fail("Reshape before opset 5 (shape as an attribute) is not supported");
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const std::vector<int64_t> requested = ctx.ints(1);
    if (ctx.shape(1).rank() != 1) fail("input 'shape' must be one-dimensional");
    Shape dims;
    dims.reserve(requested.size());
    int64_t infer_at = -1;
    for (size_t i = 0; i < requested.size(); ++i) {
      const int64_t r = requested[i];
      if (r == -1) {
        if (infer_at >= 0) fail("input 'shape' has more than one -1");
        infer_at = int64_t(i);
        continue;
      }
      if (r < -1) fail("input 'shape' has invalid dim {}", r);
      if (r == 0 && !allow_zero_) {
        if (int64_t(i) >= in.rank())
          fail("input 'shape' has 0 at position {}, beyond the input's rank {}", i, in.rank());
        dims.push_back(in[int64_t(i)]);
      } else {
        dims.push_back(r);
      }
    }
    if (infer_at >= 0) {
      dims.insert(size_t(infer_at), inferred_dim(in, dims));
    } else {
      Dim numel = 1;  // of the target, without copying it into a Shape
      for (const Dim& d : dims) numel = numel * d;
      const Dim in_numel = in.numel();
      if (numel.is_static() && in_numel.is_static() && numel.value() != in_numel.value())
        fail("cannot reshape {} into {}", in.str(), dims.str());
    }
    ctx.set_output(0, ctx.dtype(0), std::move(dims));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override { copy_all_bytes(ctx.input(0), ctx.output(0)); }

 private:
  bool allow_zero_;
};

}  // namespace

std::unique_ptr<Op> make_reshape(const NodeInfo& node) {
  return std::make_unique<ReshapeOp>(node);
}

}  // namespace strata::ops
