// Pad: grows (or, with negative pads, crops) each axis. Modes: constant, reflect, edge, and wrap
// (opset 19). pads and the constant value are attributes before opset 11 and inputs from 11;
// opset 18 adds an optional axes input that says which axes the pads apply to.
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// One axis: negative pads first crop the input (as the spec's reference does), then the kept
// range gets `before` and `after` new positions.
struct AxisPad {
  int64_t crop_begin = 0;  // first input index kept
  int64_t kept = 0;        // how many input indices are kept
  int64_t before = 0;
  int64_t after = 0;
  int64_t out_dim() const { return before + kept + after; }
};

AxisPad axis_pad(int64_t dim, int64_t pad_begin, int64_t pad_end, PadMode mode) {
  AxisPad p;
  p.crop_begin = std::max<int64_t>(0, -pad_begin);
  p.kept = dim - p.crop_begin - std::max<int64_t>(0, -pad_end);
  if (p.kept < 0) fail("pads {} and {} crop more than the axis size {}", pad_begin, pad_end, dim);
  p.before = std::max<int64_t>(0, pad_begin);
  p.after = std::max<int64_t>(0, pad_end);
  if (p.kept == 0 && p.before + p.after > 0 && mode != PadMode::kConstant)
    fail("cannot pad an empty axis except in constant mode");
  return p;
}

// The input index along one axis that output index `o` reads, or -1 for the constant value.
int64_t source_index(const AxisPad& p, PadMode mode, int64_t o) {
  int64_t c = o - p.before;  // index into the kept range
  if (c < 0 || c >= p.kept) {
    switch (mode) {
      case PadMode::kConstant: return -1;
      case PadMode::kEdge: c = c < 0 ? 0 : p.kept - 1; break;
      case PadMode::kWrap: c = (c % p.kept + p.kept) % p.kept; break;
      case PadMode::kReflect: {
        // Mirroring without repeating the edge element has period 2*(kept-1).
        const int64_t period = 2 * (p.kept - 1);
        c = period == 0 ? 0 : (c % period + period) % period;
        if (c >= p.kept) c = period - c;
        break;
      }
    }
  }
  return p.crop_begin + c;
}

// Writes the padded tensor row by row; `sources[d][o]` is the input index for output index o on
// axis d (-1: constant). Word is an unsigned type of the element's size.
template <class Word>
void pad_words(const Word* src, const std::vector<int64_t>& src_strides,
               const std::vector<std::vector<int64_t>>& sources,
               const std::vector<int64_t>& out_shape, Word fill, Word* dst) {
  const size_t rank = out_shape.size();
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  if (total == 0) return;
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  const std::vector<int64_t>& inner_sources = sources[rank - 1];
  const int64_t inner = out_shape[rank - 1];
  const int64_t inner_stride = src_strides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t done = 0; done < total; done += inner, dst += inner) {
    int64_t row = 0;  // input offset of this row, or -1 when the whole row is constant
    for (size_t d = 0; d + 1 < rank && row >= 0; ++d) {
      const int64_t s = sources[d][size_t(index[d])];
      row = s < 0 ? -1 : row + s * src_strides[d];
    }
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t s = inner_sources[size_t(i)];
      dst[i] = row < 0 || s < 0 ? fill : src[row + s * inner_stride];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
}

template <class Word>
void pad_typed(const Tensor& src, const std::vector<std::vector<int64_t>>& sources,
               const std::vector<std::byte>& fill_bytes, Tensor& dst) {
  Word fill;
  std::memcpy(&fill, fill_bytes.data(), sizeof fill);
  pad_words(static_cast<const Word*>(src.raw()), row_major_strides(src.shape()), sources,
            dst.shape(), fill, static_cast<Word*>(dst.raw()));
}

