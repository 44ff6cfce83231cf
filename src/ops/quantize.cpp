// QuantizeLinear, DequantizeLinear (opsets 10-21) and DynamicQuantizeLinear.
//   QuantizeLinear:   y = saturate(round_half_even(x / scale) + zero_point)
//   DequantizeLinear: y = (x - zero_point) * scale
// Scale and zero point are one value (per tensor), a 1-D tensor of x.shape[axis] values (per
// axis), or, with block_size > 0 (opset 21), x's shape with ceil(x.shape[axis] / block_size)
// along the axis (blocked). Quantized types: int8, uint8, int16, uint16, int4, uint4, int2, uint2
// and the four float8 formats (and int32 for DequantizeLinear). To float8, x / scale is rounded to
// nearest even (the zero point, which must be 0, is not added) and attribute `saturate` (default 1)
// clamps out-of-range values as Cast does; without a zero point QuantizeLinear gives uint8 (or
// output_dtype). Scales must be positive; a zero point must match the quantized type.
// DynamicQuantizeLinear: uint8 with scale = (max(x, 0) - min(x, 0)) / 255 and zero point
// saturate(round(-min / scale)), both outputs scalars.
// Cost: 2 FLOPs per element (divide or multiply, add or subtract); DynamicQuantizeLinear 4 (min
// and max as well).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/narrow_types.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

bool is_quantized_type(DType t) {
  return t == DType::kI8 || t == DType::kU8 || t == DType::kI16 || t == DType::kU16 ||
         is_packed_int(t) || (is_float8(t) && t != kF8E8M0) || t == kF4E2M1;
}

// Round half to even (the default rounding mode), then clamp to Q's range.
template <class Q>
Q saturate_round(double v) {
  const double r = std::nearbyint(v);
  if (!(r >= double(std::numeric_limits<Q>::lowest()))) return std::numeric_limits<Q>::lowest();
  if (r > double(std::numeric_limits<Q>::max())) return std::numeric_limits<Q>::max();
  return Q(r);
}

// Where each element of x finds its scale and zero point.
class ParamIndex {
 public:
  ParamIndex(const std::vector<int64_t>& x, const std::vector<int64_t>& param, int64_t axis,
             int64_t block_size) {
    count_ = 1;
    for (int64_t d : param) count_ *= d;
    if (count_ == 1) return;  // per tensor
    const int64_t rank = int64_t(x.size());
    axis_ = axis;
    inner_ = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner_ *= x[size_t(d)];
    axis_dim_ = x[size_t(axis)];
    block_ = block_size > 0 ? block_size : axis_dim_;
    blocked_ = block_size > 0;
  }
  int64_t count() const { return count_; }
  // The parameter index of x's flat element i.
  int64_t operator()(int64_t i) const {
    if (count_ == 1) return 0;
    const int64_t along = (i / inner_) % axis_dim_;
    if (!blocked_) return along;
    const int64_t outer = i / (inner_ * axis_dim_), rest = i % inner_;
    const int64_t blocks = (axis_dim_ + block_ - 1) / block_;
    return (outer * blocks + along / block_) * inner_ + rest;
  }

 private:
  int64_t count_ = 1, axis_ = 0, inner_ = 1, axis_dim_ = 1, block_ = 1;
  bool blocked_ = false;
};

