// Writing small ONNX model files for tests, with the protobuf classes the loader reads, and a
// scratch directory to put them in.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"

namespace strata::test {

// A fresh directory under the system temp folder, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::string path(const std::string& name) const { return (root_ / name).string(); }
  // Writes bytes to root/name (creating sub-folders) and returns the full path.
  std::string write(const std::string& name, std::string_view bytes) const;
  // Creates root/name as a folder and returns its path.
  std::string mkdir(const std::string& name) const;

 private:
  std::filesystem::path root_;
};

// One dimension of a graph input or output: a size, a named symbol ("N"), or unknown.
struct DimSpec {
  DimSpec(int64_t v) : value(v) {}                 // NOLINT: {1, "N", 3} reads naturally
  DimSpec(int v) : value(v) {}                     // NOLINT
  DimSpec(const char* p) : param(p) {}             // NOLINT
  DimSpec(std::string p) : param(std::move(p)) {}  // NOLINT
  static DimSpec unknown() { return DimSpec(std::string()); }
  int64_t value = -1;  // -1 with an empty param: neither set
  std::string param;
};

// The TensorProto of a tensor, its bytes in raw_data.
onnx::TensorProto to_proto(const Tensor& t, const std::string& name = "");
// Writes a serialized TensorProto file (.pb), as in ONNX test_data_set folders.
void write_tensor_pb(const std::string& path, const Tensor& t, const std::string& name = "");

// Attribute setters for nodes.
void set_attr(onnx::NodeProto& node, const std::string& name, int64_t value);
void set_attr(onnx::NodeProto& node, const std::string& name, float value);
void set_attr(onnx::NodeProto& node, const std::string& name, const std::string& value);
void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<float>& values);
void set_attr(onnx::NodeProto& node, const std::string& name, const Tensor& value);
// A subgraph attribute (If branches, Loop and Scan bodies); build it with a ModelBuilder's graph().
void set_attr(onnx::NodeProto& node, const std::string& name, const onnx::GraphProto& graph);

// Builds a ModelProto step by step. Every add_* returns the proto it added for further tweaks.
class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17, int64_t ir_version = 8);

  onnx::ModelProto& proto() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  // A typed graph input with a static or symbolic shape.
  onnx::ValueInfoProto& add_input(const std::string& name, DType dtype,
                                  const std::vector<DimSpec>& dims);
  // A typed graph input of unknown rank (no shape field).
  onnx::ValueInfoProto& add_input_unranked(const std::string& name, DType dtype);
  onnx::ValueInfoProto& add_output(const std::string& name, DType dtype,
                                   const std::vector<DimSpec>& dims);
  // An output with no type information.
  onnx::ValueInfoProto& add_output(const std::string& name);

  // Initializer with the tensor's bytes in raw_data.
  onnx::TensorProto& add_initializer(const std::string& name, const Tensor& value);
  // Initializer with float values in the typed float_data field.
  onnx::TensorProto& add_float_initializer(const std::string& name,
                                           const std::vector<int64_t>& dims,
                                           const std::vector<float>& values);
  // Initializer with int64 values in the typed int64_data field.
  onnx::TensorProto& add_int64_initializer(const std::string& name,
                                           const std::vector<int64_t>& dims,
                                           const std::vector<int64_t>& values);
  // Initializer whose data lives in an external file; offset/length < 0 leave the key out.
  onnx::TensorProto& add_external_initializer(const std::string& name, DType dtype,
                                              const std::vector<int64_t>& dims,
                                              const std::string& location, int64_t offset = -1,
                                              int64_t length = -1);

  onnx::NodeProto& add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs, const std::string& name = "");
  // A Constant node holding `value` in its 'value' attribute.
  onnx::NodeProto& add_constant(const std::string& output, const Tensor& value);

  void add_metadata(const std::string& key, const std::string& value);
  void set_opset(int64_t opset);

  std::string serialize() const;
  // Writes the model to `path` and returns the path.
  std::string save(const std::string& path) const;

 private:
  onnx::ModelProto model_;
};

}  // namespace strata::test
