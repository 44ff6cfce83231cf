#include "testutil/onnx_builder.h"

#include <stdlib.h>

#include <fstream>
#include <stdexcept>

namespace strata::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "strata_test_XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  root_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

std::string TempDir::write(const std::string& name, std::string_view bytes) const {
  const fs::path p = root_ / name;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
  return p.string();
}

std::string TempDir::mkdir(const std::string& name) const {
  const fs::path p = root_ / name;
  fs::create_directories(p);
  return p.string();
}

onnx::TensorProto to_proto(const Tensor& t, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(int(t.dtype()));
  for (int64_t d : t.shape()) proto.add_dims(d);
  proto.set_raw_data(std::string(static_cast<const char*>(t.raw()), t.nbytes()));
  return proto;
}

void write_tensor_pb(const std::string& path, const Tensor& t, const std::string& name) {
  std::ofstream out(path, std::ios::binary);
  out << to_proto(t, name).SerializeAsString();
  if (!out) throw std::runtime_error("cannot write " + path);
}

namespace {

onnx::AttributeProto& new_attr(onnx::NodeProto& node, const std::string& name,
                               onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto& a = *node.add_attribute();
  a.set_name(name);
  a.set_type(type);
  return a;
}

void fill_type(onnx::ValueInfoProto& info, const std::string& name, DType dtype,
               const std::vector<DimSpec>* dims) {
  info.set_name(name);
  auto* tensor_type = info.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(int(dtype));
  if (!dims) return;
  auto* shape = tensor_type->mutable_shape();
  for (const DimSpec& d : *dims) {
    auto* dim = shape->add_dim();
    if (!d.param.empty())
      dim->set_dim_param(d.param);
    else if (d.value != -1)
      dim->set_dim_value(d.value);  // a negative value other than -1 is written as given
  }
}

}  // namespace

void set_attr(onnx::NodeProto& node, const std::string& name, int64_t value) {
  new_attr(node, name, onnx::AttributeProto::INT).set_i(value);
}
void set_attr(onnx::NodeProto& node, const std::string& name, float value) {
  new_attr(node, name, onnx::AttributeProto::FLOAT).set_f(value);
}
void set_attr(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  new_attr(node, name, onnx::AttributeProto::STRING).set_s(value);
}
void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto& a = new_attr(node, name, onnx::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
}
void set_attr(onnx::NodeProto& node, const std::string& name, const std::vector<float>& values) {
  auto& a = new_attr(node, name, onnx::AttributeProto::FLOATS);
  for (float v : values) a.add_floats(v);
}
void set_attr(onnx::NodeProto& node, const std::string& name, const Tensor& value) {
  *new_attr(node, name, onnx::AttributeProto::TENSOR).mutable_t() = to_proto(value);
}

void set_attr(onnx::NodeProto& node, const std::string& name, const onnx::GraphProto& graph) {
  *new_attr(node, name, onnx::AttributeProto::GRAPH).mutable_g() = graph;
}

ModelBuilder::ModelBuilder(int64_t opset, int64_t ir_version) {
  model_.set_ir_version(ir_version);
  model_.set_producer_name("strata-tests");
  auto* import = model_.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model_.mutable_graph()->set_name("test_graph");
}

onnx::ValueInfoProto& ModelBuilder::add_input(const std::string& name, DType dtype,
                                              const std::vector<DimSpec>& dims) {
  onnx::ValueInfoProto& info = *graph().add_input();
  fill_type(info, name, dtype, &dims);
  return info;
}

onnx::ValueInfoProto& ModelBuilder::add_input_unranked(const std::string& name, DType dtype) {
  onnx::ValueInfoProto& info = *graph().add_input();
  fill_type(info, name, dtype, nullptr);
  return info;
}

onnx::ValueInfoProto& ModelBuilder::add_output(const std::string& name, DType dtype,
                                               const std::vector<DimSpec>& dims) {
  onnx::ValueInfoProto& info = *graph().add_output();
  fill_type(info, name, dtype, &dims);
  return info;
}

onnx::ValueInfoProto& ModelBuilder::add_output(const std::string& name) {
  onnx::ValueInfoProto& info = *graph().add_output();
  info.set_name(name);
  return info;
}

onnx::TensorProto& ModelBuilder::add_initializer(const std::string& name, const Tensor& value) {
  onnx::TensorProto& t = *graph().add_initializer();
  t = to_proto(value, name);
  return t;
}

onnx::TensorProto& ModelBuilder::add_float_initializer(const std::string& name,
                                                       const std::vector<int64_t>& dims,
                                                       const std::vector<float>& values) {
  onnx::TensorProto& t = *graph().add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

onnx::TensorProto& ModelBuilder::add_int64_initializer(const std::string& name,
                                                       const std::vector<int64_t>& dims,
                                                       const std::vector<int64_t>& values) {
  onnx::TensorProto& t = *graph().add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t.add_dims(d);
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

onnx::TensorProto& ModelBuilder::add_external_initializer(const std::string& name, DType dtype,
                                                          const std::vector<int64_t>& dims,
                                                          const std::string& location,
                                                          int64_t offset, int64_t length) {
  onnx::TensorProto& t = *graph().add_initializer();
  t.set_name(name);
  t.set_data_type(int(dtype));
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add_entry = [&](const char* key, const std::string& value) {
    auto* e = t.add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  add_entry("location", location);
  if (offset >= 0) add_entry("offset", std::to_string(offset));
  if (length >= 0) add_entry("length", std::to_string(length));
  return t;
}

onnx::NodeProto& ModelBuilder::add_node(const std::string& op_type,
                                        const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs,
                                        const std::string& name) {
  onnx::NodeProto& node = *graph().add_node();
  node.set_op_type(op_type);
  node.set_name(name);
  for (const std::string& in : inputs) node.add_input(in);
  for (const std::string& out : outputs) node.add_output(out);
  return node;
}

onnx::NodeProto& ModelBuilder::add_constant(const std::string& output, const Tensor& value) {
  onnx::NodeProto& node = add_node("Constant", {}, {output}, output + "_constant");
  set_attr(node, "value", value);
  return node;
}

void ModelBuilder::add_metadata(const std::string& key, const std::string& value) {
  auto* prop = model_.add_metadata_props();
  prop->set_key(key);
  prop->set_value(value);
}

void ModelBuilder::set_opset(int64_t opset) {
  model_.mutable_opset_import(0)->set_version(opset);
}

std::string ModelBuilder::serialize() const {
  return model_.SerializeAsString();
}

std::string ModelBuilder::save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  out << serialize();
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

}  // namespace strata::test
