// If, Loop and Scan: nodes with subgraphs (ir::Attribute::graph). Their attributes are checked
// against their bodies here and their shape rules infer the bodies (passes::infer_subgraph); the
// session runs them (src/runtime/control_flow.cpp), so their `run` is never called. A body reads
// values of the enclosing graph by name: the node's implicit inputs (ir::Node::implicit_inputs).
#include "ops/control_flow.h"

#include <fmt/format.h>

#include <algorithm>

#include "ops/upper_bound.h"
#include "passes/infer_shapes.h"

namespace strata::ops {

std::vector<size_t> capture_inputs(const NodeInfo& node, const ir::Graph& body) {
  std::vector<size_t> where;
  const size_t first = node.num_inputs() - node.num_implicit_inputs();
  for (ir::ValueId id : body.captures) {
    const std::string& name = body.values[size_t(id)].name;
    size_t i = first;
    while (i < node.num_inputs() && node.input_name(i) != name) ++i;
    if (i == node.num_inputs()) fail_internal("capture '{}' is not an input of the node", name);
    where.push_back(i);
  }
  return where;
}

namespace {

Meta without_value(const Meta& m) {
  return {m.dtype, m.shape, nullptr, false, m.kind};
}

// Sets output j from a meta that may be a sequence or optional.
void set_meta(InferContext& ctx, size_t j, const Meta& m) {
  if (m.kind != ValueKind::kTensor) return ctx.set_list_output(j, m.kind, m.dtype);
  ctx.set_output(j, m.dtype, m.shape);
}

// The meta of a value two sources may give (If's branches, a Loop's initial and carried values):
// dims that differ become symbolic; absent when the dtypes or ranks differ.
Meta merge(const Meta& a, const Meta& b) {
  if (!a.present() || !b.present() || a.dtype != b.dtype || a.kind != b.kind ||
      a.shape.rank() != b.shape.rank())
    return {};
  if (a.kind != ValueKind::kTensor) return {a.dtype, Shape(), nullptr, false, a.kind};
  std::vector<Dim> dims;
  for (int64_t d = 0; d < a.shape.rank(); ++d)
    dims.push_back(a.shape[d] == b.shape[d] ? a.shape[d] : Dim::unknown());
  return {a.dtype, Shape(dims), nullptr, false};
}

// `cost` of one iteration run `n` times (weights are read from the same place: counted once).
Cost repeated(Cost cost, double n) {
  cost.macs *= n;
  cost.flops *= n;
  cost.bytes_read *= n;
  cost.bytes_written *= n;
  return cost;
}

class SubgraphOp : public Op {
 public:
  explicit SubgraphOp(const NodeInfo& node)
      : formal_inputs_(node.num_inputs() - node.num_implicit_inputs()) {}
  bool runs_subgraphs() const override { return true; }
  bool takes_lists() const override { return true; }
  void run(KernelContext&) const override {
    fail_internal("a node with subgraphs is run by the session, not by its op");
  }
  // What control_flow_cost_note says.
  virtual std::string cost_note(const CostContext& ctx, bool figures) const = 0;

 protected:
  // Fails when a formal input from `first` on is omitted (named ""): none of them is optional.
  void require_inputs(const NodeInfo& node, size_t first) const {
    for (size_t i = first; i < formal_inputs_; ++i)
      if (!node.has_input(i)) fail("input {} is omitted, but it is required", i);
  }

  // Body `b`'s bound metas: `inputs` for its inputs, then its captures from the node's inputs.
  std::vector<Meta> bound(const InferContext& ctx, size_t b, std::vector<Meta> inputs) const {
    for (size_t i : captures_[b]) inputs.push_back(ctx.has_input(i) ? ctx.input(i) : Meta{});
    return inputs;
  }
  std::vector<Meta> bound(const CostContext& ctx, size_t b, std::vector<Meta> inputs) const {
    for (size_t i : captures_[b]) inputs.push_back(ctx.has_input(i) ? ctx.input(i) : Meta{});
    return inputs;
  }
  size_t formal_inputs_;
  std::vector<const ir::Graph*> bodies_;
  std::vector<std::vector<size_t>> captures_;  // per body
};

class IfOp final : public SubgraphOp {
 public:
  explicit IfOp(const NodeInfo& node) : SubgraphOp(node) {
    require_inputs(node, 0);
    for (const char* name : {"then_branch", "else_branch"}) {
      const ir::Graph& body = node.required_graph(name);
      if (!body.inputs.empty())
        fail("its {} takes {} inputs, but an If branch takes none", name, body.inputs.size());
      if (body.outputs.size() != node.num_outputs())
        fail("its {} has {} outputs but the node has {}", name, body.outputs.size(),
             node.num_outputs());
      bodies_.push_back(&body);
      captures_.push_back(capture_inputs(node, body));
    }
    if (formal_inputs_ != 1) fail("If takes 1 input (cond), not {}", formal_inputs_);
  }

