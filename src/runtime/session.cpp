#include "runtime/session.h"

#include <omp.h>

#include <map>

#include "core/checked.h"
#include "core/error.h"
#include "passes/infer_shapes.h"

namespace strata::runtime {

namespace {

std::string shape_string(const std::vector<int64_t>& s) { return Shape::of(s).str(); }

// A metadata view of a live tensor, its value included (for shape rules resolved at run time).
ops::Meta meta_of(const Tensor& t) {
  ops::Meta m;
  m.dtype = t.dtype();
  m.shape = Shape::of(t.shape());
  m.value = std::shared_ptr<const Tensor>(std::shared_ptr<const Tensor>(), &t);
  return m;
}

}  // namespace

Session::Session(const ir::Graph& graph, const std::vector<InputSpec>& inputs, SessionOptions options)
    : graph_(graph), options_(options) {
  if (options_.threads > 0) omp_set_num_threads(options_.threads);
  metas_.resize(graph_.values.size());
  slots_.resize(graph_.values.size());
  bind_inputs(inputs);
  infer_and_fold();
  plan_memory();
}

Session::~Session() = default;

void Session::bind_inputs(const std::vector<InputSpec>& inputs) {
  if (inputs.size() != graph_.inputs.size())
    fail("the model has {} inputs but {} were given", graph_.inputs.size(), inputs.size());
  std::map<std::string, int64_t> symbols;  // a named dim must take one value across inputs
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = graph_.values[size_t(graph_.inputs[i])];
    const InputSpec& spec = inputs[i];
    if (v.dtype != DType::kUndefined && spec.dtype != v.dtype)
      fail("input '{}' has dtype {} but the model expects {}", v.name, dtype_name(spec.dtype),
           dtype_name(v.dtype));
    if (v.shape_known) {
      if (int64_t(spec.shape.size()) != v.shape.rank())
        fail("input '{}' has shape {} but the model expects rank {} ({})", v.name,
             shape_string(spec.shape), v.shape.rank(), v.shape.str());
      for (int64_t d = 0; d < v.shape.rank(); ++d) {
        const Dim& want = v.shape[d];
        const int64_t got = spec.shape[size_t(d)];
        if (want.is_static() && want.value() != got)
          fail("input '{}' has shape {} but the model expects {}", v.name, shape_string(spec.shape),
               v.shape.str());
        if (!want.is_static() && want.symbol()[0] != '?') {
          auto [it, inserted] = symbols.try_emplace(want.symbol(), got);
          if (!inserted && it->second != got)
            fail("input '{}' sets dimension '{}' to {} but another input set it to {}", v.name,
                 want.symbol(), got, it->second);
        }
      }
    }
    checked_numel(spec.shape);
    metas_[size_t(graph_.inputs[i])].dtype = spec.dtype;
    metas_[size_t(graph_.inputs[i])].shape = Shape::of(spec.shape);
    slots_[size_t(graph_.inputs[i])] = Tensor::view(spec.dtype, spec.shape, nullptr);
  }
  input_specs_ = inputs;
}

void Session::infer_and_fold() {
  for (size_t id = 0; id < graph_.values.size(); ++id) {
    const ir::Value& v = graph_.values[id];
    if (!v.constant) continue;
    metas_[id].dtype = v.dtype;
    metas_[id].shape = v.shape;
    metas_[id].value = v.constant;
    stats_.constant_bytes += int64_t(v.constant->nbytes());
  }
  ops_.resize(graph_.nodes.size());
  folded_.assign(graph_.nodes.size(), false);
  for (size_t n = 0; n < graph_.nodes.size(); ++n) {
    const ir::Node& node = graph_.nodes[n];
    ops_[n] = passes::make_op(graph_, node);
    std::optional<std::vector<ops::Meta>> out = passes::infer_node(graph_, node, *ops_[n], metas_);
    if (out) {
      for (const ops::Meta& m : *out)
        if (!m.shape.is_static()) out.reset();  // an unbound dim: resolve at run time
    }
    if (!out) {
      stats_.dynamic_nodes++;
      continue;  // output metas stay undefined: consumers are dynamic too
    }
    const int64_t budget = options_.max_memory_bytes - stats_.constant_bytes;
    if (passes::fold_node(graph_, node, *ops_[n], metas_, *out, budget)) {
      folded_[n] = true;
      stats_.folded_nodes++;
      for (const ops::Meta& m : *out) stats_.constant_bytes += int64_t(m.value->nbytes());
    }
    for (size_t j = 0; j < node.outputs.size(); ++j) metas_[size_t(node.outputs[j])] = (*out)[j];
  }
}

