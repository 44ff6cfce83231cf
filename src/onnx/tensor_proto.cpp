#include "onnx/tensor_proto.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>

#include "core/checked.h"
#include "core/error.h"
#include "core/narrow_types.h"

namespace strata::onnx_import {

namespace {

namespace fs = std::filesystem;

// Resolves an external data location, refusing anything that could leave the model's folder.
// Returns nullopt when the file does not exist (the caller decides whether that is an error).
std::optional<fs::path> resolve_external(const std::string& location, const std::string& model_dir,
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
  if (!fs::exists(full, ec)) return std::nullopt;
  const fs::path real = fs::canonical(full, ec);
  if (ec) fail("{}: cannot resolve external data file '{}'", what, full.string());
  const auto [dir_end, real_it] = std::mismatch(dir.begin(), dir.end(), real.begin(), real.end());
  if (dir_end != dir.end())
    fail("{}: external data file '{}' is a link that leaves the model's folder", what, location);
  if (!fs::is_regular_file(real))
    fail("{}: external data '{}' is not a regular file", what, location);
  return real;
}

// Packed integers and float4e2m1: ONNX puts 8 / bits of them in a byte, the first in the lowest
// bits; strata holds one per byte (sign-extended when signed).
Tensor unpack_ints(DType dtype, std::vector<int64_t> dims, const uint8_t* packed) {
  Tensor t = Tensor::zeros(dtype, std::move(dims));
  const int bits = packed_bits(dtype), per_byte = 8 / bits, mask = (1 << bits) - 1;
  const bool is_signed = dtype == kI4 || dtype == kI2;
  uint8_t* out = static_cast<uint8_t*>(t.raw());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int v = (packed[i / per_byte] >> (i % per_byte * bits)) & mask;
    out[i] = uint8_t(is_signed && v > mask / 2 ? v - (1 << bits) : v);
  }
  return t;
}

std::string pack_ints(const Tensor& t) {
  const int bits = packed_bits(t.dtype()), per_byte = 8 / bits, mask = (1 << bits) - 1;
  std::string packed(size_t((t.numel() + per_byte - 1) / per_byte), '\0');
  const uint8_t* in = static_cast<const uint8_t*>(t.raw());
  for (int64_t i = 0; i < t.numel(); ++i)
    packed[size_t(i / per_byte)] =
        char(uint8_t(packed[size_t(i / per_byte)]) | ((in[i] & mask) << (i % per_byte * bits)));
  return packed;
}

// How many bytes (or int32_data entries) hold `numel` packed integers of `dtype`.
int64_t packed_count(DType dtype, int64_t numel) {
  const int64_t per_byte = 8 / packed_bits(dtype);
  return (numel + per_byte - 1) / per_byte;
}

// The bytes a tensor of this type and element count takes in an ONNX file.
int64_t file_bytes(DType dtype, int64_t numel) {
  return packed_bits(dtype) ? packed_count(dtype, numel)
                            : checked_mul(numel, int64_t(dtype_size(dtype)));
}

// The `bytes` bytes at `offset` in `file` as a tensor: a view of the file where the policy allows
// and the address suits the element type (the file is mapped at a page boundary, so the offset
// decides), else a copy.
Tensor tensor_at(const std::shared_ptr<const MappedFile>& file, size_t offset, DType dtype,
                 std::vector<int64_t> dims, int64_t bytes, const ReadPolicy& policy) {
  if (bytes == 0) return Tensor::zeros(dtype, std::move(dims));
  const char* at = file->bytes().data() + offset;
  if (packed_bits(dtype))
    return unpack_ints(dtype, std::move(dims), reinterpret_cast<const uint8_t*>(at));
  if (policy.views && reinterpret_cast<uintptr_t>(at) % dtype_size(dtype) == 0)
    return Tensor::view(dtype, std::move(dims), const_cast<char*>(at), view_owner(file, at));
  Tensor t = Tensor::zeros(dtype, std::move(dims));
  std::memcpy(t.raw(), at, size_t(bytes));
  // The copy is what stays resident. Views of neighbouring bytes may still be wanted when running.
  if (policy.views)
    file->done_with(offset, size_t(bytes));
  else
    file->done_with_pages_of(offset, size_t(bytes));
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

// 8-bit floats in int32_data carry their bit patterns, one per value.
template <class T>
void copy_bits8(const google::protobuf::RepeatedField<int32_t>& field, Tensor& t) {
  T* dst = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i].bits = uint8_t(field.Get(int(i)));
}

// The typed fields (float_data, int64_data...): the total count must match before anything is
// allocated, and the values must sit in the field the dtype uses.
Tensor from_typed_fields(const onnx::TensorProto& proto, DType dtype,
                         const std::vector<int64_t>& dims, int64_t numel, bool read,
                         const std::string& what) {
  const int64_t available = proto.float_data_size() + proto.int32_data_size() +
                            proto.int64_data_size() + proto.double_data_size() +
                            proto.uint64_data_size();
  const int64_t needed = packed_bits(dtype) ? packed_count(dtype, numel) : numel;
  if (available != needed)
    fail("{}: holds {} values but its shape needs {}", what, available, needed);
  if (!read) return Tensor();
  if (packed_bits(dtype)) {
    if (proto.int32_data_size() != needed) fail("{}: packed integers must be in int32_data", what);
    std::vector<uint8_t> packed(static_cast<size_t>(needed));
    for (int64_t i = 0; i < needed; ++i) packed[size_t(i)] = uint8_t(proto.int32_data(int(i)));
    return unpack_ints(dtype, dims, packed.data());
  }
  Tensor t = Tensor::zeros(dtype, dims);
  if (is_float8(dtype)) {
    if (proto.int32_data_size() != numel) fail("{}: 8-bit floats must be in int32_data", what);
    copy_bits8<f8e4m3fn>(proto.int32_data(), t);  // bits only: the format does not matter
    return t;
  }
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

// Strings live in string_data, one entry per element (never raw or external).
LoadedTensor read_strings(const onnx::TensorProto& proto, const std::string& what) {
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.has_raw_data())
    fail("{}: string tensors must hold their values in string_data", what);
  LoadedTensor t;
  t.dtype = DType::kString;
  t.dims.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : t.dims)
    if (d < 0) fail("{}: dimension {} is negative", what, d);
  int64_t numel = 1;
  try {
    numel = checked_numel(t.dims);
  } catch (const Error&) {
    fail("{}: shape is too large", what);
  }
  if (proto.string_data_size() != numel)
    fail("{}: holds {} strings but its shape needs {}", what, proto.string_data_size(), numel);
  Tensor data = Tensor::zeros(DType::kString, t.dims);
  for (int64_t i = 0; i < numel; ++i) data.data<std::string>()[i] = proto.string_data(int(i));
  t.data = std::move(data);
  return t;
}

}  // namespace