  void infer(InferContext& ctx) const override {
    const Meta& cond = ctx.input(0);
    if (cond.dtype != DType::kBool)
      fail("input 'cond' must be bool, not {}", dtype_name(cond.dtype));
    std::vector<std::vector<Meta>> branches;
    if (cond.value && cond.value->numel() == 1) {  // one branch is ever taken
      const size_t b = cond.value->to_int64()[0] != 0 ? 0 : 1;
      branches.push_back(passes::infer_subgraph(*bodies_[b], bound(ctx, b, {})));
    } else {
      for (size_t b = 0; b < 2; ++b)
        branches.push_back(passes::infer_subgraph(*bodies_[b], bound(ctx, b, {})));
    }
    for (size_t j = 0; j < ctx.num_outputs(); ++j) {
      Meta m = without_value(branches[0][j]);
      if (branches.size() == 2) {
        const Meta& other = branches[1][j];
        if (m.present() && other.present() && m.dtype != other.dtype)
          fail("its branches give output {} different dtypes ({} and {})", j, dtype_name(m.dtype),
               dtype_name(other.dtype));
        Meta merged = merge(m, other);
        // Analysis: a dim the branches disagree on is at most the larger of the two.
        for (int64_t d = 0;
             merged.present() && merged.kind == ValueKind::kTensor && d < merged.shape.rank(); ++d)
          if (!(m.shape[d] == other.shape[d]) && m.shape[d].is_static() &&
              other.shape[d].is_static())
            merged.shape[d] =
                data_dependent(Dim(std::max(m.shape[d].value(), other.shape[d].value())),
                               fmt::format("output {} dim {} at most the larger branch's", j, d));
        m = std::move(merged);
      }
      if (!m.present()) throw NotStatic();  // known once a branch has run
      set_meta(ctx, j, m);
    }
  }

  bool cost_reads_value(size_t input) const override { return input == 0; }

  // The branch taken when the condition is known, else the larger of the two (by FLOPs, then
  // bytes): an upper bound. Then the copy of the branch's outputs into the node's outputs (the
  // session hands the node a copy): all there is to a branch of Constants, computed ahead of time.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    std::optional<Cost> branch = branch_cost(ctx);
    if (!branch) return std::nullopt;
    branch->bytes_read += ctx.all_output_bytes();
    branch->bytes_written += ctx.all_output_bytes();
    return branch;
  }

  std::optional<Cost> branch_cost(const CostContext& ctx) const {
    const Meta& cond = ctx.input(0);
    if (cond.value && cond.value->numel() == 1) {
      const size_t taken = cond.value->to_int64()[0] != 0 ? 0 : 1;
      return passes::subgraph_cost(*bodies_[taken], bound(ctx, taken, {}));
    }
    const std::optional<Cost> a = passes::subgraph_cost(*bodies_[0], bound(ctx, 0, {}));
    const std::optional<Cost> b = passes::subgraph_cost(*bodies_[1], bound(ctx, 1, {}));
    if (!a || !b) return std::nullopt;
    auto size = [](const Cost& c) {
      return std::make_pair(c.flops, c.bytes_read + c.bytes_written);
    };
    return size(*a) >= size(*b) ? a : b;
  }

