#include "runtime/control_flow.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "core/checked.h"
#include "core/error.h"
#include "core/run_memory.h"
#include "ops/control_flow.h"
#include "ops/flex_attention.h"
#include "runtime/body_hooks.h"

namespace strata::runtime {

namespace {

// Body sessions kept per body; past this many distinct input shapes the oldest are dropped (a
// Loop whose carried values grow every iteration would otherwise keep one per iteration).
constexpr size_t kMaxSessionsPerBody = 8;

Tensor scalar_i64(int64_t v) {
  return Tensor::from<int64_t>({}, {v});
}

Tensor scalar_bool(bool v) {
  return Tensor::from<bool>({}, {v});
}

bool truth(const Tensor& t, const char* what) {
  if (t.numel() != 1) fail("{} must hold one value, not {}", what, t.numel());
  return t.to_int64()[0] != 0;
}

// Bytes before, along and after `axis` of a tensor of `shape` with `elem` bytes per element.
struct AxisSplit {
  int64_t outer = 1, length = 1, inner = 1;
};
AxisSplit split_at(const std::vector<int64_t>& shape, int64_t axis, size_t elem) {
  AxisSplit a;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (d < axis) a.outer *= shape[size_t(d)];
    if (d == axis) a.length = shape[size_t(d)];
    if (d > axis) a.inner *= shape[size_t(d)];
  }
  a.inner *= int64_t(elem);
  return a;
}

// Slice t of `src` along `axis` (the axis removed).
Tensor slice_along(const Tensor& src, int64_t axis, int64_t t) {
  std::vector<int64_t> shape = src.shape();
  const AxisSplit a = split_at(shape, axis, dtype_size(src.dtype()));
  shape.erase(shape.begin() + axis);
  Tensor out = Tensor::zeros(src.dtype(), shape);
  const auto* from = static_cast<const uint8_t*>(src.raw());
  auto* to = static_cast<uint8_t*>(out.raw());
  for (int64_t o = 0; o < a.outer; ++o)
    std::memcpy(to + o * a.inner, from + (o * a.length + t) * a.inner, size_t(a.inner));
  return out;
}

// Stacks `slices` (all of one shape) along a new axis `axis`, in reverse order when asked.
Tensor stack_along(const std::vector<Tensor>& slices, int64_t axis, bool reverse, DType dtype,
                   std::vector<int64_t> slice_shape) {
  std::vector<int64_t> shape = std::move(slice_shape);
  shape.insert(shape.begin() + axis, int64_t(slices.size()));
  Tensor out = Tensor::zeros(dtype, shape);
  const AxisSplit a = split_at(shape, axis, dtype_size(dtype));
  auto* to = static_cast<uint8_t*>(out.raw());
  for (int64_t t = 0; t < a.length; ++t) {
    const Tensor& s = slices[size_t(reverse ? a.length - 1 - t : t)];
    const auto* from = static_cast<const uint8_t*>(s.raw());
    for (int64_t o = 0; o < a.outer; ++o)
      std::memcpy(to + (o * a.length + t) * a.inner, from + o * a.inner, size_t(a.inner));
  }
  return out;
}

// Collects one scan output's slices, checking that they keep one dtype and shape and stay within
// the run's memory limit (core/run_memory.h).
struct Stack {
  std::vector<Tensor> slices;
  void add(Tensor t, size_t k) {
    if (!slices.empty() && (t.dtype() != slices[0].dtype() || t.shape() != slices[0].shape()))
      fail(
          "its body gave scan output {} as {}{} after {}{} at iteration 0: scan outputs must keep "
          "one shape",
          k, dtype_name(t.dtype()), t.shape_str(), dtype_name(slices[0].dtype()),
          slices[0].shape_str());
    // Counted with the run's other allocations: every scan output grows at once, and the
    // stacked result is as large again.
    charge_run_memory(checked_mul(int64_t(t.nbytes()), 2), "scan output", int64_t(k));
    slices.push_back(std::move(t));
  }
};

}  // namespace

