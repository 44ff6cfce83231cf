// A graph fuzzer: the input bytes choose a small ONNX model (opset, typed inputs, constant
// operands, nodes whose ops come from the registry with attributes of the names ops read, If/Loop
// style subgraphs, initializers stored as external data) and the values of its inputs. The model
// goes the whole way a user's would: load with shape inference, the optimizer, prepare (folding,
// kernel choice, memory plan) and a run, under a small --max-memory and --timeout so that every
// size the bytes ask for meets a limit rather than the machine's memory.
#include <FuzzedDataProvider.h>
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "fuzz_guard.h"
#include "fuzz_targets.h"
#include "ops/op.h"
#include "passes/optimize.h"
#include "passes/specialize_inputs.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace {

using strata::DType;

constexpr int kTypes[] = {1, 1, 1, 7, 7, 6, 9, 2, 3, 10, 11, 16};  // f32 and i64 most often

// Attribute names the ops read, with the kind each takes (onnx::AttributeProto::AttributeType).
struct AttrKind {
  const char* name;
  int type;
};
constexpr AttrKind kAttrs[] = {
    {"axis", 2},
    {"axes", 7},
    {"keepdims", 2},
    {"perm", 7},
    {"to", 2},
    {"kernel_shape", 7},
    {"strides", 7},
    {"pads", 7},
    {"dilations", 7},
    {"group", 2},
    {"alpha", 1},
    {"beta", 1},
    {"epsilon", 1},
    {"transA", 2},
    {"transB", 2},
    {"mode", 3},
    {"value", 4},
    {"then_branch", 5},
    {"else_branch", 5},
    {"body", 5},
    {"direction", 3},
    {"hidden_size", 2},
    {"largest", 2},
    {"sorted", 2},
    {"select_last_index", 2},
    {"noop_with_empty_axes", 2},
    {"batch_dims", 2},
    {"reduction", 3},
    {"auto_pad", 3},
    {"ceil_mode", 2},
    {"count_include_pad", 2},
    {"coordinate_transformation_mode", 3},
    {"split", 7},
    {"num_outputs", 2},
    {"exclusive", 2},
    {"reverse", 2},
    {"upper", 2},
    {"center_point_box", 2},
    {"dtype", 2},
    {"equation", 3},
    {"start", 2},
    {"end", 2},
    {"blocksize", 2},
    {"layout", 2},
    {"p", 2},
    {"size", 2},
    {"bias", 1},
    {"lambd", 1},
    {"gamma", 1},
    {"num_scan_inputs", 2},
    {"scan_input_axes", 7},
    {"scan_output_axes", 7},
    {"output_padding", 7},
    {"output_shape", 7},
    {"value_ints", 7},
    {"value_float", 1},
    {"value_int", 2},
    {"allowzero", 2},
    {"saturate", 2},
    {"sample_size", 2},
    {"output_dtype", 2},
    {"fmod", 2},
    {"stash_type", 2},
    {"seed", 1},
    {"nearest_mode", 3},
    {"cubic_coeff_a", 1},
    {"exclude_outside", 2},
    {"extrapolation_value", 1},
    {"align_corners", 2},
    {"padding_mode", 3},
    {"min", 1},
    {"max", 1},
    {"activations", 8},
    {"clip", 1},
    {"linear_before_reset", 2},
    {"input_forget", 2},
    {"spatial_scale", 1},
    {"sampling_ratio", 2},
    {"output_height", 2},
    {"output_width", 2},
    {"keep_aspect_ratio_policy", 3},
    {"antialias", 2},
};
const char* const kStrings[] = {"constant",
                                "reflect",
                                "edge",
                                "wrap",
                                "nearest",
                                "linear",
                                "cubic",
                                "DCR",
                                "CRD",
                                "forward",
                                "reverse",
                                "bidirectional",
                                "add",
                                "mul",
                                "none",
                                "max",
                                "min",
                                "SAME_UPPER",
                                "VALID",
                                "NOTSET",
                                "half_pixel",
                                "align_corners",
                                "asymmetric",
                                "ij,jk->ik",
                                "i,i",
                                "...ii->...i",
                                "bij,bjk->bik",
                                "Relu",
                                "Tanh",
                                "Sigmoid",
                                "round_prefer_floor",
                                "floor",
                                "zeros",
                                "border"};

class GraphMaker {
 public:
  explicit GraphMaker(FuzzedDataProvider& in) : in_(in) {}

  // The main graph's inputs, their types and shapes.
  struct Input {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
  };
  std::vector<Input> inputs;

