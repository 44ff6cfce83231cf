#include "runtime/session.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "core/checked.h"
#include "core/error.h"
#include "core/run_memory.h"
#include "kernels/omp_threads.h"
#include "ops/string_ops.h"
#include "passes/infer_shapes.h"
#include "runtime/control_flow.h"
#include "runtime/kernel_choice.h"
#include "runtime/shared_buffers.h"

namespace strata::runtime {

namespace {

// Strings are std::string arrays, not bytes: only ops written for them may touch them.
void check_string_support(const ir::Node& node, DType input) {
  if (input == DType::kString && !ops::handles_strings(node.op_type))
    fail("{} node '{}' does not support dtype string", node.op_type, node.name);
}

std::string shape_string(const std::vector<int64_t>& s) {
  return Shape::of(s).str();
}

// True when a Transpose reads a convolution's output: ConvNeXt relabels its activations between
// convolutions and LayerNorms that way, which is free (a view) only in channels-last.
bool transposes_conv_outputs(const ir::Graph& graph) {
  std::vector<bool> conv_output(graph.values.size(), false);
  for (const ir::Node& node : graph.nodes)
    if (node.op_type == "Conv" || node.op_type == "FusedConv")
      for (ir::ValueId id : node.outputs)
        if (id != ir::kNoValue) conv_output[size_t(id)] = true;
  for (const ir::Node& node : graph.nodes)
    if (node.op_type == "Transpose" && !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
        conv_output[size_t(node.inputs[0])])
      return true;
  return false;
}

// True when the graph holds 8-bit activations (QDQ or QLinear nodes, dynamic quantization): the
// quantization kernels and oneDNN's int8 convolutions read them plain or channels-last.
bool has_8_bit_activations(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes) {
    const std::string& op = node.op_type;
    if (op == "QuantizeLinear" || op == "DequantizeLinear" || op == "DynamicQuantizeLinear" ||
        op.rfind("QLinear", 0) == 0 || op == "ConvInteger")
      return true;
  }
  return false;
}

// A metadata view of a live tensor, its value included (for shape rules resolved at run time).
ops::Meta meta_of(const Tensor& t) {
  ops::Meta m;
  m.dtype = t.dtype();
  m.shape = Shape::of(t.shape());
  m.kind = t.kind();
  m.value = std::shared_ptr<const Tensor>(std::shared_ptr<const Tensor>(), &t);
  return m;
}

// The ops whose fast kernel is worth preparing while running (a prepare per new set of shapes)
// whatever their size: the compute-heavy ones of detection heads, and ScatterElements, which puts
// each pyramid level's pooled boxes in place (its reference builds a table of offsets first).
bool worth_a_kernel_while_running(const ir::Node& node) {
  static const std::set<std::string> heavy = {"Conv",     "FusedConv",      "ConvTranspose",
                                              "Gemm",     "MatMul",         "FusedMatMul",
                                              "RoiAlign", "ScatterElements"};
  return heavy.count(node.op_type) > 0;
}

// Other dynamic steps take a fast kernel when their outputs reach this size: the reference
// kernels run on one thread, and a prepare (a fraction of a millisecond) is then small beside
// the run. Below it, on the few boxes detection post-processing sees, the reference is quicker.
constexpr int64_t kLargeDynamicOutputBytes = int64_t(1) << 20;

// When idle OpenMP workers sleep (kernels::idle_workers_sleep), each parallel step wakes them:
// 20 to 40 µs per step measured on the benchmark VMs, against about 1 µs when they spin. Steps
// (and layout conversions) share the pool only when this many times larger than the bounds in
// SessionOptions: with the small conversions on one thread too, light_shufflenet at 2 threads
// (PASSIVE) 10.5 → 5.3 ms, densenet121 44 → 39 ms, resnet50 unchanged (bench/RESULTS.md).
constexpr double kSleepingPoolFactor = 16;

}  // namespace

Session::Session(const ir::Graph& graph, const std::vector<InputSpec>& inputs,
                 SessionOptions options)
    : graph_(graph), options_(options) {
  if (options_.threads > 0) omp_set_num_threads(options_.threads);
  metas_.resize(graph_.values.size());
  slots_.resize(graph_.values.size());
  bind_inputs(inputs);
  infer_and_fold();
  plan_steps();
  choose_kernels();
  if (options_.algo_cache) options_.algo_cache->save();
  plan_memory();
}

Session::~Session() = default;

std::vector<ir::ValueId> Session::bound_values() const {
  std::vector<ir::ValueId> ids = graph_.inputs;
  ids.insert(ids.end(), graph_.captures.begin(), graph_.captures.end());
  return ids;
}

void Session::bind_inputs(const std::vector<InputSpec>& inputs) {
  const std::vector<ir::ValueId> bound = bound_values();
  if (inputs.size() != bound.size())
    fail("the model has {} inputs but {} were given", bound.size(), inputs.size());
  std::map<std::string, int64_t> symbols;  // a named dim must take one value across inputs
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = graph_.values[size_t(bound[i])];
    const InputSpec& spec = inputs[i];
    if (spec.kind != v.kind && (v.kind != ValueKind::kTensor || v.shape_known))
      fail("input '{}' is a {} but the model expects a {}", v.name, value_kind_name(spec.kind),
           value_kind_name(v.kind));
    if (spec.kind != ValueKind::kTensor) {  // a list: bound as a whole each run
      metas_[size_t(bound[i])] = {spec.dtype, Shape(), spec.value, false, spec.kind};
      continue;
    }
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
    metas_[size_t(bound[i])].dtype = spec.dtype;
    metas_[size_t(bound[i])].shape = Shape::of(spec.shape);
    metas_[size_t(bound[i])].value = spec.value;
    slots_[size_t(bound[i])] = Tensor::view(spec.dtype, spec.shape, nullptr);
  }
  input_specs_ = inputs;
}

