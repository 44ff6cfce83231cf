// LabelEncoder (ai.onnx.ml, opsets 2-4): maps each element of X through a dictionary whose keys
// and values are attributes: keys_strings / keys_int64s / keys_floats, or (opset 4) keys_tensor of
// any of string, int16/32/64, float, double; the values likewise. An element with no key gets the
// default: default_tensor (opset 4), else default_string ("_Unused"), default_int64 (-1) or
// default_float (-0.0) by the values' type (for other value types: -1 for integers, -0.0 for
// floats). Float keys compare by value, NaN matching NaN. Y has X's shape and the values' type.
// The opset-1 form (classes_strings) is refused.
// Cost: a lookup per element, no arithmetic: 0 FLOPs, the bytes read and written.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

bool encodable(DType t) {
  switch (t) {
    case DType::kString:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
    case DType::kF32:
    case DType::kF64: return true;
    default: return false;
  }
}

// Element i of t as a dictionary key; keys and X share a dtype, so equal values give equal text.
std::string key_at(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::kString) return t.data<std::string>()[i];
  std::string key;
  visit_integer(t.dtype(), [&]<class T>(Type<T>) { key = std::to_string(t.data<T>()[i]); });
  visit_float(t.dtype(), [&]<class T>(Type<T>) {
    const double v = double(t.data<T>()[i]);
    key = std::isnan(v) ? "nan" : v == 0 ? "0" : fmt::format("{}", v);
  });
  return key;
}

Tensor strings_tensor(const std::vector<std::string>& values) {
  Tensor t = Tensor::zeros(DType::kString, {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

// The keys or values attribute family `prefix` ("keys" or "values"): exactly one must be given.
Tensor dictionary_side(const NodeInfo& node, const std::string& prefix) {
  const std::string strings = prefix + "_strings", ints = prefix + "_int64s",
                    floats = prefix + "_floats", tensor = prefix + "_tensor";
  const int given = node.count_attrs({strings, ints, floats, tensor});
  if (given != 1)
    fail("exactly one of the attributes '{}', '{}', '{}' and '{}' must be given, not {}", strings,
         ints, floats, tensor, given);
  if (node.has_attr(strings.c_str())) return strings_tensor(node.attr_strings(strings.c_str()));
  if (node.has_attr(ints.c_str())) {
    const std::vector<int64_t> v = node.attr_ints(ints.c_str());
    return Tensor::from<int64_t>({int64_t(v.size())}, std::span<const int64_t>(v));
  }
  if (node.has_attr(floats.c_str())) {
    const std::vector<float> v = node.attr_floats(floats.c_str());
    return Tensor::from<float>({int64_t(v.size())}, std::span<const float>(v));
  }
  const Tensor& t = *node.attr_tensor(tensor.c_str());
  if (!encodable(t.dtype()))
    fail("attribute '{}' has dtype {}; string, int16, int32, int64, float or double is needed",
         tensor, dtype_name(t.dtype()));
  return t;
}

// The one-element default for values of type `t`.
Tensor default_value(const NodeInfo& node, DType t) {
  if (const Tensor* given = node.attr_tensor("default_tensor")) {
    if (given->dtype() != t || given->numel() != 1)
      fail("attribute 'default_tensor' must hold one {} value, not {} of {}", dtype_name(t),
           given->numel(), dtype_name(given->dtype()));
    return *given;
  }
  if (t == DType::kString) return strings_tensor({node.attr_string("default_string", "_Unused")});
  Tensor d = Tensor::zeros(t, {1});
  const double value = t == DType::kI64   ? double(node.attr_int("default_int64", -1))
                       : t == DType::kF32 ? double(node.attr_float("default_float", -0.0f))
                       : is_integer(t)    ? -1.0
                                          : -0.0;
  visit_numeric(t, [&]<class T>(Type<T>) { d.data<T>()[0] = T(value); });
  return d;
}

class LabelEncoderOp final : public Op {
 public:
  explicit LabelEncoderOp(const NodeInfo& node) {
    if (node.has_attr("classes_strings"))
      fail("the opset-1 form of LabelEncoder (attribute 'classes_strings') is not supported");
    keys_ = dictionary_side(node, "keys");
    values_ = dictionary_side(node, "values");
    if (keys_.numel() != values_.numel())
      fail("there are {} keys but {} values; each key needs one value", keys_.numel(),
           values_.numel());
    default_ = default_value(node, values_.dtype());
    for (int64_t i = 0; i < keys_.numel(); ++i) index_.emplace(key_at(keys_, i), i);
  }

  void infer(InferContext& ctx) const override {
    if (ctx.dtype(0) != keys_.dtype())
      fail("input 'X' has dtype {}, but the keys are {}", dtype_name(ctx.dtype(0)),
           dtype_name(keys_.dtype()));
    ctx.set_output(0, values_.dtype(), ctx.shape(0));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const bool strings = y.dtype() == DType::kString;
    const size_t size = strings ? 0 : dtype_size(y.dtype());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const auto hit = index_.find(key_at(x, i));
      const Tensor& from = hit == index_.end() ? default_ : values_;
      const int64_t at = hit == index_.end() ? 0 : hit->second;
      if (strings)
        y.data<std::string>()[i] = from.data<std::string>()[at];
      else
        std::memcpy(static_cast<std::byte*>(y.raw()) + size_t(i) * size,
                    static_cast<const std::byte*>(from.raw()) + size_t(at) * size, size);
    }
  }

 private:
  Tensor keys_, values_, default_;
  std::unordered_map<std::string, int64_t> index_;  // key text -> first position in keys_
};

}  // namespace

std::unique_ptr<Op> make_label_encoder(const NodeInfo& node) {
  return std::make_unique<LabelEncoderOp>(node);
}

}  // namespace strata::ops