  std::string cost_note(const CostContext& ctx, bool figures) const override {
    const Meta& cond = ctx.input(0);
    if (cond.value && cond.value->numel() == 1)
      return fmt::format("the condition is a constant: the {} branch only",
                         cond.value->to_int64()[0] != 0 ? "then" : "else");
    const std::optional<Cost> a = passes::subgraph_cost(*bodies_[0], bound(ctx, 0, {}));
    const std::optional<Cost> b = passes::subgraph_cost(*bodies_[1], bound(ctx, 1, {}));
    if (!a || !b) return "";
    const bool then_larger = std::make_pair(a->flops, a->bytes_read + a->bytes_written) >=
                             std::make_pair(b->flops, b->bytes_read + b->bytes_written);
    const char* larger = then_larger ? "then" : "else";
    if (!figures) return fmt::format("the larger branch ({}) counted: an upper bound", larger);
    return fmt::format(
        "then branch {:.4g} FLOPs, else branch {:.4g} FLOPs: the larger ({}) counted, an upper "
        "bound",
        a->flops, b->flops, larger);
  }
};

class LoopOp final : public SubgraphOp {
 public:
  explicit LoopOp(const NodeInfo& node) : SubgraphOp(node) {
    const ir::Graph& body = node.required_graph("body");
    if (formal_inputs_ < 2) fail("Loop takes at least 2 inputs (M, cond), not {}", formal_inputs_);
    carried_ = formal_inputs_ - 2;
    require_inputs(node, 2);  // M and cond may be omitted
    if (body.inputs.size() != carried_ + 2)
      fail(
          "its body takes {} inputs but should take {} (iteration number, condition and {} "
          "loop-carried values)",
          body.inputs.size(), carried_ + 2, carried_);
    if (body.outputs.size() < carried_ + 1 || body.outputs.size() - 1 != node.num_outputs())
      fail(
          "its body has {} outputs but should have {} (condition, {} loop-carried values and {} "
          "scan outputs, one per output of the node beyond the loop-carried ones)",
          body.outputs.size(), node.num_outputs() + 1, carried_,
          node.num_outputs() >= carried_ ? node.num_outputs() - carried_ : 0);
    if (node.num_outputs() < carried_)
      fail("it has {} outputs, fewer than its {} loop-carried values", node.num_outputs(),
           carried_);
    bodies_.push_back(&body);
    captures_.push_back(capture_inputs(node, body));
  }

  void infer(InferContext& ctx) const override {
    for (size_t i : {size_t(0), size_t(1)})
      if (ctx.has_input(i) && ctx.input(i).shape.numel() != Dim(1))
        fail("input {} ('{}') must hold one value", i, i == 0 ? "M" : "cond");
    std::vector<Meta> inputs = {{DType::kI64, Shape(), nullptr}, {DType::kBool, Shape(), nullptr}};
    for (size_t v = 0; v < carried_; ++v) inputs.push_back(without_value(ctx.input(2 + v)));
    const std::vector<Meta> out = passes::infer_subgraph(*bodies_[0], bound(ctx, 0, inputs));
    for (size_t v = 0; v < carried_; ++v) {
      const Meta m = merge(inputs[2 + v], out[1 + v]);
      if (!m.present()) throw NotStatic();
      set_meta(ctx, v, m);
    }
    for (size_t k = carried_; k < ctx.num_outputs(); ++k) {
      const Meta& slice = out[1 + k];
      if (!slice.present() || slice.kind != ValueKind::kTensor) throw NotStatic();
      // The iterations are known once the loop ends; at most M (analysis's upper bound).
      const Dim most = ctx.has_input(0) && ctx.input(0).value
                           ? Dim(std::max<int64_t>(ctx.input(0).value->to_int64().at(0), 0))
                           : Dim::unknown();
      std::vector<Dim> dims = {data_dependent(most, "iterations at most the trip count M")};
      dims.insert(dims.end(), slice.shape.begin(), slice.shape.end());
      ctx.set_output(k, slice.dtype, Shape(dims));
    }
  }

  bool cost_reads_value(size_t input) const override { return input == 0; }

  // M × one iteration when the trip count M is a constant (an upper bound: the body's condition
  // may end the loop earlier); unknown otherwise.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    if (!ctx.has_input(0) || !ctx.input(0).value) return std::nullopt;
    std::vector<Meta> inputs = {{DType::kI64, Shape(), nullptr}, {DType::kBool, Shape(), nullptr}};
    for (size_t v = 0; v < carried_; ++v) inputs.push_back(without_value(ctx.input(2 + v)));
    const std::optional<Cost> once = passes::subgraph_cost(*bodies_[0], bound(ctx, 0, inputs));
    if (!once) return std::nullopt;
    return repeated(*once, double(std::max<int64_t>(ctx.input(0).value->to_int64().at(0), 0)));
  }

  std::string cost_note(const CostContext& ctx, bool figures) const override {
    if (!ctx.has_input(0) || !ctx.input(0).value)
      return "its trip count M is known only while running: no estimate (strata analyze --dim "
             "gives it a size)";
    const int64_t trips = std::max<int64_t>(ctx.input(0).value->to_int64().at(0), 0);
    const std::optional<Cost> c = cost(ctx);
    if (!c) return "";
    if (!figures || trips == 0)
      return fmt::format(
          "M = {} iterations × one iteration: an upper bound (the body's condition "
          "may end the loop sooner)",
          trips);
    return fmt::format(
        "M = {} iterations × {:.4g} FLOPs per iteration: an upper bound (the body's condition may "
        "end the loop sooner)",
        trips, c->flops / double(trips));
  }