void Session::infer_and_fold() {
  for (size_t id = 0; id < graph_.values.size(); ++id) {
    const ir::Value& v = graph_.values[id];
    if (v.is_initializer && !v.constant)
      fail_internal("initializer '{}' has no data: the model was loaded without its weights",
                    v.name);
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
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue) check_string_support(node, metas_[size_t(id)].dtype);
    std::optional<std::vector<ops::Meta>> out = passes::infer_node(graph_, node, *ops_[n], metas_);
    if (out) {
      // An unbound dim, a list or strings (which live outside the arena): resolve at run time.
      for (const ops::Meta& m : *out)
        if (!m.shape.is_static() || m.kind != ValueKind::kTensor || m.dtype == DType::kString) {
          out.reset();
          break;
        }
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

void Session::plan_steps() {
  for (size_t n = 0; n < graph_.nodes.size(); ++n) {
    if (folded_[n]) continue;
    const ir::Node& node = graph_.nodes[n];
    StepInfo info;
    info.node_index = n;
    info.kernel = "reference";
    info.reason = "the op's reference kernel (no fast kernel serves this op)";
    for (ir::ValueId id : node.outputs)
      if (id != ir::kNoValue) info.dynamic |= !metas_[size_t(id)].present();
    steps_.push_back(info);
  }
  step_kernels_.resize(steps_.size());
  runners_.resize(steps_.size());
  for (size_t s = 0; s < steps_.size(); ++s) {
    const size_t n = steps_[s].node_index;
    if (!ops_[n]->runs_subgraphs()) continue;
    SessionOptions body_options = options_;
    body_options.timeout_seconds = 0;  // the enclosing run's deadline applies
    body_options.progress = nullptr;   // bodies are prepared while running: no progress then
    runners_[s] = std::make_unique<SubgraphRunner>(graph_, graph_.nodes[n], *ops_[n], body_options);
    steps_[s].kernel = "subgraph";
    steps_[s].reason = "its subgraphs run as sessions of their own, prepared once per shape";
  }
  // Pointers each step reads and writes (the loader names omitted outputs, so every output has a
  // slot); choose_kernels() redirects inputs to converted copies.
  step_inputs_.resize(steps_.size());
  step_outputs_.resize(steps_.size());
  for (size_t s = 0; s < steps_.size(); ++s) {
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    for (ir::ValueId id : node.inputs)
      step_inputs_[s].push_back(id == ir::kNoValue ? nullptr : &slots_[size_t(id)]);
    for (ir::ValueId id : node.outputs) step_outputs_[s].push_back(&slots_[size_t(id)]);
  }
}

void Session::choose_kernels() {
  // --layout auto: oneDNN itself prefers channels-last convolutions, but blocked ones (nChw16c
  // with AVX-512, nChw8c with AVX2) ran faster on the benchmark CNNs at batch 1 (depthwise, 1×1
  // and the per-channel Mul of squeeze-and-excitation blocks most: on AVX-512 efficientnet_b0's
  // steps 6-8% less time, resnet50's and mobilenet_v2's 2-3%; on an AVX2 Zen 3 vgg19 0.63 s
  // against 1.1, densenet121 89 ms against 125, googlenet 47 against 55). Channels-last stays
  // where Transposes relabel convolution outputs (ConvNeXt), since there it saves a conversion
  // per Transpose (asked for explicitly: left open, oneDNN's AVX2 convolutions choose nChw8c), and
  // in quantized graphs, whose 8-bit kernels read channels-last (blocked, mobilenet_v2_qdq's
  // float32 convolutions on a CPU without VNNI made each QuantizeLinear convert: 14 → 118 ms).
  kernels::LayoutPolicy policy = options_.layout;
  if (policy == kernels::LayoutPolicy::kAuto)
    policy = transposes_conv_outputs(graph_) || has_8_bit_activations(graph_)
                 ? kernels::LayoutPolicy::kChannelsLast
                 : kernels::LayoutPolicy::kBlocked;
  std::vector<Layout> layout(metas_.size(), Layout::kPlain);
  std::vector<std::vector<size_t>> readers(metas_.size());  // steps reading each value
  for (size_t s = 0; s < steps_.size(); ++s)
    for (ir::ValueId id : graph_.nodes[steps_[s].node_index].inputs)
      if (id != ir::kNoValue) readers[size_t(id)].push_back(s);
  std::vector<bool> graph_output(metas_.size(), false);
  for (ir::ValueId id : graph_.outputs) graph_output[size_t(id)] = true;
  std::vector<bool> made_while_running(metas_.size(), false);  // by a dynamic step's own kernel
  for (size_t s = 0; s < steps_.size(); ++s)
    if (steps_[s].dynamic && !runners_[s])
      for (ir::ValueId id : graph_.nodes[steps_[s].node_index].outputs)
        if (id != ir::kNoValue) made_while_running[size_t(id)] = true;

  auto request_for = [&](size_t s) {
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    kernels::NodeRequest r{
        graph_, node, *ops_[steps_[s].node_index], {}, {}, {}, {}, policy, options_.threads};
    for (ir::ValueId id : node.inputs) {
      r.inputs.push_back(id == ir::kNoValue ? nullptr : &metas_[size_t(id)]);
      r.input_layouts.push_back(id == ir::kNoValue ? Layout::kPlain : layout[size_t(id)]);
    }
    for (ir::ValueId id : node.outputs) {
      r.outputs.push_back(&metas_[size_t(id)]);
      r.output_needs_plain.push_back(true);
    }
    return r;
  };
  // Steps a fast kernel will serve whatever layout their data comes in (asked with plain inputs).
  std::vector<bool> reads_any_layout(steps_.size(), false);
  if (options_.fast_kernels) {
    for (size_t s = 0; s < steps_.size(); ++s) {
      if (steps_[s].dynamic || runners_[s]) continue;
      const kernels::NodeRequest r = request_for(s);
      for (const kernels::KernelFamily& family : kernels::kernel_families())
        if (family.reads_any_layout && family.serves(r.node) && family.supports(r).ok)
          reads_any_layout[s] = true;
    }
  }

  // Threads per step: the session's, or one for a step too small to share (SessionOptions).
  const int pool_threads = options_.threads > 0 ? options_.threads : omp_get_max_threads();
  const double sleeping = kernels::idle_workers_sleep() ? kSleepingPoolFactor : 1;
  const double single_flops = options_.single_thread_flops * sleeping;
  const double single_bytes = options_.single_thread_bytes * sleeping;
  auto threads_for = [&](size_t s) {
    if (pool_threads <= 1) return pool_threads;
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    std::vector<const ops::Meta*> in;
    for (ir::ValueId id : node.inputs)
      in.push_back(id == ir::kNoValue ? nullptr : &metas_[size_t(id)]);
    std::vector<ops::Meta> out;
    for (ir::ValueId id : node.outputs) out.push_back(metas_[size_t(id)]);
    std::optional<ops::Cost> cost;
    try {
      cost = ops_[steps_[s].node_index]->cost(ops::CostContext(in, out));
    } catch (const std::exception&) {
      return pool_threads;  // no cost rule for these shapes: keep the pool
    }
    if (!cost) return pool_threads;
    const double bytes = cost->bytes_read + cost->bytes_written;
    return cost->flops < single_flops && bytes < single_bytes ? 1 : pool_threads;
  };

  // A conversion reads and writes the value once: one thread below the steps' byte bound (waking
  // the pool for a small copy costs more than the copy), built for the threads it runs on.
  auto conversion_threads = [&](const ops::Meta& m) {
    const double bytes =
        2.0 * double(checked_numel(m.shape.values())) * double(dtype_size(m.dtype));
    return bytes < single_bytes ? 1 : pool_threads;
  };
  auto conversion = [&](const ops::Meta& m, Layout from, Layout to, const Tensor* src,
                        Tensor* dst) {
    const int threads = conversion_threads(m);
    const kernels::OmpThreads scope(threads);
    return Conversion{kernels::make_reorder(m.dtype, m.shape.values(), from, to), src, dst,
                      threads};
  };

  std::map<std::pair<size_t, Layout>, ConvertedValue*> copies;
  for (ir::ValueId id : graph_.outputs) output_tensors_.push_back(&slots_[size_t(id)]);
  for (size_t s = 0; s < steps_.size(); ++s) {
    StepInfo& info = steps_[s];
    StepKernels& k = step_kernels_[s];
    const ir::Node& node = graph_.nodes[info.node_index];
    if (runners_[s]) {
      // Run by the session through its subgraphs' own sessions (reason set in plan_steps).
    } else if (options_.fast_kernels && !info.dynamic) {
      kernels::NodeRequest r = request_for(s);
      for (size_t j = 0; j < node.outputs.size(); ++j) {
        const size_t id = size_t(node.outputs[j]);
        bool plain = graph_output[id];
        for (size_t reader : readers[id]) plain |= !reads_any_layout[reader];
        r.output_needs_plain[j] = plain;
      }
      // oneDNN sizes a primitive's parallel work for the threads it sees when it is built.
      info.threads = threads_for(s);
      r.threads = info.threads;
      kernels::Choice choice = [&] {
        const kernels::OmpThreads threads(info.threads);
        return ir::with_node_context(graph_, node, [&] {
          return choose_step_kernel(r, options_.fast_run, options_.algo_cache.get(), pool_threads);
        });
      }();
      if (choice.kernel) {
        k.kernel = std::move(choice.kernel);
        info.threads = choice.threads;
        info.kernel = k.kernel->name();
        info.reason = choice.reason;
        if (!k.kernel->note().empty()) info.reason += "; " + k.kernel->note();
        if (info.threads == 1 && pool_threads > 1 && !choice.threads_timed)
          info.reason +=
              fmt::format("; on 1 thread: too small to share (under {:g} FLOPs and {:g} bytes{})",
                          single_flops, single_bytes, sleeping > 1 ? ", idle threads sleep" : "");
        stats_.fast_steps++;
        stats_.packed_bytes += k.kernel->packed_bytes();
        k.threads = info.threads;
      } else if (choice.reference_won) {
        info.threads = pool_threads;  // the op's own kernel runs on the session's pool
        info.reason = choice.reason;
      } else if (!choice.reason.empty()) {
        info.reason = "the fast kernels declined: " + choice.reason;
      }
    } else if (info.dynamic) {
      info.reason = "the op's reference kernel (shapes known only while running)";
      k.heavy_op = worth_a_kernel_while_running(node);
      for (ir::ValueId id : node.inputs)
        k.may_take_input.push_back(
            id != ir::kNoValue && made_while_running[size_t(id)] && !graph_output[size_t(id)] &&
            readers[size_t(id)].back() == s &&
            std::count(readers[size_t(id)].begin(), readers[size_t(id)].end(), s) == 1);
    } else {
      info.reason = kFastKernelsOffReason;
    }
    // Inputs in another layout than the kernel reads are converted, once per value and layout.
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == ir::kNoValue) continue;
      const size_t id = size_t(node.inputs[i]);
      const Layout want = k.kernel ? k.kernel->input_layout(i) : Layout::kPlain;
      if (want == layout[id] || same_memory_order(metas_[id].shape.values(), want, layout[id]))
        continue;
      ConvertedValue*& copy = copies[{id, want}];
      if (!copy) {
        const ops::Meta& m = metas_[id];
        converted_.push_back(
            {id, want, Tensor::view(m.dtype, m.shape.values(), nullptr), int64_t(s), int64_t(s)});
        copy = &converted_.back();
        copy->tensor.set_layout(want);
        k.conversions.push_back(conversion(m, layout[id], want, &slots_[id], &copy->tensor));
        const int64_t rank = m.shape.rank();
        info.conversions.push_back(fmt::format(
            "input {} '{}': {} → {} ({})", i, graph_.values[id].name, layout_name(layout[id], rank),
            layout_name(want, rank), k.conversions.back().kernel->name()));
        stats_.conversions++;
      }
      copy->last_step = int64_t(s);
      step_inputs_[s][i] = &copy->tensor;
    }
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const size_t id = size_t(node.outputs[j]);
      layout[id] = k.kernel ? k.kernel->output_layout(j) : Layout::kPlain;
      slots_[id].set_layout(layout[id]);
      if (!graph_output[id] || layout[id] == Layout::kPlain) continue;
      // The caller reads outputs plain: convert right after the kernel into a copy that lives on.
      const ops::Meta& m = metas_[id];
      converted_.push_back({id, Layout::kPlain, Tensor::view(m.dtype, m.shape.values(), nullptr),
                            int64_t(s), int64_t(steps_.size())});
      k.after.push_back(
          conversion(m, layout[id], Layout::kPlain, &slots_[id], &converted_.back().tensor));
      for (size_t o = 0; o < graph_.outputs.size(); ++o)
        if (size_t(graph_.outputs[o]) == id) output_tensors_[o] = &converted_.back().tensor;
      info.conversions.push_back(
          fmt::format("output {} '{}': {} → {} ({})", j, graph_.values[id].name,
                      layout_name(layout[id], m.shape.rank()),
                      layout_name(Layout::kPlain, m.shape.rank()), k.after.back().kernel->name()));
      stats_.conversions++;
    }
    if (!node.outputs.empty())
      info.layout = layout_name(layout[size_t(node.outputs[0])],
                                metas_[size_t(node.outputs[0])].shape.rank());
    if (options_.progress)
      options_.progress(options_.fast_run ? "fast-run" : "prepare", int64_t(s + 1),
                        int64_t(steps_.size()));
  }
  // A dynamic step assigns its outputs a new buffer each run (or reuses one nothing else holds).
  std::vector<bool> made_each_run(metas_.size(), false);
  for (size_t s = 0; s < steps_.size(); ++s)
    if (steps_[s].dynamic)
      for (ir::ValueId id : graph_.nodes[steps_[s].node_index].outputs)
        if (id != ir::kNoValue) made_each_run[size_t(id)] = true;
  for (size_t o = 0; o < graph_.outputs.size(); ++o) {
    const size_t id = size_t(graph_.outputs[o]);
    output_made_each_run_.push_back(made_each_run[id] && output_tensors_[o] == &slots_[id]);
  }
}