TensorReader::TensorReader(std::shared_ptr<const MappedFile> model_file, std::string model_dir)
    : model_file_(std::move(model_file)), model_dir_(std::move(model_dir)) {}

const TensorReader::ExternalFile& TensorReader::external_file(const std::string& location,
                                                              const std::string& what,
                                                              const ReadPolicy& policy) {
  if (auto it = external_.find(location); it != external_.end()) {
    if (!it->second.file && !policy.tolerate_missing_external)
      fail("{}: external data file '{}' does not exist", what, it->second.path);
    return it->second;
  }
  const std::optional<fs::path> path = resolve_external(location, model_dir_, what);
  ExternalFile entry{(fs::path(model_dir_) / location).string(), nullptr};
  if (path) {
    entry.file = MappedFile::open(path->string(), "external data", /*allow_empty=*/true);
  } else {
    if (!policy.tolerate_missing_external)
      fail("{}: external data file '{}' does not exist", what, entry.path);
    warnings_.push_back(fmt::format(
        "{}: external data file '{}' does not exist; the tensors it holds are loaded without data",
        what, entry.path));
  }
  return external_.emplace(location, std::move(entry)).first->second;
}

// Checks the external file holds the tensor's bytes before allocating anything, then views or
// copies them.
LoadedTensor TensorReader::read_external(const onnx::TensorProto& proto, LoadedTensor t,
                                         int64_t bytes, const std::string& what,
                                         const ReadPolicy& policy) {
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
  const ExternalFile& external = external_file(location, what, policy);
  if (offset < 0) fail("{}: external data offset {} is negative", what, offset);
  if (length >= 0 && length != bytes)
    fail("{}: external data length {} does not match its shape ({} bytes)", what, length, bytes);
  if (!external.file) return t;  // missing, tolerated: dtype and shape only
  const uint64_t file_size = external.file->size();
  if (uint64_t(offset) > file_size || uint64_t(bytes) > file_size - uint64_t(offset))
    fail("{}: external data needs bytes {}..{} but '{}' has only {} bytes", what, offset,
         offset + bytes, location, file_size);
  if (bytes <= policy.max_bytes)
    t.data = tensor_at(external.file, size_t(offset), t.dtype, t.dims, bytes, policy);
  return t;
}

