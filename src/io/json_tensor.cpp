#include "io/json_tensor.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "io/file.h"

namespace strata::io {

namespace {

using nlohmann::json;

constexpr size_t kMaxRank = 32;                          // deeper nesting is surely a mistake
constexpr int64_t kMaxJsonFileBytes = int64_t(1) << 30;  // JSON is for small tensors
constexpr DType kJsonDTypes[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI8,
                                 DType::kI16, DType::kI32, DType::kI64, DType::kU8,   DType::kU16,
                                 DType::kU32, DType::kU64, DType::kBool};

std::string index_str(const std::vector<int64_t>& index) {
  if (index.empty()) return "the value";
  std::string s = "element ";
  for (int64_t i : index) s += fmt::format("[{}]", i);
  return s;
}

// A value for an error message, cut short so hostile input cannot flood it.
std::string brief(const json& v) {
  std::string s = v.dump();
  return s.size() <= 40 ? s : s.substr(0, 37) + "...";
}

const char* kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::string: return "a string";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

// Shape from the nesting: follow the first element of each array.
std::vector<int64_t> nesting_shape(const json& value) {
  std::vector<int64_t> shape;
  const json* v = &value;
  while (v->is_array()) {
    if (shape.size() == kMaxRank) fail("arrays are nested more than {} levels deep", kMaxRank);
    shape.push_back(int64_t(v->size()));
    if (v->empty()) break;
    v = &(*v)[0];
  }
  return shape;
}

// Visits the leaves in row-major order, checking that every array has the expected length.
template <class F>
void for_each_leaf(const json& v, const std::vector<int64_t>& shape, std::vector<int64_t>& index,
                   F&& f) {
  const size_t depth = index.size();
  if (depth == shape.size()) {
    if (v.is_array())
      fail("ragged array: {} is an array where a number was expected", index_str(index));
    f(v, index);
    return;
  }
  if (!v.is_array() || int64_t(v.size()) != shape[depth]) {
    fail("ragged array: {} is {} where an array of {} elements was expected", index_str(index),
         v.is_array() ? fmt::format("an array of {} elements", v.size()) : kind_of(v),
         shape[depth]);
  }
  for (size_t i = 0; i < v.size(); ++i) {
    index.push_back(int64_t(i));
    for_each_leaf(v[i], shape, index, f);
    index.pop_back();
  }
}

template <class T>
T float_to(double x) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    return T(float(x));
  } else {
    return T(x);
  }
}

// Converts a double to an integer type when it is integral and in range.
template <class T>
T integer_from_double(double x, const std::vector<int64_t>& index) {
  constexpr int digits = std::numeric_limits<T>::digits;
  const double upper = std::ldexp(1.0, digits);
  const double lower = std::is_signed_v<T> ? -upper : 0.0;
  if (!(x >= lower && x < upper) || std::trunc(x) != x)
    fail("{} ({}) is not a valid {}", index_str(index), x, dtype_name(dtype_of<T>()));
  return T(x);
}

template <class T, class I>
T integer_from_integer(I x, const std::vector<int64_t>& index) {
  if (!std::in_range<T>(x))
    fail("{} ({}) is out of range for {}", index_str(index), x, dtype_name(dtype_of<T>()));
  return T(x);
}