// Places each input of a concatenation (Kernel::input_parts) where the output holds it, so that
// its producer writes the concatenation and the kernel copies nothing: when the input is written
// by a step into the arena, read by the concatenation directly, no graph output, given once, and
// its whole group fits there, 64-byte aligned, apart from the parts placed before. A group already
// in another concatenation moves whole: DenseNet's concatenation of the block's first k outputs
// becomes the first bytes of its concatenation of all of them.
void Session::place_concatenated_inputs(const std::function<bool(size_t)>& in_arena,
                                        const std::function<int64_t(size_t)>& bytes_of,
                                        SharedBuffers& shared) {
  std::vector<bool> is_output(metas_.size(), false);
  for (ir::ValueId id : graph_.outputs) is_output[size_t(id)] = true;
  for (size_t s = 0; s < steps_.size(); ++s) {
    const kernels::Kernel* kernel = step_kernels_[s].kernel.get();
    if (!kernel || kernel->input_parts().empty()) continue;
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    const size_t out = size_t(node.outputs[0]);
    if (!in_arena(out) || shared.owner[out] != out) continue;
    std::vector<std::pair<int64_t, int64_t>> taken;  // byte ranges of the output given to groups
    size_t placed = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ir::ValueId v = node.inputs[i];
      const size_t in = size_t(v);
      if (!in_arena(in) || is_output[in] || step_inputs_[s][i] != &slots_[in] ||
          std::count(node.inputs.begin(), node.inputs.end(), v) != 1)
        continue;
      const int64_t want = kernel->input_parts()[i];
      const size_t root = shared.owner[in];
      if (root == out) {  // came with a group placed for an earlier input
        placed += shared.offset[in] == want;
        continue;
      }
      const int64_t begin = want - shared.offset[in], end = begin + bytes_of(root);
      if (begin < 0 || begin % planner::kBufferAlignment != 0 || end > bytes_of(out) ||
          std::any_of(taken.begin(), taken.end(),
                      [&](const auto& t) { return begin < t.second && t.first < end; }))
        continue;
      taken.emplace_back(begin, end);
      shared.move_group(root, out, begin);
      ++placed;
    }
    if (placed == 0) continue;
    steps_[s].reason +=
        placed == node.inputs.size()
            ? "; in the end no copy: its producers write every input in place in the output"
            : fmt::format(
                  "; the producers of {} of its {} inputs write them in "
                  "place in the output, the rest are copied",
                  placed, node.inputs.size());
  }
}