  void make(onnx::ModelProto& model) {
    model.set_ir_version(8);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(in_.ConsumeIntegralInRange<int64_t>(11, 21));
    onnx::GraphProto& g = *model.mutable_graph();
    g.set_name("fuzz");
    std::vector<std::string> values;
    const int n_inputs = in_.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < n_inputs; ++i) {
      Input input{"in" + std::to_string(i), DType(pick(kTypes)), {}};
      const int rank = in_.ConsumeIntegralInRange(0, 4);
      for (int d = 0; d < rank; ++d) input.shape.push_back(in_.ConsumeIntegralInRange(0, 4));
      auto* vi = g.add_input();
      vi->set_name(input.name);
      auto* tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(int(input.dtype));
      auto* shape = tt->mutable_shape();
      for (int64_t d : input.shape) shape->add_dim()->set_dim_value(d);
      values.push_back(input.name);
      inputs.push_back(std::move(input));
    }
    const int n_constants = in_.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < n_constants; ++i) {
      onnx::TensorProto& t = *g.add_initializer();
      fill_tensor(t, "c" + std::to_string(i));
      values.push_back(t.name());
    }
    add_nodes(g, values, "n", 0, in_.ConsumeIntegralInRange(1, 8));
    const int n_outputs = in_.ConsumeIntegralInRange(1, 3);
    for (int i = 0; i < n_outputs && !values.empty(); ++i)
      g.add_output()->set_name(i == 0 ? values.back() : pick(values));
  }

  // Weights stored outside the model (the fuzz target writes them as weights.bin).
  std::string external;

 private:
  template <class T, size_t N>
  T pick(const T (&items)[N]) {
    return items[in_.ConsumeIntegralInRange<size_t>(0, N - 1)];
  }
  const std::string& pick(const std::vector<std::string>& items) {
    return items[in_.ConsumeIntegralInRange<size_t>(0, items.size() - 1)];
  }

  // A small tensor: i64 operands (axes, shapes, pads, indices) most often, small values.
  void fill_tensor(onnx::TensorProto& t, const std::string& name) {
    t.set_name(name);
    const int type = in_.ConsumeBool() ? 7 : pick(kTypes);
    t.set_data_type(type);
    const int rank = in_.ConsumeIntegralInRange(0, 2);
    int64_t numel = 1;
    for (int d = 0; d < rank; ++d) {
      const int64_t dim = in_.ConsumeIntegralInRange(0, 4);
      t.add_dims(dim);
      numel *= dim;
    }
    std::string raw;
    for (int64_t i = 0; i < numel; ++i) {
      const int64_t v = in_.ConsumeIntegralInRange<int64_t>(-2, 6);
      if (type == 1) {
        const float f = float(v) * 0.5f;
        raw.append(reinterpret_cast<const char*>(&f), sizeof f);
      } else if (type == 7) {
        raw.append(reinterpret_cast<const char*>(&v), sizeof v);
      } else {  // the other types: raw bytes of the element size (bool masked to 0 or 1)
        const size_t size = strata::dtype_size(DType(type));
        for (size_t b = 0; b < size; ++b)
          raw.push_back(char(type == 9 ? (b == 0 ? v & 1 : 0) : in_.ConsumeIntegral<uint8_t>()));
      }
    }
    if (in_.ConsumeIntegralInRange(0, 7) == 0) {  // sometimes as external data
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      auto entry = [&](const char* key, const std::string& value) {
        auto* e = t.add_external_data();
        e->set_key(key);
        e->set_value(value);
      };
      entry("location", "weights.bin");
      entry("offset", std::to_string(external.size()));
      entry("length", std::to_string(raw.size()));
      external += raw;
    } else {
      t.set_raw_data(raw);
    }
  }

  void add_attribute(onnx::NodeProto& node, const std::vector<std::string>& values,
                     const std::string& prefix, int depth) {
    const AttrKind kind = pick(kAttrs);
    auto* a = node.add_attribute();
    a->set_name(kind.name);
    switch (kind.type) {
      case 1:
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(float(in_.ConsumeIntegralInRange(-8, 8)) * 0.25f);
        break;
      case 2:
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(in_.ConsumeIntegralInRange<int64_t>(-3, 16));
        break;
      case 3:
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(pick(kStrings));
        break;
      case 4:
        a->set_type(onnx::AttributeProto::TENSOR);
        fill_tensor(*a->mutable_t(), "");
        break;
      case 5: {
        a->set_type(onnx::AttributeProto::GRAPH);
        onnx::GraphProto& body = *a->mutable_g();
        body.set_name(prefix + "_" + kind.name);
        std::vector<std::string> scope = values;  // a body reads outer values by name
        const int n_in = in_.ConsumeIntegralInRange(0, 3);
        for (int i = 0; i < n_in; ++i) {
          auto* vi = body.add_input();
          vi->set_name(prefix + "_b" + std::to_string(i));
          if (in_.ConsumeBool()) {
            auto* tt = vi->mutable_type()->mutable_tensor_type();
            tt->set_elem_type(i == 0 ? 7 : i == 1 ? 9 : pick(kTypes));
            if (i < 2) tt->mutable_shape();  // Loop's iteration count and condition: scalars
          }
          scope.push_back(vi->name());
        }
        if (depth < 3)
          add_nodes(body, scope, prefix + "_g", depth + 1, in_.ConsumeIntegralInRange(0, 3));
        const int n_out = in_.ConsumeIntegralInRange(1, 3);
        for (int i = 0; i < n_out && !scope.empty(); ++i)
          body.add_output()->set_name(i == 0 ? scope.back() : pick(scope));
        break;
      }
      case 7: {
        a->set_type(onnx::AttributeProto::INTS);
        const int n = in_.ConsumeIntegralInRange(0, 6);
        for (int i = 0; i < n; ++i) a->add_ints(in_.ConsumeIntegralInRange<int64_t>(-2, 5));
        break;
      }
      default: {
        a->set_type(onnx::AttributeProto::STRINGS);
        const int n = in_.ConsumeIntegralInRange(0, 3);
        for (int i = 0; i < n; ++i) a->add_strings(pick(kStrings));
        break;
      }
    }
  }

  void add_nodes(onnx::GraphProto& g, std::vector<std::string>& values, const std::string& prefix,
                 int depth, int count) {
    const std::vector<std::string_view>& ops = strata::ops::supported_ops();
    for (int n = 0; n < count && in_.remaining_bytes() > 0; ++n) {
      onnx::NodeProto& node = *g.add_node();
      const std::string name = prefix + std::to_string(n);
      node.set_name(name);
      node.set_op_type(std::string(ops[in_.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)]));
      const int n_in = in_.ConsumeIntegralInRange(0, 4);
      for (int i = 0; i < n_in; ++i)
        node.add_input(values.empty() || in_.ConsumeIntegralInRange(0, 9) == 0 ? "" : pick(values));
      const int n_attrs = in_.ConsumeIntegralInRange(0, 3);
      for (int i = 0; i < n_attrs; ++i) add_attribute(node, values, name, depth);
      const int n_out = in_.ConsumeIntegralInRange(1, 3);
      for (int i = 0; i < n_out; ++i) {
        node.add_output(name + "_o" + std::to_string(i));
        values.push_back(node.output(i));
      }
    }
  }

  FuzzedDataProvider& in_;
};

