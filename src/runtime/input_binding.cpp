#include "runtime/input_binding.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <regex>

#include "core/checked.h"
#include "core/error.h"
#include "core/narrow_types.h"
#include "io/image.h"
#include "io/json_tensor.h"
#include "io/npy.h"
#include "onnx/tensor_proto.h"

namespace strata::runtime {

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// Random values: floats uniform in [0, 1), integers uniform in [0, 10) (packed ones up to their
// max), bools fair coins. Small non-negative integers keep index-like inputs (token ids, positions)
// in range.
Tensor random_tensor(DType dtype, const std::vector<int64_t>& shape, std::mt19937_64& rng) {
  Tensor t = Tensor::zeros(dtype, shape);
  std::uniform_real_distribution<double> real(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9);
  const auto fill = [&]<class T>(Type<T>) {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        p[i] = small(rng) % 2;
      else if constexpr (std::is_integral_v<T>)
        p[i] = T(small(rng));
      else if constexpr (is_packed_int_v<T>)
        p[i] = T(small(rng) % (T::kMax + 1));  // within the type's range
      else
        p[i] = T(float(real(rng)));
    }
  };
  const bool ok = visit_all(dtype, fill) || visit_narrow(dtype, fill);
  if (!ok) fail("cannot make random values of dtype {}", dtype_name(dtype));
  return t;
}

// A scalar written inline (`--input a=0`, `a=-1.5`, `a=2e-3`, `a=true`) rather than a file name;
// a file of that name, if one exists, wins.
bool is_inline_scalar(const std::string& text) {
  static const std::regex number(R"([-+]?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?)");  // JSON's
  const bool literal = text == "true" || text == "false" || std::regex_match(text, number);
  std::error_code ec;
  return literal && !std::filesystem::exists(text, ec);
}

}  // namespace

InputArg parse_input_arg(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || text.substr(0, eq).find('/') != std::string::npos ||
      text[0] == '[')
    return {"", text};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void name_inputs_with_slashes(const ir::Graph& graph, std::vector<InputArg>& args) {
  for (InputArg& arg : args) {
    const size_t eq = arg.source.find('=');
    if (!arg.name.empty() || eq == std::string::npos || eq == 0) continue;
    for (ir::ValueId id : graph.inputs)
      if (graph.values[size_t(id)].name == arg.source.substr(0, eq))
        arg = {arg.source.substr(0, eq), arg.source.substr(eq + 1)};
  }
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& what) {
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t next = text.find_first_of("x,", pos);
    const std::string part =
        text.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 12)
      fail("{}: '{}' is not a shape like 1x3x224x224", what, text);
    dims.push_back(std::stoll(part));
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  try {
    checked_numel(dims);
  } catch (const Error& e) {
    fail("{}: '{}' is too large ({})", what, text, e.what());
  }
  return dims;
}

Tensor read_tensor_file(const std::string& path, DType dtype) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return io::read_npy(path);
  if (ext == ".pb") return onnx_import::read_tensor_pb(path);
  if (ext == ".json") return io::read_json_tensor(path, dtype);
  if (ext == ".pgm" || ext == ".ppm" || ext == ".png" || ext == ".jpg" || ext == ".jpeg" ||
      ext == ".bmp")
    return io::read_image(path);
  fail("{}: unknown tensor file type '{}' (use .npy, .pb, .json, .pgm, .ppm, .png or .jpg)", path,
       ext);
}