void Session::plan_memory() {
  // Constants (initializers and folded values) are read in place.
  for (size_t id = 0; id < metas_.size(); ++id) {
    const ops::Meta& m = metas_[id];
    if (m.value)
      slots_[id] = Tensor::view(m.dtype, m.value->shape(), const_cast<void*>(m.value->raw()));
  }
  // Each value's lifetime over the steps: from the step that writes it to the last step that
  // reads it, directly or to convert it.
  std::vector<int64_t> first(metas_.size(), -1), last(metas_.size(), -1);
  for (size_t s = 0; s < steps_.size(); ++s) {
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue) last[size_t(id)] = int64_t(s);
    for (ir::ValueId id : node.outputs)
      if (id != ir::kNoValue) first[size_t(id)] = last[size_t(id)] = int64_t(s);
  }
  const int64_t end = int64_t(steps_.size());
  for (ir::ValueId id : graph_.outputs) last[size_t(id)] = end;  // outputs outlive the run

  auto in_arena = [&](size_t id) {
    return first[id] >= 0 && !metas_[id].value && metas_[id].present();
  };
  auto bytes_of = [&](size_t id) {
    return layout_bytes(metas_[id].dtype, metas_[id].shape.values(), slots_[id].layout());
  };
  // Shared buffers. A view (Reshape, a relabelling Transpose) is its input's bytes: the two
  // values share one buffer. Then parts: a concatenation's inputs may lie in its output's buffer,
  // written there by their producers. Then in place: a kernel may write its output into an input's
  // buffer when that input is read directly (not converted), by no later step, through no other
  // value sharing its buffer, and has the output's layout and size.
  SharedBuffers shared(metas_.size());
  auto shares = [&](size_t s, int input) -> std::optional<std::pair<size_t, size_t>> {
    const ir::Node& node = graph_.nodes[steps_[s].node_index];
    if (input < 0 || size_t(input) >= node.inputs.size() ||
        node.inputs[size_t(input)] == ir::kNoValue)
      return std::nullopt;
    const size_t in = size_t(node.inputs[size_t(input)]), out = size_t(node.outputs[0]);
    if (!in_arena(in) || !in_arena(out) || step_inputs_[s][size_t(input)] != &slots_[in] ||
        bytes_of(in) != bytes_of(out))
      return std::nullopt;
    return std::make_pair(in, out);
  };
  for (size_t s = 0; s < steps_.size(); ++s) {
    const kernels::Kernel* kernel = step_kernels_[s].kernel.get();
    if (!kernel) continue;
    if (const auto pair = shares(s, kernel->view_of_input())) {
      shared.move_group(pair->second, shared.owner[pair->first], shared.offset[pair->first]);
      steps_[s].in_place = true;
    }
  }
  place_concatenated_inputs(in_arena, bytes_of, shared);
  std::vector<int64_t> group_first(metas_.size(), -1), group_last(metas_.size(), -1);
  auto update_groups = [&] {
    std::fill(group_first.begin(), group_first.end(), -1);
    std::fill(group_last.begin(), group_last.end(), -1);
    for (size_t id = 0; id < metas_.size(); ++id) {
      if (!in_arena(id)) continue;
      const size_t root = shared.owner[id];
      group_first[root] =
          group_first[root] < 0 ? first[id] : std::min(group_first[root], first[id]);
      group_last[root] = std::max(group_last[root], last[id]);
    }
  };
  update_groups();
  for (size_t s = 0; s < steps_.size(); ++s) {
    const kernels::Kernel* kernel = step_kernels_[s].kernel.get();
    if (!kernel) continue;
    const auto pair = shares(s, kernel->inplace_input());
    // An output placed in a concatenation keeps its place.
    if (!pair || group_last[shared.owner[pair->first]] != int64_t(s) ||
        shared.owner[pair->second] != pair->second)
      continue;
    shared.move_group(pair->second, shared.owner[pair->first], shared.offset[pair->first]);
    steps_[s].in_place = true;
    update_groups();
  }

  // Buffers: values in the layout their producer writes, converted copies, per-step scratch.
  std::vector<planner::BufferRequest> requests;
  std::vector<Tensor*> request_tensor;  // nullptr for scratch
  std::vector<const ops::Meta*> request_meta;
  std::vector<size_t> request_step;
  std::vector<size_t> request_of(metas_.size(), 0);
  for (size_t id = 0; id < metas_.size(); ++id) {
    if (!in_arena(id) || shared.owner[id] != id) continue;
    request_of[id] = requests.size();
    requests.push_back({group_first[id], group_last[id], bytes_of(id)});
    request_tensor.push_back(&slots_[id]);
    request_meta.push_back(&metas_[id]);
    request_step.push_back(0);
  }
  for (ConvertedValue& c : converted_) {
    const ops::Meta& m = metas_[c.value];
    requests.push_back(
        {c.first_step, c.last_step, layout_bytes(m.dtype, m.shape.values(), c.layout)});
    request_tensor.push_back(&c.tensor);
    request_meta.push_back(&m);
    request_step.push_back(0);
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    const StepKernels& k = step_kernels_[s];
    int64_t bytes = k.kernel ? k.kernel->scratch_bytes() : 0;
    for (const Conversion& c : k.conversions) bytes = std::max(bytes, c.kernel->scratch_bytes());
    for (const Conversion& c : k.after) bytes = std::max(bytes, c.kernel->scratch_bytes());
    if (bytes == 0) continue;
    requests.push_back({int64_t(s), int64_t(s), bytes});
    request_tensor.push_back(nullptr);
    request_meta.push_back(nullptr);
    request_step.push_back(s);
  }
  const planner::Plan plan = planner::plan_buffers(requests);
  stats_.arena_bytes = plan.arena_bytes;
  stats_.lower_bound_bytes = plan.lower_bound_bytes;
  stats_.arena_live_bytes = plan.live_bytes;
  stats_.arena_live_bytes.resize(steps_.size());  // graph outputs outlive the last step
  const int64_t fixed_bytes = checked_add(stats_.constant_bytes, stats_.packed_bytes);
  if (checked_add(plan.arena_bytes, fixed_bytes) > options_.max_memory_bytes)
    fail(
        "the model needs {} bytes of activations and {} bytes of constants and packed weights, "
        "over the memory limit of {} bytes",
        plan.arena_bytes, fixed_bytes, options_.max_memory_bytes);
  Tensor arena = Tensor::zeros(DType::kU8, {std::max<int64_t>(plan.arena_bytes, 1)});
  uint8_t* base = arena.data<uint8_t>();
  arena_ = std::shared_ptr<void>(std::make_shared<Tensor>(std::move(arena)));
  for (size_t id = 0; id < metas_.size(); ++id) {  // values sharing another value's buffer
    if (!in_arena(id) || shared.owner[id] == id) continue;
    // The value keeps the layout its kernel writes: a view may read the same bytes in another
    // layout (a Transpose to NHWC of a channels-last buffer is plain).
    const Layout own = slots_[id].layout();
    slots_[id] =
        Tensor::view(metas_[id].dtype, metas_[id].shape.values(),
                     base + plan.offsets[request_of[shared.owner[id]]] + shared.offset[id]);
    slots_[id].set_layout(own);
  }
  for (size_t r = 0; r < requests.size(); ++r) {
    Tensor* t = request_tensor[r];
    if (!t) {
      step_kernels_[request_step[r]].scratch = base + plan.offsets[r];
      continue;
    }
    const Layout layout = t->layout();
    *t = Tensor::view(request_meta[r]->dtype, request_meta[r]->shape.values(),
                      base + plan.offsets[r]);
    t->set_layout(layout);
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
  for (const ops::Meta* m : in)
    if (m) check_string_support(node, m->dtype);
  std::vector<ops::Meta> out(node.outputs.size());
  ops::InferContext ctx(in, out);
  ops::check_tensor_inputs(*ops_[steps_[s].node_index], in);
  try {
    ops_[steps_[s].node_index]->infer(ctx);
    passes::check_outputs_made(graph_, node, out);
  } catch (const NotStatic&) {
    fail_internal("{}: output shape unknown even with all inputs known", graph_.describe(node));
  }
  if (wants_kernel_while_running(s, out)) {
    choose_dynamic_kernel(s, in_metas, out);
  } else if (step_kernels_[s].dynamic_kernel) {  // the last run's, for other shapes
    drop_dynamic_kernel(step_kernels_[s]);
    steps_[s].kernel = "reference";
    steps_[s].reason =
        "the op's reference kernel (shapes known only while running; outputs too "
        "small this run for a fast kernel to pay off)";
  }
  const int taken = input_to_write_in_place(s, out);
  steps_[s].in_place = taken >= 0;
  for (size_t j = 0; j < out.size(); ++j) {
    if (out[j].kind != ValueKind::kTensor) {  // the kernel makes the list
      *step_outputs_[s][j] = Tensor();
      continue;
    }
    if (j == 0 && taken >= 0) {  // shares the input's buffer, which keeps it alive
      *step_outputs_[s][0] = *step_inputs_[s][size_t(taken)];
      step_outputs_[s][0]->reshape_unchecked(out[0].shape.values());  // a view's new shape
      continue;
    }
    const std::vector<int64_t> dims = out[j].shape.values();
    const int64_t bytes = checked_mul(checked_numel(dims), int64_t(dtype_size(out[j].dtype)));
    charge_run_memory(bytes, "output", int64_t(j));
    // The buffer this value had in the last run, when nothing else holds it (core/tensor.h).
    Tensor& slot = *step_outputs_[s][j];
    if (!slot.reuse_as_zeros(out[j].dtype, dims)) slot = Tensor::zeros(out[j].dtype, dims);
  }
}