LoadedTensor TensorReader::read(const onnx::TensorProto& proto, std::optional<std::string_view> raw,
                                const std::string& what, const ReadPolicy& policy) {
  LoadedTensor t;
  if (proto.data_type() == onnx::TensorProto::STRING) return read_strings(proto, what);
  if (!dtype_from_onnx(proto.data_type(), &t.dtype))
    fail("{}: data type {} is not supported", what, proto.data_type());
  t.dims.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : t.dims)
    if (d < 0) fail("{}: dimension {} is negative", what, d);
  int64_t numel = 1;
  int64_t bytes = 0;
  try {
    numel = checked_numel(t.dims);
    bytes = file_bytes(t.dtype, numel);
  } catch (const Error&) {
    fail("{}: shape is too large", what);
  }
  const bool read_data = bytes <= policy.max_bytes;

  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return read_external(proto, std::move(t), bytes, what, policy);
  if (!raw && !proto.has_raw_data()) {
    Tensor typed = from_typed_fields(proto, t.dtype, t.dims, numel, read_data, what);
    if (read_data) t.data = std::move(typed);
    return t;
  }
  const std::string_view bytes_found = raw ? *raw : std::string_view(proto.raw_data());
  if (int64_t(bytes_found.size()) != bytes)
    fail("{}: raw data has {} bytes but its shape needs {}", what, bytes_found.size(), bytes);
  if (!read_data) return t;
  if (raw) {
    if (!model_file_) fail_internal("{}: raw bytes given without the model file", what);
    t.data = tensor_at(model_file_, size_t(raw->data() - model_file_->bytes().data()), t.dtype,
                       t.dims, bytes, policy);
  } else if (packed_bits(t.dtype)) {
    t.data = unpack_ints(t.dtype, t.dims, reinterpret_cast<const uint8_t*>(bytes_found.data()));
  } else {  // bytes owned by `proto`, which may die before the tensor: copy
    t.data = Tensor::zeros(t.dtype, t.dims);
    if (bytes) std::memcpy(t.data->raw(), bytes_found.data(), size_t(bytes));
  }
  return t;
}
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                         const std::string& what) {
  return TensorReader(nullptr, model_dir).read_all(proto, what);
}

Tensor read_tensor_pb(const std::string& path) {
  const std::shared_ptr<const MappedFile> file = MappedFile::open(path, "a tensor file");
  onnx::TensorProto proto;
  if (file->size() > INT32_MAX || !proto.ParseFromArray(file->bytes().data(), int(file->size())))
    fail("{}: not a valid ONNX TensorProto (truncated or another format)", path);
  return tensor_from_proto(proto, "", path);
}

namespace {

void fill_tensor_proto(const Tensor& t, const std::string& name, onnx::TensorProto& proto) {
  if (!t.is_tensor())
    fail("'{}': a {} inside a tensor's place cannot be written", name, value_kind_name(t.kind()));
  if (dtype_size(t.dtype()) == 0 && t.dtype() != DType::kString)
    fail("tensor '{}': a {} tensor cannot be written as a TensorProto", name,
         dtype_name(t.dtype()));
  proto.set_name(name);
  proto.set_data_type(int(t.dtype()));  // DType follows TensorProto.DataType's numbering
  for (int64_t d : t.shape()) proto.add_dims(d);
  if (t.dtype() == DType::kString)
    for (int64_t i = 0; i < t.numel(); ++i) proto.add_string_data(t.data<std::string>()[i]);
  else if (packed_bits(t.dtype()))
    proto.set_raw_data(pack_ints(t));
  else
    proto.set_raw_data(t.raw(), t.nbytes());
}

void fill_optional_proto(const Tensor& value, const std::string& name, onnx::OptionalProto& proto);

// A sequence's items: tensors, sequences or optionals, all of one kind (ONNX's elem_type).
void fill_sequence_proto(const Tensor& value, const std::string& name, onnx::SequenceProto& proto) {
  proto.set_name(name);
  const std::vector<Tensor>& items = value.items();
  const ValueKind kind = items.empty() ? ValueKind::kTensor : items[0].kind();
  for (const Tensor& item : items)
    if (item.kind() != kind) fail("sequence '{}' mixes tensors and lists", name);
  switch (kind) {
    case ValueKind::kTensor:
      proto.set_elem_type(onnx::SequenceProto::TENSOR);
      for (const Tensor& item : items) fill_tensor_proto(item, "", *proto.add_tensor_values());
      break;
    case ValueKind::kSequence:
      proto.set_elem_type(onnx::SequenceProto::SEQUENCE);
      for (const Tensor& item : items) fill_sequence_proto(item, "", *proto.add_sequence_values());
      break;
    case ValueKind::kOptional:
      proto.set_elem_type(onnx::SequenceProto::OPTIONAL);
      for (const Tensor& item : items) fill_optional_proto(item, "", *proto.add_optional_values());
      break;
  }
}

void fill_optional_proto(const Tensor& value, const std::string& name, onnx::OptionalProto& proto) {
  proto.set_name(name);
  if (value.items().empty()) return;  // none: no elem_type, no value
  const Tensor& item = value.items()[0];
  if (item.is_tensor()) {
    proto.set_elem_type(onnx::OptionalProto::TENSOR);
    fill_tensor_proto(item, "", *proto.mutable_tensor_value());
  } else if (item.kind() == ValueKind::kSequence) {
    proto.set_elem_type(onnx::OptionalProto::SEQUENCE);
    fill_sequence_proto(item, "", *proto.mutable_sequence_value());
  } else {
    fail("optional '{}' holds an optional, which ONNX files cannot hold here", name);
  }
}

template <class Proto>
std::string serialized(const Proto& proto, const std::string& name) {
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) fail("'{}' is too large for an ONNX file (2 GiB)", name);
  return bytes;
}

}  // namespace