 private:
  size_t carried_ = 0;
};

// Scan from opset 9; before that (opset 8) every input and output has a batch axis first, the
// scan axis is the next one, 'directions' gives the scan inputs' directions and an optional
// sequence_lens input comes first (only the full length is supported). The batched form runs the
// opset-9 form once per batch item (src/runtime/control_flow.cpp).
class ScanOp final : public SubgraphOp {
 public:
  explicit ScanOp(const NodeInfo& node) : SubgraphOp(node), batched_(node.opset() < 9) {
    const ir::Graph& body = node.required_graph("body");
    const size_t first = batched_ ? 1 : 0;  // sequence_lens
    require_inputs(node, first);
    scan_inputs_ = size_t(node.required_int("num_scan_inputs"));
    if (node.required_int("num_scan_inputs") < 1 || scan_inputs_ + first > formal_inputs_)
      fail("num_scan_inputs is {} but the node has {} inputs", node.required_int("num_scan_inputs"),
           formal_inputs_);
    states_ = formal_inputs_ - first - scan_inputs_;
    if (body.inputs.size() != states_ + scan_inputs_)
      fail("its body takes {} inputs but should take {} ({} states and {} scan inputs)",
           body.inputs.size(), states_ + scan_inputs_, states_, scan_inputs_);
    if (body.outputs.size() != node.num_outputs())
      fail("its body has {} outputs but the node has {}", body.outputs.size(), node.num_outputs());
    if (node.num_outputs() < states_)
      fail("it has {} outputs, fewer than its {} state values", node.num_outputs(), states_);
    scan_outputs_ = node.num_outputs() - states_;
    const std::vector<int64_t> forward_in(scan_inputs_, 0), forward_out(scan_outputs_, 0);
    if (batched_) {
      input_axes_ = forward_in;  // of one batch item
      input_reverse_ = node.attr_ints("directions", forward_in);
      output_axes_ = forward_out;
      output_reverse_ = forward_out;
    } else {
      input_axes_ = node.attr_ints("scan_input_axes", forward_in);
      input_reverse_ = node.attr_ints("scan_input_directions", forward_in);
      output_axes_ = node.attr_ints("scan_output_axes", forward_out);
      output_reverse_ = node.attr_ints("scan_output_directions", forward_out);
    }
    if (input_axes_.size() != scan_inputs_ || input_reverse_.size() != scan_inputs_)
      fail("scan_input_axes and scan_input_directions need {} entries, one per scan input",
           scan_inputs_);
    if (output_axes_.size() != scan_outputs_ || output_reverse_.size() != scan_outputs_)
      fail("scan_output_axes and scan_output_directions need {} entries, one per scan output",
           scan_outputs_);
    bodies_.push_back(&body);
    captures_.push_back(capture_inputs(node, body));
  }

  ScanLayout layout(const std::vector<int64_t>& input_ranks) const {
    ScanLayout l;
    l.states = states_;
    l.input_reverse.assign(input_reverse_.begin(), input_reverse_.end());
    l.output_reverse.assign(output_reverse_.begin(), output_reverse_.end());
    for (size_t k = 0; k < scan_inputs_; ++k) {
      const int64_t rank = input_ranks[k], axis = input_axes_[k];
      if (axis < -rank || axis >= rank)
        fail("scan_input_axes[{}] is {}, out of range for scan input {} of rank {}", k, axis,
             states_ + k, rank);
      l.input_axes.push_back(axis < 0 ? axis + rank : axis);
    }
    l.output_axes = output_axes_;  // resolved against each output's rank by the caller
    return l;
  }

  void infer(InferContext& ctx) const override {
    std::vector<Meta> in;
    for (size_t i = batched_ ? 1 : 0; i < formal_inputs_; ++i) in.push_back(ctx.input(i));
    std::vector<Meta> captured;
    for (size_t i : captures_[0]) captured.push_back(ctx.has_input(i) ? ctx.input(i) : Meta{});
    Dim length;
    const std::vector<Meta> out = outputs(in, captured, &length, nullptr);
    for (size_t j = 0; j < out.size(); ++j) ctx.set_output(j, out[j].dtype, out[j].shape);
  }