bool Session::wants_kernel_while_running(size_t s, const std::vector<ops::Meta>& out) const {
  const StepKernels& k = step_kernels_[s];
  if (!options_.fast_kernels) return false;
  if (k.heavy_op) return true;
  int64_t bytes = 0;
  for (const ops::Meta& m : out)
    if (m.kind == ValueKind::kTensor && m.dtype != DType::kString)
      bytes = checked_add(
          bytes, checked_mul(checked_numel(m.shape.values()), int64_t(dtype_size(m.dtype))));
  return bytes >= kLargeDynamicOutputBytes;
}

int Session::input_to_write_in_place(size_t s, const std::vector<ops::Meta>& out) const {
  const StepKernels& k = step_kernels_[s];
  if (!k.dynamic_kernel || out.empty() || out[0].kind != ValueKind::kTensor) return -1;
  // A kernel that writes over its input, or one whose output is its input's bytes (a view).
  const bool view = k.dynamic_kernel->view_of_input() >= 0;
  const int i = view ? k.dynamic_kernel->view_of_input() : k.dynamic_kernel->inplace_input();
  if (i < 0 || size_t(i) >= k.may_take_input.size() || !k.may_take_input[size_t(i)]) return -1;
  const ir::ValueId id = graph_.nodes[steps_[s].node_index].inputs[size_t(i)];
  const Tensor& t = slots_[size_t(id)];
  // Read directly (not a converted copy), owning its plain buffer, of the output's type.
  if (step_inputs_[s][size_t(i)] != &t || !t.keeps_buffer_alive() || !t.is_tensor() ||
      t.layout() != Layout::kPlain || t.dtype() != out[0].dtype)
    return -1;
  const std::vector<int64_t> dims = out[0].shape.values();
  if (view ? t.numel() != checked_numel(dims) : t.shape() != dims) return -1;
  return i;
}

