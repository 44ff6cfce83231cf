// Einsum: a general reference implementation of Einstein summation with numpy's rules.
// Explicit ("ij,jk->ik") and implicit ("ij,jk": the labels used once, sorted, after the ellipsis)
// outputs; '...' stands for broadcast leading dims; a label repeated within an operand takes its
// diagonal; labels absent from the output are summed over; size-1 dims broadcast.
#include <algorithm>
#include <map>
#include <string>

#include "ops/einsum_equation.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

using Term = EinsumTerm;
using Equation = EinsumEquation;

// The dim of `term`'s operand (of rank `rank`) that holds labels[p].
int64_t label_dim(const Term& term, int64_t rank, int64_t p) {
  const int64_t ellipsis_rank = rank - int64_t(term.labels.size());
  return term.has_ellipsis() && p >= term.ellipsis_at ? p + ellipsis_rank : p;
}

// Sizes of the ellipsis dims and of every label, from the operands' shapes.
struct Sizes {
  Shape ellipsis;
  std::map<char, Dim> labels;
};

// Merges another occurrence of a label: equal sizes, or a size 1 that broadcasts.
Dim merge_label(const Dim& seen, const Dim& dim, char label) {
  if (seen == dim || (dim.is_static() && dim.value() == 1)) return seen;
  if (seen.is_static() && seen.value() == 1) return dim;
  if (seen.is_static() && dim.is_static())
    fail("label '{}' has sizes {} and {} in different operands", label, seen.value(), dim.value());
  throw NotStatic{};
}

Sizes resolve_sizes(const Equation& eq, const std::vector<Shape>& shapes) {
  if (shapes.size() != eq.inputs.size())
    fail("equation has {} operands but the node has {} inputs", eq.inputs.size(), shapes.size());
  Sizes sizes;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Term& term = eq.inputs[k];
    const Shape& shape = shapes[k];
    const int64_t ellipsis_rank = shape.rank() - int64_t(term.labels.size());
    if (ellipsis_rank < 0 || (!term.has_ellipsis() && ellipsis_rank != 0))
      fail("input {} has rank {}, which does not match its subscripts '{}'", k, shape.rank(),
           term.labels);
    if (term.has_ellipsis()) {
      const Shape ellipsis(shape.dims().subspan(size_t(term.ellipsis_at), size_t(ellipsis_rank)));
      sizes.ellipsis = broadcast_shapes(sizes.ellipsis, ellipsis);
    }
    std::map<char, Dim> own;  // a label repeated within one operand needs equal sizes
    for (int64_t p = 0; p < int64_t(term.labels.size()); ++p) {
      const char label = term.labels[size_t(p)];
      const Dim& dim = shape[label_dim(term, shape.rank(), p)];
      if (own.count(label)) require_equal_dims(own[label], dim, "sizes of a repeated label");
      own.emplace(label, dim);
    }
    for (const auto& [label, dim] : own) {
      auto it = sizes.labels.find(label);
      if (it == sizes.labels.end())
        sizes.labels.emplace(label, dim);
      else
        it->second = merge_label(it->second, dim, label);
    }
  }
  if (!eq.output.has_ellipsis() && sizes.ellipsis.rank() > 0)
    fail("the output subscripts need '...' for the inputs' broadcast dims");
  return sizes;
}

Shape output_shape(const Term& output, const Sizes& sizes) {
  Shape out;
  for (int64_t p = 0; p <= int64_t(output.labels.size()); ++p) {
    if (p == output.ellipsis_at)
      for (const Dim& d : sizes.ellipsis.dims()) out.push_back(d);
    if (p < int64_t(output.labels.size())) out.push_back(sizes.labels.at(output.labels[size_t(p)]));
  }
  return out;
}

// The loop nest: one axis per ellipsis dim and per label, output axes first (in output order),
// then the summed labels. Each operand and the output read/write through per-axis strides.
struct LoopNest {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> input_strides;  // [operand][axis]
  std::vector<int64_t> output_strides;              // 0 on summed axes
};

LoopNest loop_nest(const Equation& eq, const std::vector<const Tensor*>& inputs) {
  std::vector<Shape> shapes;
  for (const Tensor* t : inputs) shapes.push_back(Shape::of(t->shape()));
  const Sizes sizes = resolve_sizes(eq, shapes);
  const int64_t ellipsis_rank = sizes.ellipsis.rank();
  // Axis ids: a label is its character code; ellipsis dim e is 256 + e.
  std::vector<int> axes;
  const Term& out = eq.output;
  for (int64_t p = 0; p <= int64_t(out.labels.size()); ++p) {
    if (p == out.ellipsis_at)
      for (int64_t e = 0; e < ellipsis_rank; ++e) axes.push_back(256 + int(e));
    if (p < int64_t(out.labels.size())) axes.push_back(out.labels[size_t(p)]);
  }
  const size_t num_output_axes = axes.size();
  for (const auto& [label, dim] : sizes.labels)
    if (out.labels.find(label) == std::string::npos) axes.push_back(label);

  LoopNest nest;
  for (int id : axes)
    nest.sizes.push_back(id >= 256 ? sizes.ellipsis[id - 256].value()
                                   : sizes.labels.at(char(id)).value());
  auto axis_of = [&](int id) {
    return size_t(std::find(axes.begin(), axes.end(), id) - axes.begin());
  };
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Term& term = eq.inputs[k];
    const std::vector<int64_t>& shape = inputs[k]->shape();
    const int64_t rank = int64_t(shape.size());
    const int64_t own_ellipsis = rank - int64_t(term.labels.size());
    std::vector<int> dim_axis(static_cast<size_t>(rank));  // axis id of each dim of this operand
    for (int64_t p = 0; p < int64_t(term.labels.size()); ++p)
      dim_axis[size_t(label_dim(term, rank, p))] = term.labels[size_t(p)];
    for (int64_t e = 0; e < own_ellipsis; ++e)  // right-aligned against the broadcast dims
      dim_axis[size_t(term.ellipsis_at + e)] = 256 + int(ellipsis_rank - own_ellipsis + e);
    std::vector<int64_t> strides(axes.size(), 0);
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const size_t axis = axis_of(dim_axis[size_t(d)]);
      if (shape[size_t(d)] == nest.sizes[axis]) strides[axis] += stride;  // else broadcast 1
      stride *= shape[size_t(d)];
    }
    nest.input_strides.push_back(std::move(strides));
  }
  nest.output_strides.assign(axes.size(), 0);
  int64_t stride = 1;
  for (size_t a = num_output_axes; a-- > 0;) {
    nest.output_strides[a] = stride;
    stride *= nest.sizes[a];
  }
  return nest;
}

