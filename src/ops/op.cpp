#include "ops/op.h"

#include <algorithm>

namespace strata::ops {

namespace {
const char* kind_name(ir::Attribute::Kind kind) {
  switch (kind) {
    case ir::Attribute::Kind::kFloat: return "a float";
    case ir::Attribute::Kind::kInt: return "an int";
    case ir::Attribute::Kind::kString: return "a string";
    case ir::Attribute::Kind::kTensor: return "a tensor";
    case ir::Attribute::Kind::kFloats: return "a list of floats";
    case ir::Attribute::Kind::kInts: return "a list of ints";
    case ir::Attribute::Kind::kStrings: return "a list of strings";
    case ir::Attribute::Kind::kGraph: return "a graph";
    case ir::Attribute::Kind::kType: return "a type";
    default: return "an unknown kind";
  }
}
}  // namespace

const Tensor* NodeInfo::constant_input(size_t i) const {
  if (!has_input(i)) return nullptr;
  return graph_.values[size_t(node_.inputs[i])].constant.get();
}

int NodeInfo::count_attrs(std::initializer_list<std::string_view> names) const {
  int count = 0;
  for (const auto& [name, attribute] : node_.attributes)
    count += std::find(names.begin(), names.end(), name) != names.end() ? 1 : 0;
  return count;
}

const ir::Attribute* NodeInfo::find(const char* name, ir::Attribute::Kind kind) const {
  auto it = node_.attributes.find(name);
  if (it == node_.attributes.end()) return nullptr;
  if (it->second.kind != kind)
    fail("attribute '{}' must be {}, not {}", name, kind_name(kind), kind_name(it->second.kind));
  return &it->second;
}

int64_t NodeInfo::attr_int(const char* name, int64_t fallback) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kInt);
  return a ? a->i : fallback;
}

float NodeInfo::attr_float(const char* name, float fallback) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kFloat);
  return a ? a->f : fallback;
}

std::string NodeInfo::attr_string(const char* name, std::string fallback) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kString);
  return a ? a->s : fallback;
}

std::vector<int64_t> NodeInfo::attr_ints(const char* name, std::vector<int64_t> fallback) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kInts);
  return a ? a->ints : fallback;
}

std::vector<float> NodeInfo::attr_floats(const char* name, std::vector<float> fallback) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kFloats);
  return a ? a->floats : fallback;
}

std::vector<std::string> NodeInfo::attr_strings(const char* name) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kStrings);
  return a ? a->strings : std::vector<std::string>{};
}

const Tensor* NodeInfo::attr_tensor(const char* name) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kTensor);
  return a ? &a->t : nullptr;
}

const ir::Graph& NodeInfo::required_graph(const char* name) const {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kGraph);
  if (!a) fail("required attribute '{}' is missing", name);
  if (!a->graph) fail("attribute '{}' must be one graph", name);
  return *a->graph;
}

const ir::Attribute* NodeInfo::attr_type(const char* name) const {
  return find(name, ir::Attribute::Kind::kType);
}

const std::string& NodeInfo::input_name(size_t i) const {
  static const std::string kNone;
  return has_input(i) ? graph_.values[size_t(node_.inputs[i])].name : kNone;
}

int64_t NodeInfo::required_int(const char* name) const {
  if (!has_attr(name)) fail("required attribute '{}' is missing", name);
  return attr_int(name, 0);
}

std::vector<int64_t> NodeInfo::required_ints(const char* name) const {
  if (!has_attr(name)) fail("required attribute '{}' is missing", name);
  return attr_ints(name);
}

const Meta& InferContext::input(size_t i) const {
  if (!has_input(i)) fail("required input {} is missing", i);
  return *inputs_[i];
}

const Tensor& InferContext::value(size_t i) const {
  const Meta& m = input(i);
  if (!m.value) throw NotStatic{};
  return *m.value;
}

void InferContext::set_output(size_t i, DType dtype, Shape shape) {
  if (i >= outputs_.size()) return;  // optional output the node does not declare
  outputs_[i].dtype = dtype;
  outputs_[i].shape = std::move(shape);
}

void InferContext::set_list_output(size_t i, ValueKind kind, DType elem) {
  if (i >= outputs_.size()) return;
  outputs_[i].dtype = elem;
  outputs_[i].shape = Shape();
  outputs_[i].kind = kind;
}

void check_tensor_inputs(const Op& op, const std::vector<const Meta*>& inputs) {
  if (op.takes_lists()) return;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i] && inputs[i]->kind != ValueKind::kTensor)
      fail("input {} is a {}, but this op takes tensors", i, value_kind_name(inputs[i]->kind));
}

void InferContext::set_output_value(size_t i, Tensor value) {
  set_output_value(i, std::make_shared<const Tensor>(std::move(value)));
}

void InferContext::set_output_value(size_t i, std::shared_ptr<const Tensor> value) {
  if (i >= outputs_.size()) return;
  outputs_[i].dtype = value->dtype();
  outputs_[i].shape = Shape::of(value->shape());
  outputs_[i].kind = value->kind();
  outputs_[i].value = std::move(value);
}

namespace {
double numel_of(const Meta& m) {
  double n = 1;
  for (const Dim& d : m.shape.dims()) n *= double(d.value());
  return n;
}
}  // namespace

double CostContext::numel_in(size_t i) const {
  return has_input(i) ? numel_of(*inputs_[i]) : 0;
}
double CostContext::numel_out(size_t i) const {
  return i < outputs_.size() && outputs_[i].present() ? numel_of(outputs_[i]) : 0;
}
double CostContext::bytes_in(size_t i) const {
  return has_input(i) ? numel_in(i) * double(dtype_size(inputs_[i]->dtype)) : 0;
}
double CostContext::bytes_out(size_t i) const {
  return i < outputs_.size() ? numel_out(i) * double(dtype_size(outputs_[i].dtype)) : 0;
}
double CostContext::all_input_bytes() const {
  double b = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) b += bytes_in(i);
  return b;
}
double CostContext::all_output_bytes() const {
  double b = 0;
  for (size_t i = 0; i < outputs_.size(); ++i) b += bytes_out(i);
  return b;
}

std::optional<Cost> Op::cost(const CostContext&) const {
  return std::nullopt;
}

Cost elementwise_cost(const CostContext& ctx, double flops_per_element) {
  Cost c;
  c.flops = flops_per_element * ctx.numel_out(0);
  c.bytes_read = ctx.all_input_bytes();
  c.bytes_written = ctx.all_output_bytes();
  return c;
}

Cost data_movement_cost(const CostContext& ctx) {
  return elementwise_cost(ctx, 0);
}

}  // namespace strata::ops