void Session::drop_dynamic_kernel(StepKernels& k) {
  k.dynamic_kernel.reset();
  k.dynamic_key.clear();
  k.dynamic_scratch = Tensor();
}

void Session::choose_dynamic_kernel(size_t s, const std::vector<ops::Meta>& in,
                                    const std::vector<ops::Meta>& out) {
  StepKernels& k = step_kernels_[s];
  std::vector<std::pair<DType, std::vector<int64_t>>> key;
  for (size_t i = 0; i < in.size(); ++i)
    key.emplace_back(in[i].dtype,
                     step_inputs_[s][i] ? in[i].shape.values() : std::vector<int64_t>{});
  for (const ops::Meta& m : out) {
    if (m.kind != ValueKind::kTensor || m.dtype == DType::kString) return;  // lists: reference
    key.emplace_back(m.dtype, m.shape.values());
  }
  if (!k.dynamic_key.empty() && key == k.dynamic_key) return;
  drop_dynamic_kernel(k);
  k.dynamic_key = std::move(key);
  const ir::Node& node = graph_.nodes[steps_[s].node_index];
  // Inputs are plain here (the session converts a dynamic step's inputs). Only constants keep
  // their values, so that kernels can pack weights as at prepare: `in` carries this run's values
  // (shape inference reads them), and a kernel that packed one would reuse it, stale, on the next
  // run with the same shapes.
  std::vector<ops::Meta> in_metas = in;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    in_metas[i].value =
        node.inputs[i] != ir::kNoValue ? metas_[size_t(node.inputs[i])].value : nullptr;
  const int pool_threads = options_.threads > 0 ? options_.threads : omp_get_max_threads();
  kernels::NodeRequest r{graph_, node, *ops_[steps_[s].node_index],   {},          {},
                         {},     {},   kernels::LayoutPolicy::kPlain, pool_threads};
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    r.inputs.push_back(step_inputs_[s][i] ? &in_metas[i] : nullptr);
    r.input_layouts.push_back(Layout::kPlain);
  }
  for (const ops::Meta& m : out) {
    r.outputs.push_back(&m);
    r.output_needs_plain.push_back(true);
  }
  kernels::Choice choice = [&] {
    const kernels::OmpThreads threads(pool_threads);
    return kernels::choose_kernel(r);
  }();
  if (!choice.kernel) return;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (choice.kernel->input_layout(i) != Layout::kPlain) return;
  for (size_t j = 0; j < out.size(); ++j)
    if (choice.kernel->output_layout(j) != Layout::kPlain) return;
  if (choice.kernel->scratch_bytes() > 0) {
    charge_run_memory(choice.kernel->scratch_bytes() + 64, "scratch");
    k.dynamic_scratch = Tensor::zeros(DType::kU8, {choice.kernel->scratch_bytes() + 64});
  }
  k.dynamic_kernel = std::move(choice.kernel);
  k.threads = choice.threads;
  steps_[s].kernel = k.dynamic_kernel->name();
  steps_[s].reason = "chosen while running, for the shapes of the last run: " + choice.reason;
  steps_[s].threads = k.threads;
}

