#include "onnx/loader.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "onnx/mapped_file.h"
#include "onnx/model_skeleton.h"
#include "onnx/tensor_proto.h"

namespace strata::onnx_import {

namespace {

// Most nodes one model may hold, its subgraphs' nodes included (ten times the largest unrolled
// exports seen); bigger models are refused while their nodes are read (docs/run.md).
constexpr int64_t kMaxNodes = 1'000'000;

bool is_default_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

class GraphBuilder {
 public:
  GraphBuilder(const std::string& path, TensorReader& tensors)
      : path_(path), tensors_(tensors), model_nodes_(&own_model_nodes_) {}

  ir::ValueId add_value(const std::string& name) {
    auto [it, inserted] = ids_.try_emplace(name, ir::ValueId(graph.values.size()));
    if (inserted) {
      ir::Value v;
      v.name = name;
      graph.values.push_back(std::move(v));
    }
    return it->second;
  }

  void read_type(const onnx::TypeProto& type, ir::Value& value, const char* role) {
    // A subgraph's inputs may leave their type out (Loop bodies): the node's inputs give it.
    if (depth_ > 0 && type.value_case() == onnx::TypeProto::VALUE_NOT_SET) return;
    if (type.has_sequence_type() || type.has_optional_type()) {
      // A list value: its kind and innermost element type (an optional may hold a sequence).
      value.kind = type.has_sequence_type() ? ValueKind::kSequence : ValueKind::kOptional;
      const onnx::TypeProto* elem = &type;
      for (int level = 0; level < 8 && !elem->has_tensor_type(); ++level) {
        if (elem->has_sequence_type())
          elem = &elem->sequence_type().elem_type();
        else if (elem->has_optional_type())
          elem = &elem->optional_type().elem_type();
        else
          break;
      }
      if (!elem->has_tensor_type())
        fail("{}: {} '{}' is a {} of maps or of nested lists, which strata does not support", path_,
             role, value.name, value_kind_name(value.kind));
      if (!dtype_from_onnx(elem->tensor_type().elem_type(), &value.dtype))
        fail("{}: {} '{}' has unsupported element type {}", path_, role, value.name,
             elem->tensor_type().elem_type());
      return;
    }
    if (!type.has_tensor_type())
      fail("{}: {} '{}' is not a tensor, sequence or optional (maps are not supported)", path_,
           role, value.name);
    const auto& tt = type.tensor_type();
    if (!dtype_from_onnx(tt.elem_type(), &value.dtype))
      fail("{}: {} '{}' has unsupported element type {}", path_, role, value.name, tt.elem_type());
    if (!tt.has_shape()) return;  // rank unknown: shape inference fills it
    Shape shape;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        if (d.dim_value() < 0)
          fail("{}: {} '{}' has a negative dimension", path_, role, value.name);
        shape.push_back(Dim(d.dim_value()));
      } else if (d.has_dim_param() && !d.dim_param().empty()) {
        shape.push_back(Dim::symbol(d.dim_param()));
      } else {
        shape.push_back(Dim::unknown());
      }
    }
    value.shape = std::move(shape);
    value.shape_known = true;
  }