class PadOp final : public Op {
 public:
  explicit PadOp(const NodeInfo& node) {
    const std::string mode = node.attr_string("mode", "constant");
    if (mode == "constant") {
      mode_ = PadMode::kConstant;
    } else if (mode == "reflect") {
      mode_ = PadMode::kReflect;
    } else if (mode == "edge") {
      mode_ = PadMode::kEdge;
    } else if (mode == "wrap" && node.opset() >= 19) {
      mode_ = PadMode::kWrap;
    } else {
      fail("attribute 'mode' '{}' is not supported", mode);
    }
    if (node.opset() < 11) {
      pads_attr_ = node.required_ints("pads");
      value_attr_ = node.attr_float("value", 0.0f);
    }
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    if (ctx.has_input(2) && ctx.dtype(2) != ctx.dtype(0))
      fail("input 'constant_value' is {}, the data is {}", dtype_name(ctx.dtype(2)),
           dtype_name(ctx.dtype(0)));
    const Shape& in = ctx.shape(0);
    const std::vector<int64_t> pads = full_pads(ctx, in.rank());
    Shape out = in;
    for (int64_t d = 0; d < in.rank(); ++d) {
      const int64_t begin = pads[size_t(d)];
      const int64_t end = pads[size_t(d + in.rank())];
      if (begin == 0 && end == 0) continue;  // keeps a symbolic dim symbolic
      out[d] = axis_pad(in[d].value(), begin, end, mode_).out_dim();
    }
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    const int64_t rank = src.rank();
    const std::vector<int64_t> pads = full_pads(ctx, rank);
    std::vector<std::vector<int64_t>> sources(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      const AxisPad p = axis_pad(src.dim(d), pads[size_t(d)], pads[size_t(d + rank)], mode_);
      if (p.out_dim() != dst.dim(d)) fail("pad shape changed between infer and run");
      for (int64_t o = 0; o < p.out_dim(); ++o)
        sources[size_t(d)].push_back(source_index(p, mode_, o));
    }
    const std::vector<std::byte> fill = fill_value(ctx);
    switch (dtype_size(src.dtype())) {
      case 1: return pad_typed<uint8_t>(src, sources, fill, dst);
      case 2: return pad_typed<uint16_t>(src, sources, fill, dst);
      case 4: return pad_typed<uint32_t>(src, sources, fill, dst);
      case 8: return pad_typed<uint64_t>(src, sources, fill, dst);
      default: fail("does not support dtype {}", dtype_name(src.dtype()));
    }
  }

 private:
  // Pads in ONNX layout [begin_0 .. begin_{n-1}, end_0 .. end_{n-1}] covering every axis.
  template <class Context>
  std::vector<int64_t> full_pads(const Context& ctx, int64_t rank) const {
    const std::optional<std::vector<int64_t>> pads = attr_or_input_ints(pads_attr_, ctx, 1);
    if (!pads) fail("input 'pads' is missing");
    std::vector<int64_t> axes(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) axes[size_t(d)] = d;
    axes = normalize_axes(attr_or_input_ints(std::nullopt, ctx, 3).value_or(axes), rank);
    const size_t n = axes.size();
    if (pads->size() != 2 * n)
      fail("'pads' has {} entries; expected {} (begin and end for {} axes)", pads->size(), 2 * n,
           n);
    std::vector<int64_t> full(size_t(2 * rank), 0);
    for (size_t i = 0; i < n; ++i) {
      full[size_t(axes[i])] = (*pads)[i];
      full[size_t(axes[i] + rank)] = (*pads)[i + n];
    }
    return full;
  }

  // The constant value's bytes in the data's dtype.
  std::vector<std::byte> fill_value(const KernelContext& ctx) const {
    const DType dtype = ctx.input(0).dtype();
    std::vector<std::byte> bytes(dtype_size(dtype));
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
      std::memcpy(bytes.data(), ctx.input(2).raw(), bytes.size());
    } else if (pads_attr_) {  // opset < 11: a float attribute, converted to the data's type
      visit_all(dtype, [&]<class T>(Type<T>) {
        const T value = T(value_attr_);
        std::memcpy(bytes.data(), &value, sizeof value);
      });
    }
    return bytes;
  }

  PadMode mode_ = PadMode::kConstant;
  std::optional<std::vector<int64_t>> pads_attr_;
  float value_attr_ = 0;
};

}  // namespace

std::unique_ptr<Op> make_pad(const NodeInfo& node) {
  return std::make_unique<PadOp>(node);
}

}  // namespace strata::ops