SubgraphRunner::SubgraphRunner(const ir::Graph& graph, const ir::Node& node, const ops::Op& op,
                               const SessionOptions& options)
    : graph_(graph), node_(node), op_(op), options_(options) {
  const char* names[][2] = {{"then_branch", "then"},
                            {"else_branch", "else"},
                            {"body", "body"},
                            {"score_mod", "score_mod"},
                            {"prob_mod", "prob_mod"}};
  for (const auto& [name, label] : names) {
    auto it = node.attributes.find(name);
    if (it == node.attributes.end() || !it->second.graph) continue;
    Body b;
    b.graph = it->second.graph.get();
    b.label = label;
    if (node.op_type == "Loop") {
      b.relaxed = std::make_shared<ir::Graph>(*b.graph);
      for (size_t i = 2; i < b.relaxed->inputs.size(); ++i) {
        ir::Value& v = b.relaxed->values[size_t(b.relaxed->inputs[i])];
        if (!v.shape_known) continue;
        std::vector<Dim> dims;
        for (int64_t d = 0; d < v.shape.rank(); ++d) dims.push_back(Dim::unknown());
        v.shape = Shape(dims);
      }
      b.graph = b.relaxed.get();
    }
    for (ir::ValueId id : b.graph->captures) {
      const std::string& capture = b.graph->values[size_t(id)].name;
      size_t i = node.inputs.size() - node.implicit_inputs;
      while (i < node.inputs.size() && graph.values[size_t(node.inputs[i])].name != capture) ++i;
      if (i == node.inputs.size())
        fail_internal("capture '{}' is not an input of the node", capture);
      b.capture_inputs.push_back(i);
    }
    bodies_.push_back(std::move(b));
  }
}

SubgraphRunner::~SubgraphRunner() = default;

size_t SubgraphRunner::sessions() const {
  size_t n = 0;
  for (const Body& b : bodies_) n += b.sessions.size();
  return n;
}

std::vector<Tensor> SubgraphRunner::run_body(
    Body& body, const std::vector<const Tensor*>& args,
    const std::vector<const Tensor*>& node_inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  std::vector<const Tensor*> bound = args;
  std::vector<std::shared_ptr<const Tensor>> values(args.size());
  // A value given to an optional-typed body input is that optional's element (ONNX allows it).
  std::vector<Tensor> wrapped(args.size());
  for (size_t i = 0; i < args.size() && i < body.graph->inputs.size(); ++i) {
    const ir::Value& in = body.graph->values[size_t(body.graph->inputs[i])];
    if (in.kind == ValueKind::kOptional && args[i]->kind() != ValueKind::kOptional) {
      wrapped[i] = Tensor::optional(args[i]->dtype(), {*args[i]});
      bound[i] = &wrapped[i];
    }
  }
  for (size_t i : body.capture_inputs) {
    if (!node_inputs[i]) fail_internal("a captured value is missing");
    bound.push_back(node_inputs[i]);
    values.push_back(constants[i]);
  }
  // The session prepared for these dtypes and shapes (and these constants), or a new one.
  std::vector<int64_t> key;
  for (size_t i = 0; i < bound.size(); ++i) {
    key.push_back(int64_t(bound[i]->dtype()) * 4 + int64_t(bound[i]->kind()));
    key.push_back(bound[i]->rank());
    key.insert(key.end(), bound[i]->shape().begin(), bound[i]->shape().end());
    key.push_back(values[i] ? int64_t(reinterpret_cast<intptr_t>(values[i]->raw())) : 0);
  }
  std::unique_ptr<Session>& session = body.sessions[key];
  if (!session) {
    if (body.sessions.size() > kMaxSessionsPerBody) {
      std::unique_ptr<Session> keep = std::move(session);
      body.sessions.clear();
      body.sessions[key] = nullptr;
    }
    std::vector<InputSpec> specs;
    for (size_t i = 0; i < bound.size(); ++i)
      specs.push_back({bound[i]->dtype(), bound[i]->shape(), values[i], bound[i]->kind()});
    std::unique_ptr<Session> prepared;
    try {
      prepared = std::make_unique<Session>(*body.graph, specs, options_);
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("its subgraph '{}': {}", body.graph->graph_name, e.what()));
    }
    body.sessions[key] = std::move(prepared);
  }
  Session& s = *body.sessions[key];
  // Observed by the enclosing run's hooks when they ask to (the profiler's body rows).
  struct ObservedBody {
    BodyHooks* hooks;
    Session& session;
    ObservedBody(RunHooks* h, size_t step, const ir::Node& node, const char* label, Session& s)
        : hooks(dynamic_cast<BodyHooks*>(h)), session(s) {
      if (hooks) session.set_hooks(hooks->begin_body(step, node, label, session));
    }
    ~ObservedBody() {
      if (!hooks) return;
      session.set_hooks(nullptr);
      hooks->end_body();
    }
  };
  try {
    const ObservedBody observed(hooks_, step_, node_, body.label, s);
    s.run(bound, deadline);
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("its subgraph '{}': {}", body.graph->graph_name, e.what()));
  }
  std::vector<Tensor> out;
  for (size_t j = 0; j < s.num_outputs(); ++j) out.push_back(s.keep_output(j));
  return out;
}