class LinearQuantizationOp final : public Op {
 public:
  explicit LinearQuantizationOp(const NodeInfo& node)
      : quantize_(node.op_type() == "QuantizeLinear"),
        axis_(node.attr_int("axis", 1)),
        block_size_(node.attr_int("block_size", 0)),
        saturate_(node.attr_int("saturate", 1) != 0) {
    if (block_size_ < 0) fail("attribute 'block_size' must be 0 or positive, got {}", block_size_);
    const int64_t out = node.attr_int("output_dtype", 0);
    if (out != 0 && (!dtype_from_onnx(int(out), &output_dtype_) ||
                     (quantize_ && !is_quantized_type(output_dtype_))))
      fail("attribute 'output_dtype' {} is not a type strata quantizes to", out);
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const Meta& scale = ctx.input(1);
    if (!is_float(scale.dtype))
      fail("scale has dtype {}; a float type is needed", dtype_name(scale.dtype));
    const int64_t axis = axis_for(x.shape.rank(), one_value(scale.shape));
    check_parameter_shape(x.shape, scale.shape, axis, "scale");
    DType q =
        quantize_ ? (output_dtype_ != DType::kUndefined ? output_dtype_ : DType::kU8) : x.dtype;
    if (ctx.has_input(2)) {
      const Meta& zp = ctx.input(2);
      check_parameter_shape(x.shape, zp.shape, axis, "zero point");
      if (!quantize_ && zp.dtype != x.dtype)
        fail("zero point has dtype {} but x has {}", dtype_name(zp.dtype), dtype_name(x.dtype));
      q = zp.dtype;
    }
    if (quantize_) {
      if (!is_float(x.dtype) && x.dtype != DType::kI32)
        fail("x has dtype {}; a float type is needed", dtype_name(x.dtype));
      if (!is_quantized_type(q))
        fail("cannot quantize to {}: strata quantizes to 8-, 16- and 4-bit integers and float8",
             dtype_name(q));
      ctx.set_output(0, q, x.shape);
    } else {
      if (!is_quantized_type(x.dtype) && x.dtype != DType::kI32)
        fail("cannot dequantize {}: strata dequantizes 4-, 8-, 16- and 32-bit integers and float8",
             dtype_name(x.dtype));
      ctx.set_output(0, scale.dtype, x.shape);
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 2);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t axis = axis_for(x.rank(), ctx.input(1).numel() == 1 && block_size_ == 0);
    const ParamIndex index(x.shape(), ctx.input(1).shape(), axis, block_size_);
    const std::vector<double> scale = ctx.input(1).to_double();
    for (size_t i = 0; i < scale.size(); ++i)
      if (!(scale[i] > 0)) fail("scale holds {} at index {}: scales must be positive", scale[i], i);
    const std::vector<double> zp =
        ctx.has_input(2) ? ctx.input(2).to_double() : std::vector<double>(scale.size(), 0.0);
    const std::vector<double> v = x.to_double();
    // The division in float32, as ONNX's reference computes it: the rounding of x / scale decides
    // ties (0.5 / (5 / 255) is 25.5 in float32, 25.4999... in double).
    const auto scaled = [&](int64_t i, int64_t p) {
      return double(float(v[size_t(i)]) / float(scale[size_t(p)]));
    };
    if (quantize_ && (is_float8(y.dtype()) || y.dtype() == kF4E2M1)) {
      // float4e2m1 adds its zero point, as ONNX's reference does; float8's must be 0.
      const bool add_zero_point = y.dtype() == kF4E2M1;
      uint8_t* out = static_cast<uint8_t*>(y.raw());
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t p = index(i);
        out[i] = float8_from_double(scaled(i, p) + (add_zero_point ? zp[size_t(p)] : 0), y.dtype(),
                                    saturate_);
      }
    } else if (quantize_ && is_packed_int(y.dtype())) {
      const int bits = packed_int_bits(y.dtype());
      const bool is_signed = y.dtype() == kI4 || y.dtype() == kI2;
      const double lo = is_signed ? -(1 << (bits - 1)) : 0;
      const double hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
      int8_t* out = static_cast<int8_t*>(y.raw());  // in range: the byte is the value
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t p = index(i);
        out[i] = int8_t(std::clamp(std::nearbyint(scaled(i, p)) + zp[size_t(p)], lo, hi));
      }
    } else if (quantize_) {
      visit_integer(y.dtype(), [&]<class Q>(Type<Q>) {
        Q* out = y.data<Q>();
        for (int64_t i = 0; i < x.numel(); ++i) {
          const int64_t p = index(i);
          out[i] = saturate_round<Q>(std::nearbyint(scaled(i, p)) + zp[size_t(p)]);
        }
      });
    } else {
      visit_float(y.dtype(), [&]<class T>(Type<T>) {
        T* out = y.data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) {
          const int64_t p = index(i);
          out[i] = T(float((v[size_t(i)] - zp[size_t(p)]) * scale[size_t(p)]));
        }
      });
    }
  }

 private:
  static bool one_value(const Shape& p) {
    return p.rank() == 0 || (p.rank() == 1 && p[0].is_static() && p[0].value() == 1);
  }
  // The axis, checked, when the parameters are per axis or blocked (per tensor, any is ignored).
  int64_t axis_for(int64_t rank, bool per_tensor) const {
    if ((per_tensor && block_size_ == 0) || rank == 0) return 0;
    return normalize_axis(axis_, rank);
  }

  // Scalar, [x.shape[axis]], or (blocked) x's shape with the axis divided into blocks.
  void check_parameter_shape(const Shape& x, const Shape& p, int64_t axis, const char* what) const {
    if (block_size_ > 0) {
      bool fits = p.rank() == x.rank();
      for (int64_t d = 0; fits && d < x.rank(); ++d) {
        if (!x[d].is_static() || !p[d].is_static()) continue;
        const int64_t want =
            d == axis ? (x[d].value() + block_size_ - 1) / block_size_ : x[d].value();
        fits = p[d].value() == want;
      }
      if (!fits)
        fail("{} of shape {} does not fit blocks of {} along axis {} of x {}", what, p.str(),
             block_size_, axis, x.str());
      return;
    }
    if (one_value(p)) return;
    if (x.rank() == 0)
      fail("{} of shape {} holds more than one value for a scalar x", what, p.str());
    if (p.rank() != 1 ||
        (p[0].is_static() && x[axis].is_static() && p[0].value() != x[axis].value()))
      fail("{} of shape {} is neither one value nor one per element of axis {} of x {}", what,
           p.str(), axis, x.str());
  }

  bool quantize_;
  int64_t axis_;
  int64_t block_size_;
  bool saturate_;
  DType output_dtype_ = DType::kUndefined;
};

class DynamicQuantizeOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (x.dtype != DType::kF32) fail("x has dtype {}; float32 is needed", dtype_name(x.dtype));
    ctx.set_output(0, DType::kU8, x.shape);
    ctx.set_output(1, DType::kF32, Shape{});
    ctx.set_output(2, DType::kU8, Shape{});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, 0);
    c.flops = 4 * double(ctx.numel_in(0));
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const float* v = x.data<float>();
    float lo = 0, hi = 0;  // the range always holds 0
    for (int64_t i = 0; i < x.numel(); ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    const float scale = (hi - lo) / 255.0f;
    // In float32 throughout, as the op's definition computes it.
    const uint8_t zp = scale > 0 ? saturate_round<uint8_t>(double(-lo / scale)) : 0;
    uint8_t* y = ctx.output(0).data<uint8_t>();
    for (int64_t i = 0; i < x.numel(); ++i)
      y[i] = scale > 0 ? saturate_round<uint8_t>(std::nearbyint(double(v[i] / scale)) + zp)
                       : uint8_t(0);
    if (ctx.num_outputs() > 1) ctx.output(1).data<float>()[0] = scale;
    if (ctx.num_outputs() > 2) ctx.output(2).data<uint8_t>()[0] = zp;
  }
};

}  // namespace

std::unique_ptr<Op> make_quantize(const NodeInfo& node) {
  if (node.op_type() == "DynamicQuantizeLinear") return std::make_unique<DynamicQuantizeOp>();
  return std::make_unique<LinearQuantizationOp>(node);
}

}  // namespace strata::ops