  // The scan length × one iteration (× the batch before opset 9).
  std::optional<Cost> cost(const CostContext& ctx) const override {
    std::vector<Meta> in;
    for (size_t i = batched_ ? 1 : 0; i < formal_inputs_; ++i) in.push_back(ctx.input(i));
    std::vector<Meta> captured;
    for (size_t i : captures_[0]) captured.push_back(ctx.has_input(i) ? ctx.input(i) : Meta{});
    Dim length;
    std::optional<Cost> once = Cost{};
    double batch = 1;
    if (batched_) batch = double(in[0].shape[0].value());
    outputs(in, captured, &length, &once);
    if (!once || !length.is_static()) return std::nullopt;
    return repeated(*once, double(length.value()) * batch);
  }

  std::string cost_note(const CostContext& ctx, bool figures) const override {
    const std::optional<Cost> c = cost(ctx);
    if (!c) return "";
    std::vector<Meta> in;
    for (size_t i = batched_ ? 1 : 0; i < formal_inputs_; ++i) in.push_back(ctx.input(i));
    std::vector<Meta> captured;
    for (size_t i : captures_[0]) captured.push_back(ctx.has_input(i) ? ctx.input(i) : Meta{});
    Dim length;
    outputs(in, captured, &length, nullptr);
    const double runs = double(length.value()) * (batched_ ? double(in[0].shape[0].value()) : 1);
    if (!figures || runs == 0)
      return fmt::format("the scan length {} × one iteration{}", length.value(),
                         batched_ ? " (× the batch)" : "");
    return fmt::format("the scan length {} × {:.4g} FLOPs per iteration{}", length.value(),
                       c->flops / runs, batched_ ? " (× the batch)" : "");
  }

  int64_t scan_output_axis(size_t k, int64_t rank) const {
    const int64_t axis = output_axes_[k];
    if (axis < -rank || axis >= rank)
      fail("scan_output_axes[{}] is {}, out of range for scan output {} of rank {}", k, axis,
           states_ + k, rank);
    return axis < 0 ? axis + rank : axis;
  }

 private:
  // Output metas for state and scan input metas `in` (batched: with the batch axis first); the
  // scan length in `length`; with `cost`, one iteration's cost.
  std::vector<Meta> outputs(std::vector<Meta> in, const std::vector<Meta>& captured, Dim* length,
                            std::optional<Cost>* cost) const {
    Dim batch;
    if (batched_) {
      for (size_t i = 0; i < in.size(); ++i) {
        const int64_t min_rank = i < states_ ? 1 : 2;
        if (in[i].shape.rank() < min_rank)
          fail("input {} must have a batch axis{}", i + 1, i < states_ ? "" : " and a scan axis");
        if (i == 0) batch = in[i].shape[0];
        std::vector<Dim> dims(in[i].shape.begin() + 1, in[i].shape.end());
        in[i].shape = Shape(dims);
      }
    }
    std::vector<int64_t> ranks;
    for (size_t k = 0; k < scan_inputs_; ++k) ranks.push_back(in[states_ + k].shape.rank());
    const ScanLayout l = layout(ranks);
    std::vector<Meta> bound;
    for (size_t v = 0; v < states_; ++v) bound.push_back(without_value(in[v]));
    for (size_t k = 0; k < scan_inputs_; ++k) {
      const Shape& s = in[states_ + k].shape;
      const Dim n = s[l.input_axes[k]];
      if (k == 0) *length = n;
      if (n.is_static() && length->is_static() && n != *length)
        fail("its scan inputs have different lengths ({} and {})", length->str(), n.str());
      std::vector<Dim> dims(s.begin(), s.end());
      dims.erase(dims.begin() + l.input_axes[k]);
      bound.push_back({in[states_ + k].dtype, Shape(dims), nullptr});
    }
    bound.insert(bound.end(), captured.begin(), captured.end());
    if (cost) {
      *cost = passes::subgraph_cost(*bodies_[0], bound);
      return {};
    }
    const std::vector<Meta> out = passes::infer_subgraph(*bodies_[0], bound);
    std::vector<Meta> result;
    for (size_t j = 0; j < out.size(); ++j) {
      const Meta& m = out[j];
      if (!m.present() || m.kind != ValueKind::kTensor) throw NotStatic();
      std::vector<Dim> dims(m.shape.begin(), m.shape.end());
      if (j >= states_)
        dims.insert(dims.begin() + scan_output_axis(j - states_, m.shape.rank() + 1), *length);
      if (batched_) dims.insert(dims.begin(), batch);
      result.push_back({m.dtype, Shape(dims), nullptr});
    }
    return result;
  }