std::vector<Tensor> SubgraphRunner::run(const std::vector<const Tensor*>& inputs,
                                        const std::vector<std::shared_ptr<const Tensor>>& constants,
                                        const Deadline& deadline, RunHooks* hooks, size_t step) {
  hooks_ = hooks;
  step_ = step;
  if (node_.op_type == "If") return run_if(inputs, constants, deadline);
  if (node_.op_type == "Loop") return run_loop(inputs, constants, deadline);
  if (node_.op_type == "SequenceMap") return run_sequence_map(inputs, constants, deadline);
  if (node_.op_type == "FlexAttention") return run_flex_attention(inputs, constants, deadline);
  return run_scan(inputs, constants, deadline);
}

std::vector<Tensor> SubgraphRunner::run_flex_attention(
    const std::vector<const Tensor*>& inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  const std::optional<ops::FlexAttentionAttributes> attributes =
      ops::flex_attention_attributes(op_);
  if (!attributes) fail_internal("a FlexAttention node without its op");
  // The subgraph labelled `label` applied to `t` (unchanged when the node has none): it must give
  // a tensor of t's dtype and shape.
  auto apply = [&](const char* label, Tensor t) {
    for (Body& body : bodies_) {
      if (std::strcmp(body.label, label) != 0) continue;
      std::vector<Tensor> out = run_body(body, {&t}, inputs, constants, deadline);
      if (out[0].dtype() != t.dtype() || out[0].shape() != t.shape())
        fail("its {} gave {}{} for {}{}: it must keep the dtype and shape it is given", label,
             dtype_name(out[0].dtype()), out[0].shape_str(), dtype_name(t.dtype()), t.shape_str());
      return std::move(out[0]);
    }
    return t;
  };
  Tensor probs =
      apply("score_mod", ops::flex_attention_scores(*inputs[0], *inputs[1], *attributes));
  ops::flex_attention_softmax(probs);
  probs = apply("prob_mod", std::move(probs));
  const std::vector<int64_t>& p = probs.shape();
  Tensor y = Tensor::zeros(inputs[0]->dtype(), {p[0], p[1], p[2], inputs[2]->shape()[3]});
  ops::flex_attention_weighted_values(probs, *inputs[2], y);
  return {std::move(y)};
}

std::vector<Tensor> SubgraphRunner::run_if(
    const std::vector<const Tensor*>& inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  const bool cond = truth(*inputs[0], "input 'cond'");
  return run_body(bodies_[cond ? 0 : 1], {}, inputs, constants, deadline);
}

