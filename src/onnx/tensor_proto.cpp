#include "onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/checked.h"
#include "core/error.h"
#include "onnx/file_util.h"

namespace strata::onnx_import {

namespace {

namespace fs = std::filesystem;

// Resolves an external data location, refusing anything that could leave the model's folder.
fs::path resolve_external(const std::string& location, const std::string& model_dir,
                          const std::string& what) {
  if (model_dir.empty()) fail("{}: external data is not allowed here", what);
  const fs::path rel(location);
  if (location.empty()) fail("{}: external data has an empty location", what);
  if (rel.is_absolute()) fail("{}: external data path '{}' is absolute", what, location);
  for (const fs::path& part : rel)
    if (part == "..") fail("{}: external data path '{}' leaves the model's folder", what, location);
  std::error_code ec;
  const fs::path dir = fs::canonical(model_dir, ec);
  if (ec) fail("{}: cannot resolve the model's folder '{}'", what, model_dir);
  const fs::path full = dir / rel;
  if (!fs::exists(full, ec)) fail("{}: external data file '{}' does not exist", what, full.string());
  const fs::path real = fs::canonical(full, ec);
  if (ec) fail("{}: cannot resolve external data file '{}'", what, full.string());
  const auto [dir_end, real_it] = std::mismatch(dir.begin(), dir.end(), real.begin(), real.end());
  if (dir_end != dir.end())
    fail("{}: external data file '{}' is a link that leaves the model's folder", what, location);
  if (!fs::is_regular_file(real)) fail("{}: external data '{}' is not a regular file", what, location);
  return real;
}

// Checks the external file holds the tensor's bytes before allocating anything, then reads them.
Tensor read_external(const onnx::TensorProto& proto, const std::string& model_dir,
                     const std::string& what, DType dtype, const std::vector<int64_t>& dims,
                     int64_t expected_bytes) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const auto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") offset = std::stoll(entry.value());
      if (entry.key() == "length") length = std::stoll(entry.value());
    } catch (const std::exception&) {
      fail("{}: external data '{}' is not a number ('{}')", what, entry.key(), entry.value());
    }
  }
  const fs::path path = resolve_external(location, model_dir, what);
  if (offset < 0) fail("{}: external data offset {} is negative", what, offset);
  if (length >= 0 && length != expected_bytes)
    fail("{}: external data length {} does not match its shape ({} bytes)", what, length,
         expected_bytes);
  std::error_code ec;
  const uintmax_t file_size = fs::file_size(path, ec);
  if (ec) fail("{}: cannot read the size of '{}'", what, path.string());
  if (uintmax_t(offset) > file_size || uintmax_t(expected_bytes) > file_size - uintmax_t(offset))
    fail("{}: external data needs bytes {}..{} but '{}' has only {} bytes", what, offset,
         offset + expected_bytes, location, file_size);
  Tensor t = Tensor::zeros(dtype, dims);
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  in.read(static_cast<char*>(t.raw()), expected_bytes);
  if (!in) fail("{}: read error in external data file '{}'", what, location);
  return t;
}

// Copies a typed repeated field into the tensor, converting each element to T.
template <class T, class Field>
void copy_field(const Field& field, Tensor& t, const std::string& what, const char* name) {
  if (field.size() != t.numel())
    fail("{}: {} has {} values but the shape needs {}", what, name, field.size(), t.numel());
  T* dst = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i] = T(field.Get(int(i)));
}

// Half-precision types stored in int32_data carry their bit patterns.
template <class T>
void copy_bits16(const google::protobuf::RepeatedField<int32_t>& field, Tensor& t,
                 const std::string& what) {
  if (field.size() != t.numel())
    fail("{}: int32_data has {} values but the shape needs {}", what, field.size(), t.numel());
  T* dst = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i].bits = uint16_t(field.Get(int(i)));
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                         const std::string& what) {
  DType dtype;
  if (proto.data_type() == onnx::TensorProto::STRING) fail("{}: string tensors are not supported", what);
  if (!dtype_from_onnx(proto.data_type(), &dtype))
    fail("{}: data type {} is not supported", what, proto.data_type());
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  for (int64_t d : dims)
    if (d < 0) fail("{}: dimension {} is negative", what, d);
  int64_t numel = 1;
  int64_t bytes = 0;
  try {
    numel = checked_numel(dims);
    bytes = checked_mul(numel, int64_t(dtype_size(dtype)));
  } catch (const Error&) {
    fail("{}: shape is too large", what);
  }

  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return read_external(proto, model_dir, what, dtype, dims, bytes);
  if (proto.has_raw_data()) {
    if (int64_t(proto.raw_data().size()) != bytes)
      fail("{}: raw data has {} bytes but its shape needs {}", what, proto.raw_data().size(), bytes);
    Tensor t = Tensor::zeros(dtype, dims);
    if (bytes) std::memcpy(t.raw(), proto.raw_data().data(), size_t(bytes));
    return t;
  }
  // Typed fields: the total count must match before anything is allocated.
  const int64_t available = proto.float_data_size() + proto.int32_data_size() +
                            proto.int64_data_size() + proto.double_data_size() +
                            proto.uint64_data_size();
  if (available != numel)
    fail("{}: holds {} values but its shape needs {}", what, available, numel);
  Tensor t = Tensor::zeros(dtype, dims);
  switch (dtype) {
    case DType::kF32: copy_field<float>(proto.float_data(), t, what, "float_data"); break;
    case DType::kF64: copy_field<double>(proto.double_data(), t, what, "double_data"); break;
    case DType::kI64: copy_field<int64_t>(proto.int64_data(), t, what, "int64_data"); break;
    case DType::kU32: copy_field<uint32_t>(proto.uint64_data(), t, what, "uint64_data"); break;
    case DType::kU64: copy_field<uint64_t>(proto.uint64_data(), t, what, "uint64_data"); break;
    case DType::kI32: copy_field<int32_t>(proto.int32_data(), t, what, "int32_data"); break;
    case DType::kI16: copy_field<int16_t>(proto.int32_data(), t, what, "int32_data"); break;
    case DType::kI8: copy_field<int8_t>(proto.int32_data(), t, what, "int32_data"); break;
    case DType::kU16: copy_field<uint16_t>(proto.int32_data(), t, what, "int32_data"); break;
    case DType::kU8: copy_field<uint8_t>(proto.int32_data(), t, what, "int32_data"); break;
    case DType::kBool: copy_field<bool>(proto.int32_data(), t, what, "int32_data"); break;
    case DType::kF16: copy_bits16<f16>(proto.int32_data(), t, what); break;
    case DType::kBF16: copy_bits16<bf16>(proto.int32_data(), t, what); break;
    default: fail("{}: data type {} is not supported", what, dtype_name(dtype));
  }
  return t;
}

Tensor read_tensor_pb(const std::string& path) {
  const std::string bytes = read_file_bytes(path, "a tensor file");
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    fail("{}: not a valid ONNX TensorProto (truncated or another format)", path);
  return tensor_from_proto(proto, "", path);
}

}  // namespace strata::onnx_import