std::vector<BoundInput> bind_inputs(const ir::Graph& graph, const BindOptions& options) {
  const size_t n = graph.inputs.size();
  std::vector<const InputArg*> given(n, nullptr);
  std::vector<InputArg> args = options.inputs;
  name_inputs_with_slashes(graph, args);
  // The index of the input named `name`; fails listing the inputs when there is none.
  auto input_index = [&](const std::string& name) {
    for (size_t i = 0; i < n; ++i)
      if (graph.values[size_t(graph.inputs[i])].name == name) return i;
    std::string names;
    for (size_t i = 0; i < n; ++i)
      names += (i ? ", " : "") + graph.values[size_t(graph.inputs[i])].name;
    fail("the model has no input named '{}' (its inputs: {})", name, names);
  };
  size_t next_positional = 0;
  for (const InputArg& arg : args) {
    size_t index = n;
    if (arg.name.empty()) {
      while (next_positional < n && given[next_positional]) ++next_positional;
      if (next_positional >= n)
        fail("too many inputs: the model has {} input{}", n, n == 1 ? "" : "s");
      index = next_positional;
    } else {
      index = input_index(arg.name);
      if (given[index]) fail("input '{}' is given twice", arg.name);
    }
    given[index] = &arg;
  }
  for (const auto& [name, tensor] : options.values)
    if (given[input_index(name)]) fail("input '{}' is given twice", name);
  for (const auto& [name, dims] : options.shapes) {
    bool found = false;
    for (size_t i = 0; i < n; ++i) found |= graph.values[size_t(graph.inputs[i])].name == name;
    if (!found) fail("--shape names '{}', which is not an input of the model", name);
  }

  std::mt19937_64 rng(options.seed);
  std::vector<BoundInput> bound;
  for (size_t i = 0; i < n; ++i) {
    const ir::Value& v = graph.values[size_t(graph.inputs[i])];
    const DType dtype = v.dtype == DType::kUndefined ? DType::kF32 : v.dtype;
    BoundInput b;
    if (auto value = options.values.find(v.name); value != options.values.end()) {
      b.tensor = value->second;
      b.origin = "given";
      if (b.tensor.dtype() != dtype)
        fail("input '{}' is {} but the model expects {}", v.name, dtype_name(b.tensor.dtype()),
             dtype_name(dtype));
    } else if (v.kind != ValueKind::kTensor) {  // a sequence or optional: from a .pb file only
      if (!given[i] || given[i]->source.empty() || given[i]->source[0] == '[')
        fail("input '{}' is a {}: give it as a .pb file (-i {}=FILE.pb) or with --test-data",
             v.name, value_kind_name(v.kind), v.name);
      b.tensor = onnx_import::read_value_pb(given[i]->source, v.kind, dtype);
      b.origin = given[i]->source;
    } else if (given[i]) {
      const std::string& src = given[i]->source;
      if ((!src.empty() && src[0] == '[') || is_inline_scalar(src)) {
        // A leading '+' is not JSON; a scalar's value is the same without it.
        b.tensor = io::parse_json_tensor(src[0] == '+' ? src.substr(1) : src, dtype,
                                         "input '" + v.name + "'");
        b.origin = "inline";
      } else {
        b.tensor = read_tensor_file(src, dtype);
        b.origin = src;
      }
      if (b.tensor.dtype() != dtype)
        fail("input '{}': {} holds {} but the model expects {}", v.name, b.origin,
             dtype_name(b.tensor.dtype()), dtype_name(dtype));
    } else {
      std::vector<int64_t> shape;
      auto it = options.shapes.find(v.name);
      if (it != options.shapes.end()) {
        shape = it->second;
      } else if (!v.shape_known) {
        fail("input '{}' has no shape in the model: give one with --shape {}=1x3x224x224", v.name,
             v.name);
      } else {
        for (const Dim& d : v.shape.dims()) {
          if (d.is_static()) {
            shape.push_back(d.value());
            continue;
          }
          auto dim = options.dims.find(d.symbol());
          if (dim == options.dims.end())
            fail(
                "input '{}' has dynamic dimension '{}' ({}): give its size with --shape {}=... or "
                "--dim {}=N",
                v.name, d.symbol(), v.shape.str(), v.name, d.symbol());
          shape.push_back(dim->second);
        }
      }
      b.tensor = random_tensor(dtype, shape, rng);
      b.origin = fmt::format("random (seed {})", options.seed);
    }
    bound.push_back(std::move(b));
  }
  return bound;
}

bool contains_nan(const Tensor& t) {
  bool found = false;
  visit_float(t.dtype(), [&]<class T>(Type<T>) {
    for (int64_t i = 0; i < t.numel() && !found; ++i) found = std::isnan(float(t.data<T>()[i]));
  });
  return found;
}

}  // namespace strata::runtime