void Session::plan_memory() {
  // Constants (initializers and folded values) are read in place.
  for (size_t id = 0; id < metas_.size(); ++id) {
    const ops::Meta& m = metas_[id];
    if (m.value)
      slots_[id] = Tensor::view(m.dtype, m.value->shape(), const_cast<void*>(m.value->raw()));
  }
  // Execution steps, and each value's lifetime over them.
  std::vector<int64_t> first(metas_.size(), -1), last(metas_.size(), -1);
  for (size_t n = 0; n < graph_.nodes.size(); ++n) {
    if (folded_[n]) continue;
    const ir::Node& node = graph_.nodes[n];
    const int64_t step = int64_t(steps_.size());
    StepInfo info;
    info.node_index = n;
    info.kernel = "reference";
    info.reason = "the op's reference kernel (no faster kernel is registered for it)";
    info.dynamic = false;
    for (ir::ValueId id : node.outputs)
      if (id != ir::kNoValue) info.dynamic |= !metas_[size_t(id)].present();
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue) last[size_t(id)] = step;
    for (ir::ValueId id : node.outputs)
      if (id != ir::kNoValue) first[size_t(id)] = last[size_t(id)] = step;
    steps_.push_back(info);
  }
  const int64_t end = int64_t(steps_.size());
  for (ir::ValueId id : graph_.outputs) last[size_t(id)] = end;  // outputs outlive the run

  std::vector<planner::BufferRequest> requests;
  std::vector<size_t> request_value;
  for (size_t id = 0; id < metas_.size(); ++id) {
    const ops::Meta& m = metas_[id];
    if (first[id] < 0 || m.value || !m.present()) continue;
    const int64_t bytes =
        checked_mul(checked_numel(m.shape.values()), int64_t(dtype_size(m.dtype)));
    requests.push_back({first[id], last[id], bytes});
    request_value.push_back(id);
  }
  const planner::Plan plan = planner::plan_buffers(requests);
  stats_.arena_bytes = plan.arena_bytes;
  stats_.lower_bound_bytes = plan.lower_bound_bytes;
  if (checked_add(plan.arena_bytes, stats_.constant_bytes) > options_.max_memory_bytes)
    fail("the model needs {} bytes of activations and {} bytes of constants, over the memory "
         "limit of {} bytes",
         plan.arena_bytes, stats_.constant_bytes, options_.max_memory_bytes);
  Tensor arena = Tensor::zeros(DType::kU8, {std::max<int64_t>(plan.arena_bytes, 1)});
  uint8_t* base = arena.data<uint8_t>();
  arena_ = std::shared_ptr<void>(std::make_shared<Tensor>(std::move(arena)));
  for (size_t r = 0; r < requests.size(); ++r) {
    const ops::Meta& m = metas_[request_value[r]];
    slots_[request_value[r]] = Tensor::view(m.dtype, m.shape.values(), base + plan.offsets[r]);
  }

  // Pointers each step reads and writes (the loader names omitted outputs, so every output has a slot).
  step_inputs_.resize(steps_.size());
  step_outputs_.resize(steps_.size());
  for (size_t s = 0; s < steps_.size(); ++s) {
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    for (ir::ValueId id : node.inputs)
      step_inputs_[s].push_back(id == ir::kNoValue ? nullptr : &slots_[size_t(id)]);
    for (ir::ValueId id : node.outputs) step_outputs_[s].push_back(&slots_[size_t(id)]);
  }
}

void Session::run_dynamic_step(size_t s) {
  const ir::Node& node = graph_.nodes[steps_[s].node_index];
  std::vector<ops::Meta> in_metas(node.inputs.size());
  std::vector<const ops::Meta*> in;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Tensor* t = step_inputs_[s][i];
    if (!t) {
      in.push_back(nullptr);
      continue;
    }
    in_metas[i] = meta_of(*t);
    in.push_back(&in_metas[i]);
  }
  std::vector<ops::Meta> out(node.outputs.size());
  ops::InferContext ctx(in, out);
  try {
    ops_[steps_[s].node_index]->infer(ctx);
  } catch (const NotStatic&) {
    fail_internal("{}: output shape unknown even with all inputs known", graph_.describe(node));
  }
  for (size_t j = 0; j < out.size(); ++j) {
    const std::vector<int64_t> dims = out[j].shape.values();
    const int64_t bytes = checked_mul(checked_numel(dims), int64_t(dtype_size(out[j].dtype)));
    if (bytes > options_.max_memory_bytes)
      fail("output {} needs {} bytes, over the memory limit of {} bytes", j, bytes,
           options_.max_memory_bytes);
    *step_outputs_[s][j] = Tensor::zeros(out[j].dtype, dims);
  }
}

void Session::run(const std::vector<const Tensor*>& inputs) {
  if (inputs.size() != graph_.inputs.size())
    fail("the model has {} inputs but {} were given", graph_.inputs.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = graph_.values[size_t(graph_.inputs[i])];
    if (inputs[i]->dtype() != input_specs_[i].dtype || inputs[i]->shape() != input_specs_[i].shape)
      fail("input '{}' is {}{} but the session was prepared for {}{}", v.name,
           dtype_name(inputs[i]->dtype()), inputs[i]->shape_str(), dtype_name(input_specs_[i].dtype),
           shape_string(input_specs_[i].shape));
    slots_[size_t(graph_.inputs[i])].rebind(const_cast<void*>(inputs[i]->raw()));
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    if (hooks_) hooks_->before_node(s);
    ir::with_node_context(graph_, node, [&] {
      if (steps_[s].dynamic) run_dynamic_step(s);
      ops::KernelContext ctx(step_inputs_[s].data(), step_inputs_[s].size(), step_outputs_[s].data(),
                             step_outputs_[s].size());
      ops_[steps_[s].node_index]->run(ctx);
    });
    if (hooks_) hooks_->after_node(s);
  }
}

const Tensor& Session::output(size_t i) const { return slots_[size_t(graph_.outputs[i])]; }

}  // namespace strata::runtime
