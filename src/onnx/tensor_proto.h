// ONNX TensorProto → Tensor, with every size checked and external data confined to the model
// folder.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "onnx/mapped_file.h"

namespace onnx {
class TensorProto;
}

namespace strata::onnx_import {

// How much of a tensor's data to read.
struct ReadPolicy {
  // Tensors of more bytes keep their dtype and shape but no data (analysis mode).
  int64_t max_bytes = std::numeric_limits<int64_t>::max();
  // A missing external data file leaves its tensors without data, with one warning per file,
  // instead of failing.
  bool tolerate_missing_external = false;
  // Aligned data becomes views of the mapped file; false: everything read is copied and the
  // file's pages it touched are released, so nothing of the file stays resident (analysis).
  bool views = true;
};

// A tensor as a file describes it: dtype and shape always, data when it was read.
struct LoadedTensor {
  DType dtype = DType::kUndefined;
  std::vector<int64_t> dims;
  std::optional<Tensor> data;
};

// Reads the tensors of one model. Raw bytes lying in the mapped model file, and external data
// (each file mapped once), become read-only views of the mapping where their address suits the
// element type, copies otherwise; the views keep the mapping alive.
class TensorReader {
 public:
  // `model_dir` resolves external data ("" forbids it); `model_file` may be null (no raw ranges).
  TensorReader(std::shared_ptr<const MappedFile> model_file, std::string model_dir);

  // Converts `proto`. `raw`, when set, is the tensor's raw_data, left out of `proto` by the caller,
  // as bytes of the model file. `what` names the tensor in errors ("m.onnx: initializer 'w'").
  // Fails (exit 2) on anything malformed, before allocating.
  LoadedTensor read(const onnx::TensorProto& proto, std::optional<std::string_view> raw,
                    const std::string& what, const ReadPolicy& policy = {});

  // Converts a tensor whose bytes `proto` holds (or external data), reading all its data.
  Tensor read_all(const onnx::TensorProto& proto, const std::string& what) {
    return std::move(*read(proto, std::nullopt, what).data);
  }

  // One per missing external data file tolerated by the policy.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct ExternalFile {
    std::string path;                        // model folder / location, for messages
    std::shared_ptr<const MappedFile> file;  // null when the file is missing (and tolerated)
  };
  const ExternalFile& external_file(const std::string& location, const std::string& what,
                                    const ReadPolicy& policy);
  LoadedTensor read_external(const onnx::TensorProto& proto, LoadedTensor t, int64_t bytes,
                             const std::string& what, const ReadPolicy& policy);

  std::shared_ptr<const MappedFile> model_file_;
  std::string model_dir_;
  std::map<std::string, ExternalFile> external_;  // by location as written in the model
  std::vector<std::string> warnings_;
};

// Converts a TensorProto, copying its data. `model_dir` resolves external data ("" forbids it);
// `what` names the tensor in error messages ("initializer 'conv1.weight' in model.onnx").
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                         const std::string& what);

// Reads a serialized TensorProto file (.pb), as in ONNX test_data_set folders.
Tensor read_tensor_pb(const std::string& path);
// The same for a value of `kind`: a serialized SequenceProto or OptionalProto for the list kinds
// (`declared` is the element type of an empty one).
Tensor read_value_pb(const std::string& path, ValueKind kind, DType declared);

// `t` (plain layout) as the bytes of a serialized TensorProto named `name`, its data as raw_data,
// as ONNX test_data_set folders hold them. Fails (exit 2) naming the tensor for string tensors.
std::string serialize_tensor_pb(const Tensor& t, const std::string& name);
// Any value as read_value_pb reads it back: a TensorProto, or a SequenceProto or OptionalProto for
// the list kinds.
std::string serialize_value_pb(const Tensor& value, const std::string& name);

}  // namespace strata::onnx_import