template <class T>
void einsum_kernel(const LoopNest& nest, const std::vector<const Tensor*>& inputs, Tensor& out) {
  std::vector<acc_t<T>> acc(size_t(out.numel()), acc_t<T>(0));
  int64_t total = 1, output_count = 1;
  for (size_t a = 0; a < nest.sizes.size(); ++a) {
    total *= nest.sizes[a];
    if (nest.output_strides[a]) output_count *= nest.sizes[a];
  }
  if (total > 0 && output_count != out.numel()) fail_internal("Einsum output size does not match");
  const size_t num_axes = nest.sizes.size();
  std::vector<int64_t> index(num_axes, 0);
  std::vector<int64_t> offsets(inputs.size(), 0);
  int64_t out_offset = 0;
  for (int64_t step = 0; step < total; ++step) {
    acc_t<T> product = 1;
    for (size_t k = 0; k < inputs.size(); ++k)
      product = wrap_mul(product, to_acc(inputs[k]->data<T>()[offsets[k]]));
    acc[size_t(out_offset)] = wrap_add(acc[size_t(out_offset)], product);
    for (size_t a = num_axes; a-- > 0;) {  // odometer step, moving every offset along
      if (++index[a] < nest.sizes[a]) {
        for (size_t k = 0; k < inputs.size(); ++k) offsets[k] += nest.input_strides[k][a];
        out_offset += nest.output_strides[a];
        break;
      }
      const int64_t wrapped = nest.sizes[a] - 1;
      for (size_t k = 0; k < inputs.size(); ++k) offsets[k] -= nest.input_strides[k][a] * wrapped;
      out_offset -= nest.output_strides[a] * wrapped;
      index[a] = 0;
    }
  }
  T* y = out.data<T>();
  for (size_t i = 0; i < acc.size(); ++i) y[i] = from_acc<T>(acc[i]);
}

class EinsumOp final : public Op {
 public:
  explicit EinsumOp(const NodeInfo& node) {
    if (!node.has_attr("equation")) fail("required attribute 'equation' is missing");
    equation_ = parse_einsum_equation(node.attr_string("equation"));
  }

  void infer(InferContext& ctx) const override {
    std::vector<Shape> shapes;
    for (size_t k = 0; k < ctx.num_inputs(); ++k) {
      if (!is_float(ctx.dtype(k)) && !is_integer(ctx.dtype(k)))
        fail("input {} does not support dtype {}", k, dtype_name(ctx.dtype(k)));
      if (ctx.dtype(k) != ctx.dtype(0))
        fail("inputs must have the same dtype, got {} and {}", dtype_name(ctx.dtype(0)),
             dtype_name(ctx.dtype(k)));
      shapes.push_back(ctx.shape(k));
    }
    ctx.set_output(0, ctx.dtype(0),
                   output_shape(equation_.output, resolve_sizes(equation_, shapes)));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    std::vector<Shape> shapes;
    for (size_t k = 0; k < ctx.num_inputs(); ++k) shapes.push_back(ctx.input(k).shape);
    const Sizes sizes = resolve_sizes(equation_, shapes);
    Cost c = data_movement_cost(ctx);
    c.macs = double(sizes.ellipsis.numel().value());  // one MAC per point of the index space
    for (const auto& [label, dim] : sizes.labels) c.macs *= double(dim.value());
    c.flops = 2 * c.macs;
    c.param_bytes = constant_input_bytes(ctx);
    return c;
  }

  void run(KernelContext& ctx) const override {
    std::vector<const Tensor*> inputs;
    for (size_t k = 0; k < ctx.num_inputs(); ++k) inputs.push_back(&ctx.input(k));
    const LoopNest nest = loop_nest(equation_, inputs);
    visit_numeric(inputs.at(0)->dtype(),
                  [&]<class T>(Type<T>) { einsum_kernel<T>(nest, inputs, ctx.output(0)); });
  }

 private:
  Equation equation_;
};

}  // namespace

std::unique_ptr<Op> make_einsum(const NodeInfo& node) {
  return std::make_unique<EinsumOp>(node);
}

}  // namespace strata::ops