  ir::Attribute read_attribute(const onnx::AttributeProto& a, const std::string& node_label) {
    ir::Attribute out;
    using K = ir::Attribute::Kind;
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT:
        out.kind = K::kFloat;
        out.f = a.f();
        break;
      case onnx::AttributeProto::INT:
        out.kind = K::kInt;
        out.i = a.i();
        break;
      case onnx::AttributeProto::STRING:
        out.kind = K::kString;
        out.s = a.s();
        break;
      case onnx::AttributeProto::TENSOR:
        out.kind = K::kTensor;
        // Attribute tensors (Constant values) are parsed with their node and always read.
        out.t = tensors_.read_all(
            a.t(), fmt::format("attribute '{}' of {} in {}", a.name(), node_label, path_));
        break;
      case onnx::AttributeProto::FLOATS:
        out.kind = K::kFloats;
        out.floats.assign(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::INTS:
        out.kind = K::kInts;
        out.ints.assign(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::STRINGS:
        out.kind = K::kStrings;
        out.strings.assign(a.strings().begin(), a.strings().end());
        break;
      case onnx::AttributeProto::GRAPH:
        out.kind = K::kGraph;
        out.graph = read_subgraph(a.g(), a.name(), node_label);
        break;
      case onnx::AttributeProto::GRAPHS: out.kind = K::kGraph; break;
      case onnx::AttributeProto::TYPE_PROTO: {
        out.kind = K::kType;
        ir::Value typed;  // read_type's checks, on a scratch value named after the attribute
        typed.name = a.name();
        read_type(a.tp(), typed, "type attribute");
        out.value_kind = typed.kind;
        out.dtype = typed.dtype;
        break;
      }
      default: out.kind = K::kOther; break;
    }
    return out;
  }

  // A subgraph (control-flow body) with its own values; names it reads but does not define
  // become its captures, and the node reading it gets them as implicit inputs (add_implicit).
  std::shared_ptr<const ir::Graph> read_subgraph(const onnx::GraphProto& gp,
                                                 const std::string& attribute,
                                                 const std::string& node_label) {
    if (depth_ + 1 > ir::kMaxSubgraphDepth)
      fail("{}: attribute '{}' of {} nests subgraphs {} deep, more than the {} strata accepts",
           path_, attribute, node_label, depth_ + 1, ir::kMaxSubgraphDepth);
    GraphBuilder body(path_, tensors_, depth_ + 1, *model_nodes_);
    body.graph.opset = graph.opset;
    body.graph.ir_version = graph.ir_version;
    body.graph.graph_name = gp.name();
    for (const auto& init : gp.initializer()) {
      const ir::ValueId id = body.add_value(init.name());
      ir::Value& v = body.graph.values[size_t(id)];
      if (v.is_initializer)
        fail("{}: initializer '{}' of the subgraph in {} is defined twice", path_, init.name(),
             node_label);
      v.constant = std::make_shared<const Tensor>(
          tensors_.read_all(init, fmt::format("{}: initializer '{}' of the subgraph in {}", path_,
                                              init.name(), node_label)));
      v.is_initializer = true;
      v.dtype = v.constant->dtype();
      v.shape = Shape::of(v.constant->shape());
      v.shape_known = true;
    }
    body.build(gp);
    for (ir::ValueId id : body.graph.captures)
      pending_captures_.push_back(body.graph.values[size_t(id)].name);
    return std::make_shared<const ir::Graph>(std::move(body.graph));
  }

  // Inputs, nodes, value_info and outputs of `gp` (the main graph's initializers are read before).
  void build(const onnx::GraphProto& gp);

  ir::Graph graph;

 private:
  GraphBuilder(const std::string& path, TensorReader& tensors, int depth, int64_t& model_nodes)
      : path_(path), tensors_(tensors), depth_(depth), model_nodes_(&model_nodes) {}

  // A name this graph reads without defining: an error in the main graph, a capture in a body.
  void check_defined(const std::string& name, const std::set<std::string>& produced,
                     const std::string& reader) {
    const ir::ValueId id = add_value(name);
    ir::Value& v = graph.values[size_t(id)];
    if (v.is_initializer || v.is_graph_input || v.is_captured || produced.count(name)) return;
    if (depth_ == 0)
      fail("{}: {} reads '{}', which no node, input or initializer defines", path_, reader, name);
    v.is_captured = true;
    graph.captures.push_back(id);
  }

  const std::string& path_;
  TensorReader& tensors_;
  int depth_ = 0;  // 0: the main graph
  int64_t own_model_nodes_ = 0;
  int64_t* model_nodes_;  // nodes read so far in the whole model (the main graph's counter)
  std::unordered_map<std::string, ir::ValueId> ids_;
  std::vector<std::string> pending_captures_;  // of the subgraphs of the node being read
};

void GraphBuilder::build(const onnx::GraphProto& gp) {
  ir::Graph& g = graph;
  const std::string& path = path_;
  for (const auto& in : gp.input()) {
    const ir::ValueId id = add_value(in.name());
    ir::Value& v = g.values[size_t(id)];
    if (v.is_initializer) continue;  // listed as an input too: a constant with a default
    if (v.is_graph_input) fail("{}: graph input '{}' is listed twice", path, in.name());
    read_type(in.type(), v, "input");
    v.is_graph_input = true;
    g.inputs.push_back(id);
  }

  // Nodes: check that every value is defined exactly once.
  *model_nodes_ += gp.node_size();
  if (*model_nodes_ > kMaxNodes)
    fail("{}: the model has more than {} nodes (subgraphs included), the most strata accepts", path,
         kMaxNodes);
  std::set<std::string> produced;
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& np = gp.node(i);
    ir::Node node;
    node.name = np.name().empty() ? fmt::format("{}_{}", np.op_type(), i) : np.name();
    node.op_type = np.op_type();
    node.domain = np.domain();
    const std::string label = fmt::format("{} node '{}'", node.op_type, node.name);
    pending_captures_.clear();
    for (const auto& a : np.attribute()) node.attributes[a.name()] = read_attribute(a, label);
    for (const auto& name : np.input())
      node.inputs.push_back(name.empty() ? ir::kNoValue : add_value(name));
    std::set<std::string> implicit;
    for (const std::string& name : pending_captures_)
      if (implicit.insert(name).second) node.inputs.push_back(add_value(name));
    node.implicit_inputs = implicit.size();
    for (int j = 0; j < np.output_size(); ++j) {
      // An omitted optional output still gets a value: kernels always have somewhere to write.
      const std::string name =
          np.output(j).empty() ? fmt::format("{}:unused_output_{}", node.name, j) : np.output(j);
      const ir::ValueId id = add_value(name);
      const ir::Value& v = g.values[size_t(id)];
      if (!produced.insert(name).second || v.is_initializer || v.is_graph_input)
        fail("{}: value '{}' is produced more than once ({} writes it again)", path, name, label);
      node.outputs.push_back(id);
    }
    g.nodes.push_back(std::move(node));
  }
  for (const ir::Node& node : g.nodes)
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue)
        check_defined(g.values[size_t(id)].name, produced,
                      fmt::format("{} node '{}'", node.op_type, node.name));

  // value_info: the exporter's declared types of intermediate values; shape inference keeps them
  // where its own rules cannot tell (data-dependent shapes).
  for (const auto& info : gp.value_info()) {
    const ir::ValueId id = add_value(info.name());
    ir::Value& v = g.values[size_t(id)];
    if (v.is_initializer || v.is_graph_input || !produced.count(info.name())) continue;
    if (info.has_type() &&
        ((info.type().has_tensor_type() && info.type().tensor_type().elem_type() != 0) ||
         info.type().has_sequence_type() || info.type().has_optional_type()))
      read_type(info.type(), v, "value_info");
  }
  for (const auto& out : gp.output()) {
    const ir::ValueId id = add_value(out.name());
    ir::Value& v = g.values[size_t(id)];
    if (!v.is_initializer && !v.is_graph_input && !v.is_captured && !produced.count(out.name())) {
      if (depth_ == 0) fail("{}: graph output '{}' is not produced by any node", path, out.name());
      check_defined(out.name(), produced, "");
    }
    if (!v.shape_known && out.has_type() &&
        ((out.type().has_tensor_type() && out.type().tensor_type().elem_type() != 0) ||
         out.type().has_sequence_type() || out.type().has_optional_type()))
      read_type(out.type(), v, "output");
    v.is_graph_output = true;
    g.outputs.push_back(id);
  }
  if (g.outputs.empty()) fail("{}: the graph has no outputs", path);
  try {
    ir::topological_sort(g);
  } catch (const Error& e) {  // a cycle: name the file, like every other check here
    throw Error(e.code(), fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace

LoadResult load_model(const std::string& path, const LoadOptions& options) {
  const std::shared_ptr<const MappedFile> file = MappedFile::open(path, "an ONNX model");
  // Not reading weights, pages the walk touches (each initializer's first and last bytes) are
  // released as it goes: the resident set stays near the size of the graph, not of the file.
  std::function<void(std::string_view)> release;
  if (!options.read_weights)
    release = [&](std::string_view done) {
      file->done_with_pages_of(size_t(done.data() - file->bytes().data()), done.size());
    };
  ModelSkeleton skeleton;
  if (!parse_model_skeleton(file->bytes(), skeleton, release))
    fail("{}: not a valid ONNX model (the file is truncated, corrupt or not ONNX)", path);
  const onnx::ModelProto& model = skeleton.model;
  if (!model.has_graph()) fail("{}: not a valid ONNX model (it has no graph)", path);
  if (model.ir_version() < 3)
    fail("{}: IR version {} is too old (strata reads IR 3 and later)", path, model.ir_version());
  if (options.read_weights) file->will_need(0, file->size());  // start reading ahead

  LoadResult result;
  const std::string parent = std::filesystem::path(path).parent_path().string();
  TensorReader tensors(file, parent.empty() ? std::string(".") : parent);
  GraphBuilder b(path, tensors);
  ir::Graph& g = b.graph;
  g.ir_version = model.ir_version();
  g.producer_name = model.producer_name();
  g.producer_version = model.producer_version();
  for (const auto& prop : model.metadata_props()) g.metadata[prop.key()] = prop.value();

  std::set<std::string> imported_domains;
  for (const auto& op : model.opset_import()) {
    imported_domains.insert(op.domain());
    if (is_default_domain(op.domain())) g.opset = op.version();
  }
  if (g.opset == 0) g.opset = kMinOpset;  // IR 3 files may omit the import
  if (g.opset > kMaxOpset)
    result.warnings.push_back(fmt::format(
        "{}: opset {} is newer than {}, the newest strata implements; ops are run with their "
        "opset-{} semantics",
        path, g.opset, kMaxOpset, kMaxOpset));
  if (g.opset < kMinOpset)
    result.warnings.push_back(fmt::format(
        "{}: opset {} is older than {}; legacy attributes are honoured where strata knows them",
        path, g.opset, kMinOpset));

  const onnx::GraphProto& gp = model.graph();
  g.graph_name = gp.name();
  ReadPolicy policy;
  if (!options.read_weights)
    policy = {kSmallInitializerBytes, /*tolerate_missing_external=*/true, /*views=*/false};
  for (InitializerSkeleton& init : skeleton.initializers) {
    const std::string& name = init.proto.name();
    const ir::ValueId id = b.add_value(name);
    ir::Value& v = g.values[size_t(id)];
    if (v.is_initializer) fail("{}: initializer '{}' is defined twice", path, name);
    LoadedTensor t = tensors.read(init.proto, init.raw_data,
                                  fmt::format("{}: initializer '{}'", path, name), policy);
    v.is_initializer = true;
    v.dtype = t.dtype;
    v.shape = Shape::of(t.dims);
    v.shape_known = true;
    if (t.data) v.constant = std::make_shared<const Tensor>(std::move(*t.data));
  }
  b.build(gp);
  result.graph = std::move(g);
  result.warnings.insert(result.warnings.end(), tensors.warnings().begin(),
                         tensors.warnings().end());
  return result;
}

}  // namespace strata::onnx_import