void Session::run_subgraph_step(size_t s) {
  const ir::Node& node = graph_.nodes[steps_[s].node_index];
  std::vector<std::shared_ptr<const Tensor>> constants;
  for (ir::ValueId id : node.inputs)
    constants.push_back(id == ir::kNoValue ? nullptr : metas_[size_t(id)].value);
  std::vector<Tensor> out = runners_[s]->run(step_inputs_[s], constants, deadline_, hooks_, s);
  for (size_t j = 0; j < out.size(); ++j) {
    Tensor& slot = *step_outputs_[s][j];
    if (steps_[s].dynamic || !out[j].is_tensor()) {
      slot = std::move(out[j]);
      continue;
    }
    if (out[j].dtype() != slot.dtype() || out[j].shape() != slot.shape())
      fail("its subgraph gave output {} as {}{}, but the node's shape rule said {}{}", j,
           dtype_name(out[j].dtype()), out[j].shape_str(), dtype_name(slot.dtype()),
           slot.shape_str());
    if (out[j].nbytes()) std::memcpy(slot.raw(), out[j].raw(), out[j].nbytes());
  }
}

void Session::run(const std::vector<const Tensor*>& inputs) {
  Deadline deadline;
  if (options_.timeout_seconds > 0) {
    deadline.seconds = options_.timeout_seconds;
    deadline.at = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options_.timeout_seconds));
  }
  run(inputs, deadline);
}

