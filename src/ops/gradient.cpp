// Gradient (ai.onnx.preview.training): the partial derivatives of the tensor named by 'y' with
// respect to the tensors named by 'xs', the gradient of y taken as all ones (the derivatives of
// the sum of y's elements). The node's inputs are the values of xs, then of zs (tensors y needs
// that are not differentiated). The op finds, in the enclosing graph, the nodes that compute y
// from xs, zs and constants; its kernel runs them forward with their reference kernels, then
// walks them backward with the rules of src/ops/backward_rules.cpp.
// Cost: each figure (MACs, FLOPs, bytes) three times the forward figures of those nodes (the
// forward pass recomputed, and a backward pass counted as twice the forward, one product per
// operand as for MatMul), plus the gradients written.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/backward_rules.h"
#include "ops/internal_ops.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

// One node of the forward path; its inputs and outputs are slots of GradientOp's value table.
struct Step {
  std::string op_type;
  std::unique_ptr<Op> op;
  std::vector<int> inputs;  // -1: an omitted optional input
  std::vector<int> outputs;
  bool differentiable = false;  // an input depends on xs
};

class GradientOp final : public Op {
 public:
  explicit GradientOp(const NodeInfo& node) {
    const std::vector<std::string> xs = node.attr_strings("xs"), zs = node.attr_strings("zs");
    const std::string y = node.attr_string("y");
    if (xs.empty()) fail("required attribute 'xs' is missing or empty");
    if (y.empty()) fail("required attribute 'y' is missing");
    if (node.num_inputs() != xs.size() + zs.size())
      fail("it has {} inputs, but xs and zs name {} tensors (its inputs are xs, then zs)",
           node.num_inputs(), xs.size() + zs.size());
    if (node.num_outputs() != xs.size())
      fail("it has {} outputs, but xs names {} tensors (one gradient each)", node.num_outputs(),
           xs.size());
    for (size_t i = 0; i < node.num_inputs(); ++i) {
      const std::string& want = i < xs.size() ? xs[i] : zs[i - xs.size()];
      if (node.input_name(i) != want)
        fail("input {} is '{}', but {}[{}] is '{}' (its inputs are xs, then zs)", i,
             node.input_name(i), i < xs.size() ? "xs" : "zs", i < xs.size() ? i : i - xs.size(),
             want);
    }
    for (size_t i = 0; i < node.num_inputs(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (node.input_name(i) == node.input_name(j))
          fail("xs and zs name '{}' twice (each tensor is either differentiated or not, once)",
               node.input_name(i));
    num_xs_ = xs.size();
    const ir::Graph& graph = node.graph();
    for (size_t i = 0; i < node.num_inputs(); ++i) {
      slot_of_[graph.find_value(node.input_name(i))] = int(i);
      depends_.push_back(i < num_xs_);
    }
    constants_.resize(node.num_inputs());
    const ir::ValueId target = graph.find_value(y);
    if (target == ir::kNoValue) fail("attribute 'y' names '{}', which the graph does not have", y);
    y_slot_ = resolve(graph, target, y);
  }

  void infer(InferContext& ctx) const override {
    for (size_t i = 0; i < num_xs_; ++i)
      if (ctx.dtype(i) != DType::kF32 && ctx.dtype(i) != DType::kF64 && ctx.dtype(i) != DType::kF16)
        fail("input {} (an x) is {}; gradients are taken of float16, float or double tensors", i,
             dtype_name(ctx.dtype(i)));
    const std::vector<Meta> metas = path_metas(ctx);  // validates the path for these inputs
    if (!is_float(metas[size_t(y_slot_)].dtype))
      fail("its target y is {}, not a float tensor", dtype_name(metas[size_t(y_slot_)].dtype));
    for (size_t i = 0; i < num_xs_; ++i) ctx.set_output(i, ctx.dtype(i), ctx.shape(i));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    std::vector<const Meta*> in;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) in.push_back(&ctx.input(i));
    std::vector<Meta> outs(num_xs_);
    InferContext infer_ctx(in, outs);
    const std::vector<Meta> metas = path_metas(infer_ctx);
    Cost total;
    for (const Step& step : steps_) {
      std::vector<const Meta*> step_in;
      for (int s : step.inputs) step_in.push_back(s < 0 ? nullptr : &metas[size_t(s)]);
      std::vector<Meta> step_out;
      for (int s : step.outputs) step_out.push_back(metas[size_t(s)]);
      const std::optional<Cost> c = step.op->cost(CostContext(step_in, step_out));
      if (!c) return std::nullopt;
      total.macs += 3 * c->macs;
      total.flops += 3 * c->flops;
      total.bytes_read += 3 * c->bytes_read;
      total.bytes_written += 3 * c->bytes_written;
    }
    total.bytes_written += ctx.all_output_bytes();
    return total;
  }

  void run(KernelContext& ctx) const override {
    std::vector<Tensor> values(depends_.size());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) values[i] = ctx.input(i);
    for (size_t s = 0; s < constants_.size(); ++s)
      if (constants_[s]) values[s] = *constants_[s];
    for (const Step& step : steps_) {  // forward, with the nodes' reference kernels
      std::vector<Meta> in_metas(step.inputs.size());
      std::vector<const Meta*> in;
      std::vector<const Tensor*> in_tensors;
      for (size_t k = 0; k < step.inputs.size(); ++k) {
        const int s = step.inputs[k];
        if (s < 0) {
          in.push_back(nullptr);
          in_tensors.push_back(nullptr);
          continue;
        }
        const Tensor& t = values[size_t(s)];
        in_metas[k] = {t.dtype(), Shape::of(t.shape()),
                       std::shared_ptr<const Tensor>(std::shared_ptr<const Tensor>(), &t)};
        in.push_back(&in_metas[k]);
        in_tensors.push_back(&t);
      }
      std::vector<Meta> out_metas(step.outputs.size());
      InferContext infer_ctx(in, out_metas);
      step.op->infer(infer_ctx);
      std::vector<Tensor*> out_tensors;
      for (size_t j = 0; j < step.outputs.size(); ++j) {
        Tensor& t = values[size_t(step.outputs[j])];
        t = Tensor::zeros(out_metas[j].dtype, out_metas[j].shape.values());
        out_tensors.push_back(&t);
      }
      KernelContext kernel(in_tensors.data(), in_tensors.size(), out_tensors.data(),
                           out_tensors.size());
      step.op->run(kernel);
    }
    // Backward: the gradient of y is all ones; each step passes its output's gradient on.
    std::vector<std::optional<Array>> grads(values.size());
    Array seed = to_array(values[size_t(y_slot_)]);
    std::fill(seed.data.begin(), seed.data.end(), 1.0);
    grads[size_t(y_slot_)] = std::move(seed);
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
      const Step& step = *it;
      if (!step.differentiable || !grads[size_t(step.outputs[0])]) continue;
      std::vector<Array> in_arrays;
      in_arrays.reserve(step.inputs.size());
      std::vector<const Array*> in;
      std::vector<bool> wanted;
      for (int s : step.inputs) {
        in_arrays.push_back(s < 0 ? Array{} : to_array(values[size_t(s)]));
        wanted.push_back(s >= 0 && depends_[size_t(s)]);
      }
      for (const Array& a : in_arrays) in.push_back(&a);
      const Array y = to_array(values[size_t(step.outputs[0])]);
      std::vector<std::optional<Array>> g =
          backward(step.op_type, in, y, *grads[size_t(step.outputs[0])], wanted);
      for (size_t k = 0; k < g.size(); ++k) {
        if (!g[k]) continue;
        std::optional<Array>& acc = grads[size_t(step.inputs[k])];
        if (!acc) {
          acc = std::move(g[k]);
          continue;
        }
        for (size_t e = 0; e < acc->data.size(); ++e) acc->data[e] += g[k]->data[e];
      }
    }
    for (size_t i = 0; i < num_xs_; ++i) {
      Tensor& out = ctx.output(i);
      const std::optional<Array>& g = grads[i];
      visit_float(out.dtype(), [&](auto type) {
        using T = typename decltype(type)::type;
        T* dst = out.data<T>();
        for (int64_t e = 0; e < out.numel(); ++e) {
          const double v = g ? g->data[size_t(e)] : 0.0;
          if constexpr (std::is_same_v<T, double>)
            dst[e] = v;
          else
            dst[e] = T(float(v));  // float16 converts from float
        }
      });
    }
  }

 private:
  // The slot of value `target`, adding the nodes that compute it to the path, each after the
  // nodes computing its inputs. Depth-first with a stack of its own: a chain of many thousands of
  // nodes must not overflow the call stack.
  int resolve(const ir::Graph& graph, ir::ValueId target, const std::string& y) {
    struct Pending {
      ir::ValueId id;
      size_t next_input = 0;  // the producer's inputs before it are resolved
    };
    std::vector<Pending> stack = {{target}};
    std::set<ir::ValueId> on_stack = {target};
    while (!stack.empty()) {
      const ir::ValueId id = stack.back().id;
      const ir::Value& v = graph.values[size_t(id)];
      if (slot_of_.count(id) || v.constant) {
        if (!slot_of_.count(id)) {
          slot_of_[id] = int(depends_.size());
          depends_.push_back(false);
          constants_.push_back(v.constant);
        }
        on_stack.erase(id);
        stack.pop_back();
        continue;
      }
      if (v.producer < 0)
        fail("its target y ('{}') depends on '{}', which is neither among xs and zs nor a constant",
             y, v.name);
      const ir::Node& producer = graph.nodes[size_t(v.producer)];
      size_t& next = stack.back().next_input;
      while (next < producer.inputs.size() &&
             (producer.inputs[next] == ir::kNoValue || slot_of_.count(producer.inputs[next])))
        ++next;
      if (next < producer.inputs.size()) {
        const ir::ValueId in = producer.inputs[next];
        if (!on_stack.insert(in).second)
          fail("its target y ('{}') is computed in a cycle through '{}'", y,
               graph.values[size_t(in)].name);
        stack.push_back({in});
        continue;
      }
      add_step(graph, producer, y);
      on_stack.erase(id);
      stack.pop_back();
    }
    return slot_of_.at(target);
  }

  // Adds `producer`, whose inputs all have slots, to the path, with slots for its outputs.
  void add_step(const ir::Graph& graph, const ir::Node& producer, const std::string& y) {
    Step step;
    step.op_type = producer.op_type;
    for (ir::ValueId in : producer.inputs) {
      const int s = in == ir::kNoValue ? -1 : slot_of_.at(in);
      step.inputs.push_back(s);
      step.differentiable |= s >= 0 && depends_[size_t(s)];
    }
    if (step.differentiable && (!producer.domain.empty() || !has_backward_rule(producer.op_type)))
      fail(
          "cannot differentiate y ('{}') through {}: strata has no backward rule for {} (it has "
          "rules for {})",
          y, graph.describe(producer), producer.op_type, backward_rule_ops());
    const OpFactory factory = find_op_in_domain(producer.domain, producer.op_type);
    if (!factory)
      fail("its target y ('{}') needs {}, an op strata does not support", y,
           graph.describe(producer));
    step.op = factory(NodeInfo(graph, producer, graph.opset));
    if (step.op->runs_subgraphs())
      fail("its target y ('{}') is computed through {}, a node with subgraphs", y,
           graph.describe(producer));
    for (ir::ValueId out : producer.outputs) {
      const int s = int(depends_.size());
      depends_.push_back(step.differentiable);
      constants_.emplace_back();
      if (out != ir::kNoValue) slot_of_[out] = s;
      step.outputs.push_back(s);
    }
    steps_.push_back(std::move(step));
  }

  // The metas of every slot for the node's input metas: the path's shape rules, in order.
  std::vector<Meta> path_metas(const InferContext& ctx) const {
    std::vector<Meta> metas(depends_.size());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) metas[i] = ctx.input(i);
    for (size_t s = 0; s < constants_.size(); ++s)
      if (constants_[s])
        metas[s] = {constants_[s]->dtype(), Shape::of(constants_[s]->shape()), constants_[s]};
    for (const Step& step : steps_) {
      std::vector<const Meta*> in;
      for (int s : step.inputs) in.push_back(s < 0 ? nullptr : &metas[size_t(s)]);
      std::vector<Meta> out(step.outputs.size());
      InferContext step_ctx(in, out);
      step.op->infer(step_ctx);
      for (size_t j = 0; j < out.size(); ++j) metas[size_t(step.outputs[j])] = out[j];
    }
    return metas;
  }

  size_t num_xs_ = 0;
  int y_slot_ = 0;
  std::map<ir::ValueId, int> slot_of_;                    // graph value → slot
  std::vector<bool> depends_;                             // per slot: depends on xs
  std::vector<std::shared_ptr<const Tensor>> constants_;  // per slot: its value, if constant
  std::vector<Step> steps_;                               // the path, inputs before users
};

}  // namespace

std::unique_ptr<Op> make_gradient(const NodeInfo& node) {
  return std::make_unique<GradientOp>(node);
}

}  // namespace strata::ops