std::vector<Tensor> SubgraphRunner::run_loop(
    const std::vector<const Tensor*>& inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  const size_t carried = node_.inputs.size() - node_.implicit_inputs - 2;
  const size_t scans = node_.outputs.size() - carried;
  // The shape rule checks M's size only when its shape is known before running.
  if (inputs[0] && inputs[0]->numel() != 1)
    fail("input 'M' must hold one value, not {}", inputs[0]->numel());
  const int64_t trips =
      inputs[0] ? inputs[0]->to_int64().at(0) : std::numeric_limits<int64_t>::max();
  bool cond = inputs[1] ? truth(*inputs[1], "input 'cond'") : true;
  std::vector<Tensor> state;
  for (size_t v = 0; v < carried; ++v) state.push_back(inputs[2 + v]->clone());
  std::vector<Stack> stacks(scans);
  int64_t i = 0;
  for (; i < trips && cond; ++i) {
    if (deadline.passed())
      fail("stopped after {} iterations: the run passed its --timeout of {:g} s", i,
           deadline.seconds);
    const Tensor iteration = scalar_i64(i), cond_in = scalar_bool(cond);
    std::vector<const Tensor*> args = {&iteration, &cond_in};
    for (const Tensor& t : state) args.push_back(&t);
    std::vector<Tensor> out = run_body(bodies_[0], args, inputs, constants, deadline);
    cond = truth(out[0], "the body's condition output");
    for (size_t v = 0; v < carried; ++v) state[v] = std::move(out[1 + v]);
    for (size_t k = 0; k < scans; ++k) stacks[k].add(std::move(out[1 + carried + k]), k);
  }
  std::vector<Tensor> result = std::move(state);
  for (size_t k = 0; k < scans; ++k) {
    const ir::Value& v = graph_.values[size_t(node_.outputs[carried + k])];
    if (stacks[k].slices.empty()) {  // no iteration: an empty stack of the declared slice shape
      const ir::ValueId body_out = bodies_[0].graph->outputs[1 + carried + k];
      const ir::Value& b = bodies_[0].graph->values[size_t(body_out)];
      std::vector<int64_t> shape = {0};
      if (b.shape_known && b.shape.is_static())
        for (int64_t d : b.shape.values()) shape.push_back(d);
      result.push_back(Tensor::zeros(b.dtype != DType::kUndefined ? b.dtype : v.dtype, shape));
      continue;
    }
    const Tensor& first = stacks[k].slices[0];
    result.push_back(stack_along(stacks[k].slices, 0, false, first.dtype(), first.shape()));
  }
  return result;
}

std::vector<Tensor> SubgraphRunner::run_sequence_map(
    const std::vector<const Tensor*>& inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  const size_t formal = node_.inputs.size() - node_.implicit_inputs;
  const size_t length = inputs[0]->items().size();
  for (size_t i = 1; i < formal; ++i)
    if (inputs[i]->kind() == ValueKind::kSequence && inputs[i]->items().size() != length)
      fail("input {} is a sequence of {} items but input 0 has {}", i, inputs[i]->items().size(),
           length);
  std::vector<std::vector<Tensor>> items(node_.outputs.size());
  for (size_t t = 0; t < length; ++t) {
    if (deadline.passed())
      fail("stopped after {} items: the run passed its --timeout of {:g} s", t, deadline.seconds);
    std::vector<const Tensor*> args;
    for (size_t i = 0; i < formal; ++i)
      args.push_back(inputs[i]->kind() == ValueKind::kSequence ? &inputs[i]->items()[t]
                                                               : inputs[i]);
    std::vector<Tensor> out = run_body(bodies_[0], args, inputs, constants, deadline);
    for (size_t j = 0; j < out.size(); ++j) items[j].push_back(std::move(out[j]));
  }
  std::vector<Tensor> result;
  for (size_t j = 0; j < items.size(); ++j) {
    DType dtype = graph_.values[size_t(node_.outputs[j])].dtype;
    if (!items[j].empty()) dtype = items[j][0].dtype();
    result.push_back(Tensor::sequence(dtype, std::move(items[j])));
  }
  return result;
}

std::vector<Tensor> SubgraphRunner::run_scan(
    const std::vector<const Tensor*>& inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  const size_t formal = node_.inputs.size() - node_.implicit_inputs;
  const bool batched = graph_.opset < 9;  // Scan-8's form, as the op reads it (ScanLayout)
  const size_t first = batched ? 1 : 0;
  std::vector<const Tensor*> values(inputs.begin() + int64_t(first),
                                    inputs.begin() + int64_t(formal));
  if (!batched) return scan_once(values, inputs, constants, deadline);
  // Before opset 9: once per batch item, the results stacked along the batch axis.
  const int64_t batch = values[0]->rank() > 0 ? values[0]->dim(0) : 0;
  for (const Tensor* v : values)
    if (v->rank() < 1 || v->dim(0) != batch)
      fail("its inputs disagree on the batch size ({} and {})", batch, v->shape_str());
  std::vector<std::vector<Tensor>> per_batch;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> items;
    for (const Tensor* v : values) items.push_back(slice_along(*v, 0, b));
    std::vector<const Tensor*> item_ptrs;
    for (const Tensor& t : items) item_ptrs.push_back(&t);
    if (inputs[0]) {  // sequence_lens: only the full length is supported
      const std::vector<int64_t> lens = inputs[0]->to_int64();
      const int64_t full = items[items.size() - 1].rank() > 0 ? items.back().dim(0) : 0;
      if (size_t(b) < lens.size() && lens[size_t(b)] != full)
        fail("sequence_lens[{}] is {}, shorter than the scan length {}: not supported", b,
             lens[size_t(b)], full);
    }
    per_batch.push_back(scan_once(item_ptrs, inputs, constants, deadline));
  }
  std::vector<Tensor> result;
  for (size_t j = 0; j < node_.outputs.size(); ++j) {
    std::vector<Tensor> slices;
    for (auto& r : per_batch) slices.push_back(std::move(r[j]));
    if (!slices.empty() && slices[0].shape() != slices.back().shape())
      fail("its output {} has different shapes across the batch", j);
    const DType dtype =
        slices.empty() ? graph_.values[size_t(node_.outputs[j])].dtype : slices[0].dtype();
    result.push_back(stack_along(slices, 0, false, dtype,
                                 slices.empty() ? std::vector<int64_t>{} : slices[0].shape()));
  }
  return result;
}