void Session::run(const std::vector<const Tensor*>& inputs, const Deadline& deadline) {
  deadline_ = deadline;
  const RunMemoryScope memory(
      options_.max_memory_bytes,
      checked_add(stats_.arena_bytes, checked_add(stats_.constant_bytes, stats_.packed_bytes)));
  const std::vector<ir::ValueId> bound = bound_values();
  if (inputs.size() != bound.size())
    fail("the model has {} inputs but {} were given", bound.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = graph_.values[size_t(bound[i])];
    if (input_specs_[i].kind != ValueKind::kTensor) {
      if (inputs[i]->kind() != input_specs_[i].kind || inputs[i]->dtype() != input_specs_[i].dtype)
        fail("input '{}' is a {} of {} but the session was prepared for a {} of {}", v.name,
             value_kind_name(inputs[i]->kind()), dtype_name(inputs[i]->dtype()),
             value_kind_name(input_specs_[i].kind), dtype_name(input_specs_[i].dtype));
      slots_[size_t(bound[i])] = *inputs[i];
      continue;
    }
    if (!inputs[i]->is_tensor() || inputs[i]->dtype() != input_specs_[i].dtype ||
        inputs[i]->shape() != input_specs_[i].shape)
      fail("input '{}' is {}{} but the session was prepared for {}{}", v.name,
           dtype_name(inputs[i]->dtype()), inputs[i]->shape_str(),
           dtype_name(input_specs_[i].dtype), shape_string(input_specs_[i].shape));
    if (input_specs_[i].value && inputs[i]->raw() != input_specs_[i].value->raw())
      fail_internal("input '{}' was bound as a constant but is given other bytes", v.name);
    slots_[size_t(bound[i])].rebind(const_cast<void*>(inputs[i]->raw()));
  }
  // Outputs that took over an input's buffer in the last run let go of it, so that the step that
  // made the buffer finds itself its only holder and reuses it (a ScatterElements chain's zeros).
  for (size_t s = 0; s < steps_.size(); ++s)
    if (steps_[s].dynamic && steps_[s].in_place) *step_outputs_[s][0] = Tensor();
  for (size_t s = 0; s < steps_.size(); ++s) {
    if (deadline_.passed())
      fail("the run passed its --timeout of {:g} s before {}", deadline_.seconds,
           graph_.describe(graph_.nodes[steps_[s].node_index]));
    if (hooks_) hooks_->before_node(s);
    run_step(s);
    if (hooks_) hooks_->after_node(s);
  }
}

std::string Session::run_note(size_t s) const {
  const StepKernels& k = step_kernels_[s];
  if (k.kernel) return k.kernel->run_note();
  return k.dynamic_kernel ? k.dynamic_kernel->run_note() : std::string();
}

void Session::run_step(size_t s) {
  const ir::Node& node = graph_.nodes[steps_[s].node_index];
  StepKernels& k = step_kernels_[s];
  ir::with_node_context(graph_, node, [&] {
    if (runners_[s]) return run_subgraph_step(s);
    if (steps_[s].dynamic) run_dynamic_step(s);
    convert(k.conversions, k.scratch);
    if (steps_[s].dynamic && k.dynamic_kernel) {
      const kernels::OmpThreads threads(k.threads);
      auto* scratch = static_cast<unsigned char*>(k.dynamic_scratch.raw());
      if (scratch) scratch += (64 - reinterpret_cast<uintptr_t>(scratch) % 64) % 64;
      k.dynamic_kernel->run({step_inputs_[s].data(), step_inputs_[s].size(),
                             step_outputs_[s].data(), step_outputs_[s].size(), scratch});
      return;
    }
    if (k.kernel) {
      {
        const kernels::OmpThreads threads(k.threads);  // a step built for fewer runs on that many
        k.kernel->run({step_inputs_[s].data(), step_inputs_[s].size(), step_outputs_[s].data(),
                       step_outputs_[s].size(), k.scratch});
      }
      convert(k.after, k.scratch);
      return;
    }
    ops::KernelContext ctx(step_inputs_[s].data(), step_inputs_[s].size(), step_outputs_[s].data(),
                           step_outputs_[s].size());
    ops_[steps_[s].node_index]->run(ctx);
  });
}

void Session::convert(std::vector<Conversion>& conversions, void* scratch) {
  for (Conversion& c : conversions) {
    const kernels::OmpThreads threads(c.threads);
    const Tensor* src[] = {c.src};
    Tensor* dst[] = {c.dst};
    c.kernel->run({src, 1, dst, 1, scratch});
  }
}

const Tensor& Session::output(size_t i) const {
  return *output_tensors_[i];
}

Tensor Session::keep_output(size_t i) const {
  const Tensor& t = *output_tensors_[i];
  return output_made_each_run_[i] && t.keeps_buffer_alive() ? t : t.clone();
}

}  // namespace strata::runtime