std::optional<double> special_float(const std::string& s) {
  std::string lower;
  for (char c : s) lower += char(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (lower == "inf" || lower == "+inf" || lower == "infinity" || lower == "+infinity")
    return std::numeric_limits<double>::infinity();
  if (lower == "-inf" || lower == "-infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

template <class T>
T convert_leaf(const json& v, const std::vector<int64_t>& index) {
  constexpr bool kIsFloat = !std::is_integral_v<T>;
  if (v.is_boolean()) return T(v.get<bool>() ? 1.0f : 0.0f);
  if constexpr (std::is_same_v<T, bool>) {
    if (v.is_number()) return v.get<double>() != 0;
  } else if constexpr (kIsFloat) {
    if (v.is_number()) return float_to<T>(v.get<double>());
    if (v.is_string()) {
      if (auto x = special_float(v.get<std::string>())) return float_to<T>(*x);
    }
  } else {
    if (v.is_number_unsigned()) return integer_from_integer<T>(v.get<uint64_t>(), index);
    if (v.is_number_integer()) return integer_from_integer<T>(v.get<int64_t>(), index);
    if (v.is_number_float()) return integer_from_double<T>(v.get<double>(), index);
  }
  if (v.is_string()) fail("{} is a string ({}), not a number", index_str(index), brief(v));
  fail("{} is {}, not a number", index_str(index), kind_of(v));
}

// numpy-like inference for DType::kUndefined.
DType infer_dtype(const json& value, const std::vector<int64_t>& shape) {
  bool any = false, all_bool = true, all_integer = true;
  std::vector<int64_t> index;
  for_each_leaf(value, shape, index, [&](const json& v, const std::vector<int64_t>&) {
    any = true;
    all_bool = all_bool && v.is_boolean();
    all_integer = all_integer && (v.is_number_integer() || v.is_boolean());
  });
  return !any ? DType::kF32 : all_bool ? DType::kBool : all_integer ? DType::kI64 : DType::kF32;
}

Tensor tensor_from_json(const json& value, DType dtype) {
  const std::vector<int64_t> shape = nesting_shape(value);
  if (dtype == DType::kUndefined) dtype = infer_dtype(value, shape);
  Tensor t = Tensor::zeros(dtype, shape);
  const bool supported = visit_all(dtype, [&]<class T>(Type<T>) {
    T* out = t.data<T>();
    std::vector<int64_t> index;
    for_each_leaf(value, shape, index, [&](const json& v, const std::vector<int64_t>& at) {
      *out++ = convert_leaf<T>(v, at);
    });
  });
  if (!supported) fail("dtype {} is not supported", dtype_name(dtype));
  return t;
}

json parse_json(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    fail("no JSON value (the text is empty)");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {    // a syntax error or a number out of double's range
    std::string_view message = e.what();  // drop the "[json.exception.parse_error.101] " tag
    if (const size_t tag_end = message.find("] "); tag_end != std::string_view::npos)
      message.remove_prefix(tag_end + 2);
    fail("invalid JSON ({})", message);
  }
}

DType dtype_from_name(const json& name) {
  if (name.is_string()) {
    for (DType d : kJsonDTypes) {
      if (dtype_name(d) == name.get<std::string>()) return d;
    }
  }
  fail("unknown \"dtype\" {} (expected a name such as \"float32\" or \"int64\")", brief(name));
}

std::vector<int64_t> explicit_shape(const json& shape) {
  if (!shape.is_array() || shape.size() > kMaxRank)
    fail("invalid \"shape\" (expected an array of at most {} sizes)", kMaxRank);
  std::vector<int64_t> dims;
  for (const json& d : shape) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      fail("invalid \"shape\" {} (sizes must be non-negative integers)", brief(shape));
    dims.push_back(d.get<int64_t>());
  }
  checked_numel(dims);
  return dims;
}

// The {"dtype", "shape", "data"} object form.
Tensor tensor_from_object(const json& object, DType dtype) {
  for (const auto& [key, unused] : object.items()) {
    if (key != "dtype" && key != "shape" && key != "data")
      fail("unexpected key \"{}\" (expected \"dtype\", \"shape\" and \"data\")", key);
  }
  if (!object.contains("data")) fail("the object has no \"data\" key");
  if (object.contains("dtype")) {
    const DType declared = dtype_from_name(object["dtype"]);
    if (dtype != DType::kUndefined && declared != dtype)
      fail("\"dtype\" is {}, but {} is expected", dtype_name(declared), dtype_name(dtype));
    dtype = declared;
  }
  Tensor t = tensor_from_json(object["data"], dtype);
  if (object.contains("shape")) {
    std::vector<int64_t> shape = explicit_shape(object["shape"]);
    if (checked_numel(shape) != t.numel())
      fail("\"data\" has {} values, but \"shape\" {} needs {}", t.numel(), brief(object["shape"]),
           checked_numel(shape));
    t.reshape_unchecked(std::move(shape));
  }
  return t;
}

}  // namespace

Tensor parse_json_tensor(std::string_view text, DType dtype, const std::string& what) {
  return with_path_context(what, [&] { return tensor_from_json(parse_json(text), dtype); });
}

Tensor read_json_tensor(const std::string& path, DType dtype) {
  return with_path_context(path, [&] {
    InputFile file(path);
    const json value = parse_json(file.read_rest(kMaxJsonFileBytes));
    return value.is_object() ? tensor_from_object(value, dtype) : tensor_from_json(value, dtype);
  });
}

}  // namespace strata::io