  bool batched_;
  size_t scan_inputs_ = 0, states_ = 0, scan_outputs_ = 0;
  std::vector<int64_t> input_axes_, input_reverse_, output_axes_, output_reverse_;
};

// SequenceMap: the body runs once per item of the first input (a sequence); further inputs are
// sequences read item by item or tensors read whole; each body output is collected into a
// sequence.
class SequenceMapOp final : public SubgraphOp {
 public:
  explicit SequenceMapOp(const NodeInfo& node) : SubgraphOp(node) {
    require_inputs(node, 0);
    const ir::Graph& body = node.required_graph("body");
    if (body.inputs.size() != formal_inputs_)
      fail("its body takes {} inputs but the node has {}", body.inputs.size(), formal_inputs_);
    if (body.outputs.size() != node.num_outputs())
      fail("its body has {} outputs but the node has {}", body.outputs.size(), node.num_outputs());
    bodies_.push_back(&body);
    captures_.push_back(capture_inputs(node, body));
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input(0).kind != ValueKind::kSequence)
      fail("input 0 must be a sequence, not a {}", value_kind_name(ctx.input(0).kind));
    std::vector<Meta> inputs;  // items of unknown shape: the body's declared types apply
    for (size_t i = 0; i < formal_inputs_; ++i)
      inputs.push_back(ctx.input(i).kind == ValueKind::kTensor ? without_value(ctx.input(i))
                                                               : Meta{});
    const std::vector<Meta> out = passes::infer_subgraph(*bodies_[0], bound(ctx, 0, inputs));
    for (size_t j = 0; j < ctx.num_outputs(); ++j) {
      DType dtype = out[j].dtype;
      if (dtype == DType::kUndefined) {  // the body's declared output type
        const ir::Value& v = bodies_[0]->values[size_t(bodies_[0]->outputs[j])];
        dtype = v.dtype;
      }
      if (dtype == DType::kUndefined) throw NotStatic();
      ctx.set_list_output(j, ValueKind::kSequence, dtype);
    }
  }

  std::string cost_note(const CostContext&, bool) const override { return ""; }

  bool cost_reads_value(size_t input) const override { return input < formal_inputs_; }

  // The sum of the body's cost for each item, once the sequences' items are known (while
  // running); unknown before.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    const Meta& first = ctx.input(0);
    if (!first.value) return std::nullopt;
    Cost total;
    for (size_t k = 0; k < first.value->items().size(); ++k) {
      std::vector<Meta> inputs;
      for (size_t i = 0; i < formal_inputs_; ++i) {
        const Meta& m = ctx.input(i);
        if (m.kind == ValueKind::kTensor) {
          inputs.push_back(without_value(m));
          continue;
        }
        if (!m.value || k >= m.value->items().size()) return std::nullopt;
        const Tensor& item = m.value->items()[k];
        inputs.push_back({item.dtype(), Shape::of(item.shape()), nullptr});
      }
      const std::optional<Cost> once = passes::subgraph_cost(*bodies_[0], bound(ctx, 0, inputs));
      if (!once) return std::nullopt;
      total.macs += once->macs;
      total.flops += once->flops;
      total.bytes_read += once->bytes_read;
      total.bytes_written += once->bytes_written;
      total.param_bytes = std::max(total.param_bytes, once->param_bytes);
      total.workspace_bytes = std::max(total.workspace_bytes, once->workspace_bytes);
    }
    return total;
  }
};

}  // namespace

std::string control_flow_cost_note(const Op& op, const CostContext& ctx, bool figures) {
  const auto* subgraphs = dynamic_cast<const SubgraphOp*>(&op);
  return subgraphs ? subgraphs->cost_note(ctx, figures) : "";
}

ScanLayout scan_layout(const Op& op, const std::vector<int64_t>& input_ranks) {
  const auto* scan = dynamic_cast<const ScanOp*>(&op);
  if (!scan) fail_internal("scan_layout of an op that is not Scan");
  return scan->layout(input_ranks);
}

std::unique_ptr<Op> make_control_flow(const NodeInfo& node) {
  if (node.op_type() == "If") return std::make_unique<IfOp>(node);
  if (node.op_type() == "Loop") return std::make_unique<LoopOp>(node);
  if (node.op_type() == "SequenceMap") return std::make_unique<SequenceMapOp>(node);
  return std::make_unique<ScanOp>(node);
}

}  // namespace strata::ops