std::string serialize_tensor_pb(const Tensor& t, const std::string& name) {
  onnx::TensorProto proto;
  fill_tensor_proto(t, name, proto);
  return serialized(proto, name);
}

std::string serialize_value_pb(const Tensor& value, const std::string& name) {
  switch (value.kind()) {
    case ValueKind::kSequence: {
      onnx::SequenceProto proto;
      fill_sequence_proto(value, name, proto);
      return serialized(proto, name);
    }
    case ValueKind::kOptional: {
      onnx::OptionalProto proto;
      fill_optional_proto(value, name, proto);
      return serialized(proto, name);
    }
    case ValueKind::kTensor: break;
  }
  return serialize_tensor_pb(value, name);
}

namespace {

Tensor value_from_sequence(const onnx::SequenceProto& proto, DType declared,
                           const std::string& what, int depth);

// An OptionalProto as an optional value (elem_type: 1 tensor, 3 sequence; none when unset).
Tensor value_from_optional(const onnx::OptionalProto& proto, DType declared,
                           const std::string& what, int depth) {
  std::vector<Tensor> items;
  if (proto.has_tensor_value())
    items.push_back(tensor_from_proto(proto.tensor_value(), "", what));
  else if (proto.has_sequence_value())
    items.push_back(value_from_sequence(proto.sequence_value(), declared, what, depth + 1));
  else if (proto.has_map_value() || proto.has_sparse_tensor_value() || proto.has_optional_value())
    fail("{}: an optional of maps, sparse tensors or optionals is not supported", what);
  const DType elem = items.empty() ? declared : items[0].dtype();
  return Tensor::optional(elem, std::move(items));
}

Tensor value_from_sequence(const onnx::SequenceProto& proto, DType declared,
                           const std::string& what, int depth) {
  if (depth > 8) fail("{}: sequences nested too deep", what);
  if (proto.map_values_size() || proto.sparse_tensor_values_size())
    fail("{}: a sequence of maps or sparse tensors is not supported", what);
  std::vector<Tensor> items;
  for (const auto& t : proto.tensor_values()) items.push_back(tensor_from_proto(t, "", what));
  for (const auto& q : proto.sequence_values())
    items.push_back(value_from_sequence(q, declared, what, depth + 1));
  for (const auto& o : proto.optional_values())
    items.push_back(value_from_optional(o, declared, what, depth + 1));
  const DType elem = items.empty() ? declared : items[0].dtype();
  for (const Tensor& t : items)
    if (t.dtype() != elem) fail("{}: the sequence mixes element types", what);
  return Tensor::sequence(elem, std::move(items));
}

}  // namespace

Tensor read_value_pb(const std::string& path, ValueKind kind, DType declared) {
  if (kind == ValueKind::kTensor) return read_tensor_pb(path);
  const std::shared_ptr<const MappedFile> file = MappedFile::open(path, "a value file");
  if (file->size() > INT32_MAX) fail("{}: too large", path);
  if (kind == ValueKind::kSequence) {
    onnx::SequenceProto proto;
    if (!proto.ParseFromArray(file->bytes().data(), int(file->size())))
      fail("{}: not a valid ONNX SequenceProto (truncated or another format)", path);
    return value_from_sequence(proto, declared, path, 0);
  }
  onnx::OptionalProto proto;
  if (!proto.ParseFromArray(file->bytes().data(), int(file->size())))
    fail("{}: not a valid ONNX OptionalProto (truncated or another format)", path);
  return value_from_optional(proto, declared, path, 0);
}

}  // namespace strata::onnx_import