// The tensor of one graph input, its bytes from the fuzzer (floats and ints kept small).
strata::Tensor make_input(FuzzedDataProvider& in, const GraphMaker::Input& spec) {
  strata::Tensor t = strata::Tensor::zeros(spec.dtype, spec.shape);
  auto* bytes = static_cast<uint8_t*>(t.raw());
  const size_t size = strata::dtype_size(spec.dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int8_t v = int8_t(in.ConsumeIntegralInRange(-4, 8));
    uint8_t* e = bytes + size_t(i) * size;
    switch (spec.dtype) {
      case DType::kF32: {
        const float f = float(v) * 0.5f;
        std::memcpy(e, &f, sizeof f);
        break;
      }
      case DType::kF64: {
        const double d = double(v) * 0.5;
        std::memcpy(e, &d, sizeof d);
        break;
      }
      case DType::kI64: {
        const int64_t x = v;
        std::memcpy(e, &x, sizeof x);
        break;
      }
      case DType::kI32: {
        const int32_t x = v;
        std::memcpy(e, &x, sizeof x);
        break;
      }
      case DType::kBool: *e = uint8_t(v & 1); break;
      default:
        for (size_t b = 0; b < size; ++b) e[b] = b == 0 ? uint8_t(v) : 0;
    }
  }
  return t;
}

}  // namespace

namespace strata::fuzz {

void graph_one(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  GraphMaker maker(in);
  onnx::ModelProto model;
  maker.make(model);
  write_scratch("weights.bin", maker.external);
  const std::string path = write_scratch("model.onnx", model.SerializeAsString());
  std::vector<Tensor> inputs;
  for (const GraphMaker::Input& spec : maker.inputs) inputs.push_back(make_input(in, spec));
  const bool optimize = in.ConsumeBool();
  const bool fast_kernels = in.ConsumeBool();
  guarded([&] {
    runtime::Model loaded = runtime::load_model(path);
    std::vector<runtime::InputSpec> specs;
    std::vector<const Tensor*> pointers;
    for (const Tensor& t : inputs) {
      specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
      pointers.push_back(&t);
    }
    if (optimize) {
      std::vector<std::vector<int64_t>> shapes;
      for (const Tensor& t : inputs) shapes.push_back(t.shape());
      passes::specialize_inputs(loaded.graph, shapes);
      (void)passes::optimize_graph(loaded.graph);
    }
    runtime::SessionOptions options;
    options.max_memory_bytes = int64_t(64) << 20;  // far below libFuzzer's -malloc_limit_mb
    options.timeout_seconds = 2;
    options.fast_kernels = fast_kernels;
    runtime::Session session(loaded.graph, specs, options);
    session.run(pointers);
  });
}

}  // namespace strata::fuzz

STRATA_FUZZ_TARGET(graph_one)