std::vector<Tensor> SubgraphRunner::scan_once(
    const std::vector<const Tensor*>& values, const std::vector<const Tensor*>& node_inputs,
    const std::vector<std::shared_ptr<const Tensor>>& constants, const Deadline& deadline) {
  const size_t scan_inputs = size_t(node_.attributes.at("num_scan_inputs").i);
  const size_t states = values.size() - scan_inputs;
  const size_t scans = node_.outputs.size() - states;
  std::vector<int64_t> ranks;
  for (size_t k = 0; k < scan_inputs; ++k) ranks.push_back(values[states + k]->rank());
  const ops::ScanLayout layout = ops::scan_layout(op_, ranks);
  int64_t length = 0;
  for (size_t k = 0; k < scan_inputs; ++k) {
    const int64_t n = values[states + k]->dim(layout.input_axes[k]);
    if (k > 0 && n != length) fail("its scan inputs have different lengths ({} and {})", length, n);
    length = n;
  }
  std::vector<Tensor> state;
  for (size_t v = 0; v < states; ++v) state.push_back(values[v]->clone());
  std::vector<Stack> stacks(scans);
  for (int64_t t = 0; t < length; ++t) {
    if (deadline.passed())
      fail("stopped after {} iterations: the run passed its --timeout of {:g} s", t,
           deadline.seconds);
    std::vector<Tensor> slices;
    for (size_t k = 0; k < scan_inputs; ++k)
      slices.push_back(slice_along(*values[states + k], layout.input_axes[k],
                                   layout.input_reverse[k] ? length - 1 - t : t));
    std::vector<const Tensor*> args;
    for (const Tensor& s : state) args.push_back(&s);
    for (const Tensor& s : slices) args.push_back(&s);
    std::vector<Tensor> out = run_body(bodies_[0], args, node_inputs, constants, deadline);
    for (size_t v = 0; v < states; ++v) state[v] = std::move(out[v]);
    for (size_t k = 0; k < scans; ++k) stacks[k].add(std::move(out[states + k]), k);
  }
  std::vector<Tensor> result = std::move(state);
  for (size_t k = 0; k < scans; ++k) {
    std::vector<int64_t> slice_shape;
    DType dtype = graph_.values[size_t(node_.outputs[states + k])].dtype;
    if (!stacks[k].slices.empty()) {
      slice_shape = stacks[k].slices[0].shape();
      dtype = stacks[k].slices[0].dtype();
    } else {
      const ir::Value& b = bodies_[0].graph->values[size_t(bodies_[0].graph->outputs[states + k])];
      if (b.shape_known && b.shape.is_static()) slice_shape = b.shape.values();
      if (b.dtype != DType::kUndefined) dtype = b.dtype;
    }
    const int64_t rank = int64_t(slice_shape.size()) + 1;
    int64_t axis = layout.output_axes[k];
    if (axis < -rank || axis >= rank)
      fail("scan_output_axes[{}] is {}, out of range for scan output {} of rank {}", k, axis,
           states + k, rank);
    if (axis < 0) axis += rank;
    result.push_back(
        stack_along(stacks[k].slices, axis, layout.output_reverse[k], dtype, slice_shape));
  }
  return result;
}

}  // namespace strata::runtime
