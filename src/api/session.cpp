// strata::Session, strata::bind_inputs and strata::run (include/strata/session.h).
#include <fmt/format.h>

#include <chrono>

#include "api/convert.h"
#include "api/model_impl.h"
#include "api/session_impl.h"
#include "debug/dump.h"
#include "debug/finite.h"
#include "debug/test_case.h"
#include "passes/optimize.h"
#include "passes/specialize_inputs.h"
#include "profiler/slow_paths.h"
#include "report/progress.h"
#include "runtime/input_binding.h"
#include "runtime/input_folder.h"
#include "runtime/timing.h"

namespace strata {

namespace api {
runtime::BindOptions bind_options(const InputOptions& options) {
  runtime::BindOptions bind;
  for (const std::string& s : options.sources) bind.inputs.push_back(runtime::parse_input_arg(s));
  bind.shapes = options.shapes;
  bind.dims = options.dims;
  bind.seed = options.seed;
  for (const auto& [name, array] : options.arrays) bind.values[name] = api::to_tensor(array);
  return bind;
}
}  // namespace api

NamedArrays bind_inputs(const Model& model, const InputOptions& options) {
  const ir::Graph& graph = model.impl().loaded.graph;
  runtime::BindOptions bind = api::bind_options(options);
  runtime::name_inputs_with_slashes(graph, bind.inputs);
  if (runtime::has_input_folder(bind))
    fail(
        "--input: a folder of inputs is for strata run and strata profile (one file per "
        "inference); give a file");
  runtime::expand_input_folders(bind);  // names a source that does not exist
  std::vector<runtime::BoundInput> bound = runtime::bind_inputs(graph, bind);
  NamedArrays named;
  for (size_t i = 0; i < bound.size(); ++i) {
    const std::string& name = graph.values[size_t(graph.inputs[i])].name;
    named.push_back(
        {name, api::to_array(bound[i].tensor, "input '" + name + "'"), bound[i].origin});
  }
  if (options.warn)
    for (size_t i = 0; i < bound.size(); ++i)
      if (runtime::contains_nan(bound[i].tensor))
        options.warn(fmt::format("input '{}' contains NaN", named[i].name));
  return named;
}

std::vector<NamedArrays> bind_input_sets(const Model& model, const InputOptions& options) {
  const ir::Graph& graph = model.impl().loaded.graph;
  runtime::BindOptions bind = api::bind_options(options);
  runtime::name_inputs_with_slashes(graph, bind.inputs);
  if (!runtime::has_input_folder(bind)) return {bind_inputs(model, options)};
  std::vector<NamedArrays> sets;
  for (const std::vector<runtime::BoundInput>& set : runtime::bind_input_sets(graph, bind)) {
    NamedArrays named;
    for (size_t i = 0; i < set.size(); ++i) {
      const std::string& name = graph.values[size_t(graph.inputs[i])].name;
      named.push_back({name, api::to_array(set[i].tensor, "input '" + name + "'"), set[i].origin});
    }
    sets.push_back(std::move(named));
  }
  if (options.warn)
    for (const NamedArray& n : sets[0])
      if (runtime::contains_nan(api::to_tensor(n.array)))
        options.warn(fmt::format("input '{}' contains NaN", n.name));
  return sets;
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& what) {
  return runtime::parse_shape(text, what);
}

std::vector<Tensor> Session::Impl::order(const NamedArrays& inputs, bool check) const {
  for (const NamedArray& n : inputs) {
    bool known = false;
    for (const std::string& name : input_names) known |= name == n.name;
    if (!known)
      fail("the model has no input named '{}' (its inputs: {})", n.name,
           fmt::join(input_names, ", "));
  }
  std::vector<Tensor> ordered;
  for (size_t i = 0; i < input_names.size(); ++i) {
    const NamedArray* found = nullptr;
    for (const NamedArray& n : inputs)
      if (n.name == input_names[i]) found = &n;
    if (!found) fail("input '{}' is not given", input_names[i]);
    if (check && (found->array.dtype() != prepared[i].dtype() ||
                  found->array.shape() != prepared[i].shape()))
      fail("input '{}' is {} but the session was prepared for {}{}", input_names[i],
           found->array.type_string(), dtype_name(prepared[i].dtype()), prepared[i].shape_str());
    ordered.push_back(api::to_tensor(found->array));
  }
  return ordered;
}

std::vector<runtime::InputSpec> Session::Impl::specs() const {
  std::vector<runtime::InputSpec> specs;
  for (const Tensor& t : prepared) specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
  return specs;
}

std::vector<const Tensor*> Session::Impl::pointers(const std::vector<Tensor>& tensors) {
  std::vector<const Tensor*> p;
  for (const Tensor& t : tensors) p.push_back(&t);
  return p;
}

Session::Impl::OrderedSets Session::Impl::order_sets(const std::vector<NamedArrays>& sets) const {
  OrderedSets o;
  for (const NamedArrays& set : sets) o.tensors.push_back(order(set, true));
  for (const std::vector<Tensor>& set : o.tensors) o.pointers.push_back(pointers(set));
  return o;
}

Session::Session(const Model& model, const NamedArrays& inputs, const SessionOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.model_path = model.path();
  s.model = model;
  s.load_ms = model.load_ms();
  auto graph = std::make_shared<ir::Graph>(model.impl().loaded.graph);
  for (ir::ValueId id : graph->inputs) s.input_names.push_back(graph->values[size_t(id)].name);
  s.prepared = s.order(inputs, false);
  s.options = api::session_options(options);
  const auto t0 = std::chrono::steady_clock::now();
  if (options.optimize) {
    const report::ProgressTicker ticker(options.progress, "optimize");
    std::vector<std::vector<int64_t>> shapes;
    for (const Tensor& t : s.prepared) shapes.push_back(t.shape());
    passes::specialize_inputs(*graph, shapes);
    s.passes = passes::optimize_graph(*graph);
  }
  s.graph = std::move(graph);
  s.session = std::make_unique<runtime::Session>(*s.graph, s.specs(), s.options);
  s.prepare_ms = runtime::elapsed_ms(t0);
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Session Session::clone() const {
  const Impl& s = *impl_;
  auto copy = std::make_unique<Impl>();
  copy->model_path = s.model_path;
  copy->model = s.model;
  copy->graph = s.graph;
  copy->passes = s.passes;
  copy->input_names = s.input_names;
  copy->prepared = s.prepared;
  copy->load_ms = s.load_ms;
  copy->options = s.options;
  copy->options.progress = nullptr;
  copy->options.fast_run = false;  // the first session's choices, from the algo cache
  const auto t0 = std::chrono::steady_clock::now();
  copy->session = std::make_unique<runtime::Session>(*copy->graph, copy->specs(), copy->options);
  copy->prepare_ms = runtime::elapsed_ms(t0);
  return Session(std::move(copy));
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

NamedArrays Session::run(const NamedArrays& inputs) {
  const std::vector<Tensor> ordered = impl_->order(inputs, true);
  impl_->session->run(Impl::pointers(ordered));
  impl_->has_run = true;
  return outputs();
}

NamedArrays Session::outputs() const {
  if (!impl_->has_run) fail("the session has not run yet: it has no outputs");
  const runtime::Session& session = *impl_->session;
  NamedArrays outputs;
  const ir::Graph& graph = session.graph();
  for (size_t i = 0; i < session.num_outputs(); ++i) {
    const std::string& name = graph.values[size_t(graph.outputs[i])].name;
    outputs.push_back({name, api::to_array(session.output(i), "output '" + name + "'")});
  }
  return outputs;
}

std::vector<StepInfo> Session::steps() const {
  std::vector<StepInfo> steps;
  const ir::Graph& graph = impl_->session->graph();
  for (const runtime::StepInfo& st : impl_->session->steps()) {
    const ir::Node& node = graph.nodes[st.node_index];
    steps.push_back({node.name, node.op_type, st.kernel, st.reason, st.layout, st.threads,
                     node.fused_from, st.conversions, st.in_place});
  }
  return steps;
}

PlanSummary Session::plan() const {
  const runtime::Session& session = *impl_->session;
  const runtime::PrepareStats& st = session.stats();
  PlanSummary p;
  for (const passes::PassRecord& r : impl_->passes) p.passes.push_back({r.name, r.changes, r.note});
  p.nodes = session.graph().nodes.size();
  p.steps = session.steps().size();
  p.fast_steps = st.fast_steps;
  p.conversions = st.conversions;
  p.folded_nodes = st.folded_nodes;
  p.dynamic_nodes = st.dynamic_nodes;
  p.arena_bytes = st.arena_bytes;
  p.lower_bound_bytes = st.lower_bound_bytes;
  p.constant_bytes = st.constant_bytes;
  p.packed_bytes = st.packed_bytes;
  return p;
}

int64_t Session::arena_bytes() const {
  return impl_->session->stats().arena_bytes;
}
double Session::prepare_ms() const {
  return impl_->prepare_ms;
}

Session::Packed Session::pack(const std::string& dir, const NamedArrays& inputs) {
  const std::vector<Tensor> ordered = impl_->order(inputs, true);
  runtime::Session& session = *impl_->session;
  session.run(Impl::pointers(ordered));
  impl_->has_run = true;
  std::vector<const Tensor*> outputs;
  for (size_t i = 0; i < session.num_outputs(); ++i) outputs.push_back(&session.output(i));
  const ir::Graph& graph = session.graph();
  debug::write_test_case(dir, impl_->model_path, graph, ordered, outputs);
  const auto type = [](const Tensor& t) {
    return fmt::format("{}{}", dtype_name(t.dtype()), t.shape_str());
  };
  Packed packed;
  for (size_t i = 0; i < ordered.size(); ++i)
    packed.inputs.push_back({fmt::format("input_{}.pb", i),
                             graph.values[size_t(graph.inputs[i])].name, type(ordered[i])});
  for (size_t i = 0; i < outputs.size(); ++i)
    packed.outputs.push_back({fmt::format("output_{}.pb", i),
                              graph.values[size_t(graph.outputs[i])].name, type(*outputs[i])});
  return packed;
}

DumpSummary Session::dump_all(const NamedArrays& inputs, const std::string& dir) {
  const std::vector<Tensor> ordered = impl_->order(inputs, true);
  const debug::Dump dump =
      debug::record_run(*impl_->session, Impl::pointers(ordered),
                        debug::model_signature(impl_->model.impl().loaded.graph));
  impl_->has_run = true;
  if (!dir.empty()) debug::write_dump(dump, dir);
  return {dump.values.size(), dump.nodes.size(), debug::io_summary(dump)};
}

std::vector<std::string> Session::slow_path_warnings(const NamedArrays& inputs) {
  const std::vector<Tensor> ordered = impl_->order(inputs, true);
  std::vector<std::string> warnings =
      profiler::slow_path_warnings(*impl_->session, Impl::pointers(ordered));
  return warnings;
}

std::string Session::first_non_finite(const NamedArrays& inputs) {
  const std::vector<Tensor> ordered = impl_->order(inputs, true);
  const auto bad = debug::find_non_finite(*impl_->session, Impl::pointers(ordered));
  return bad ? debug::describe(*bad) : "";
}

NamedArrays run(const Model& model, const InputOptions& inputs, const SessionOptions& options) {
  const NamedArrays bound = bind_inputs(model, inputs);
  Session session(model, bound, options);
  return session.run(bound);
}

}  // namespace strata
