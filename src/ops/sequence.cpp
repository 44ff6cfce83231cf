// Sequences and optionals (ValueKind::kSequence, kOptional): SequenceEmpty, SequenceConstruct,
// SequenceAt, SequenceInsert, SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence,
// Optional, OptionalHasElement, OptionalGetElement. A list is a Tensor whose items are owned,
// shared and never modified, so these kernels copy tensors into lists and out of them but never
// copy a list's items. Lists are made while running: the session runs their producers as dynamic
// steps, and rules that read a list's items (SequenceAt's shape) need its value, known then.
#include <cstring>

#include "core/checked.h"
#include "core/run_memory.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

// Writes `v` to a kernel output: into its buffer when the session planned one of v's shape,
// else in its place.
void put(Tensor& out, const Tensor& v) {
  if (v.is_tensor() && out.is_tensor() && out.raw() && out.dtype() == v.dtype() &&
      out.shape() == v.shape()) {
    if (v.nbytes()) std::memcpy(out.raw(), v.raw(), v.nbytes());
    return;
  }
  out = v.is_tensor() ? v.clone() : v;
}

// A position input (int32 or int64 scalar) resolved against a list of `size` items; `end` is
// allowed for insertion.
int64_t position(const Tensor& t, int64_t size, bool allow_end) {
  if (t.dtype() != DType::kI64 && t.dtype() != DType::kI32)
    fail("input 'position' must be int32 or int64, not {}", dtype_name(t.dtype()));
  if (t.numel() != 1) fail("input 'position' must hold one value, not {}", t.numel());
  const int64_t p = t.to_int64()[0];
  const int64_t resolved = p < 0 ? p + size : p;
  if (resolved < 0 || resolved > size || (resolved == size && !allow_end))
    fail("position {} is out of range for a sequence of {} items", p, size);
  return resolved;
}

const Meta& list_input(const InferContext& ctx, size_t i, ValueKind kind) {
  const Meta& m = ctx.input(i);
  if (m.kind != kind)
    fail("input {} must be a {}, not a {}", i, value_kind_name(kind), value_kind_name(m.kind));
  return m;
}

void tensor_input(const InferContext& ctx, size_t i) {
  if (ctx.input(i).kind != ValueKind::kTensor)
    fail("input {} must be a tensor, not a {}", i, value_kind_name(ctx.input(i).kind));
}

class ListOp : public Op {
 public:
  bool takes_lists() const override { return true; }
  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }
};

class SequenceEmptyOp final : public ListOp {
 public:
  explicit SequenceEmptyOp(const NodeInfo& node) {
    const int64_t onnx_type = node.attr_int("dtype", 1);
    if (!dtype_from_onnx(int(onnx_type), &dtype_)) fail("dtype {} is not supported", onnx_type);
  }
  void infer(InferContext& ctx) const override {
    ctx.set_list_output(0, ValueKind::kSequence, dtype_);
  }
  void run(KernelContext& ctx) const override { ctx.output(0) = Tensor::sequence(dtype_, {}); }

 private:
  DType dtype_ = DType::kF32;
};

class SequenceConstructOp final : public ListOp {
 public:
  explicit SequenceConstructOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override {
    if (ctx.num_inputs() == 0) fail("SequenceConstruct needs at least one input");
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      tensor_input(ctx, i);
      if (ctx.dtype(i) != ctx.dtype(0))
        fail("input {} is {} but input 0 is {}: a sequence holds one element type", i,
             dtype_name(ctx.dtype(i)), dtype_name(ctx.dtype(0)));
    }
    ctx.set_list_output(0, ValueKind::kSequence, ctx.dtype(0));
  }
  void run(KernelContext& ctx) const override {
    int64_t data = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) data += int64_t(ctx.input(i).nbytes());
    charge_run_memory(list_bytes(int64_t(ctx.num_inputs()), data), "the sequence of output", 0);
    std::vector<Tensor> items;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) items.push_back(ctx.input(i).clone());
    ctx.output(0) = Tensor::sequence(ctx.input(0).dtype(), std::move(items));
  }
};

class SequenceAtOp final : public ListOp {
 public:
  explicit SequenceAtOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override {
    const Meta& seq = list_input(ctx, 0, ValueKind::kSequence);
    if (!seq.value || !ctx.input(1).value) throw NotStatic();  // the item's shape: while running
    const Tensor& item = at(*seq.value, *ctx.input(1).value);
    if (!item.is_tensor()) return ctx.set_list_output(0, item.kind(), item.dtype());
    ctx.set_output(0, item.dtype(), Shape::of(item.shape()));
  }
  void run(KernelContext& ctx) const override {
    put(ctx.output(0), at(ctx.input(0), ctx.input(1)));
  }

 private:
  static const Tensor& at(const Tensor& seq, const Tensor& pos) {
    return seq.items()[size_t(position(pos, int64_t(seq.items().size()), false))];
  }
};

class SequenceInsertOp final : public ListOp {
 public:
  explicit SequenceInsertOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override {
    const Meta& seq = list_input(ctx, 0, ValueKind::kSequence);
    tensor_input(ctx, 1);
    if (ctx.dtype(1) != seq.dtype)
      fail("input 'tensor' is {} but the sequence holds {}", dtype_name(ctx.dtype(1)),
           dtype_name(seq.dtype));
    ctx.set_list_output(0, ValueKind::kSequence, seq.dtype);
  }
  void run(KernelContext& ctx) const override {
    const Tensor& seq = ctx.input(0);
    // The whole list, though its old items are shared: a Loop that inserts one item per
    // iteration meets the limit when the list it carries grows past it.
    charge_run_memory(list_bytes(seq.items()), "the sequence of output", 0);
    charge_run_memory(list_bytes(1, int64_t(ctx.input(1).nbytes())), "the sequence of output", 0);
    std::vector<Tensor> items = seq.items();
    const int64_t at = ctx.has_input(2) ? position(ctx.input(2), int64_t(items.size()), true)
                                        : int64_t(items.size());
    items.insert(items.begin() + at, ctx.input(1).clone());
    ctx.output(0) = Tensor::sequence(seq.dtype(), std::move(items));
  }
};

class SequenceEraseOp final : public ListOp {
 public:
  explicit SequenceEraseOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override {
    const Meta& seq = list_input(ctx, 0, ValueKind::kSequence);
    ctx.set_list_output(0, ValueKind::kSequence, seq.dtype);
  }
  void run(KernelContext& ctx) const override {
    const Tensor& seq = ctx.input(0);
    std::vector<Tensor> items = seq.items();
    if (items.empty()) fail("cannot erase from an empty sequence");
    const int64_t at = ctx.has_input(1) ? position(ctx.input(1), int64_t(items.size()), false)
                                        : int64_t(items.size()) - 1;
    items.erase(items.begin() + at);
    ctx.output(0) = Tensor::sequence(seq.dtype(), std::move(items));
  }
};

class SequenceLengthOp final : public ListOp {
 public:
  explicit SequenceLengthOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override {
    list_input(ctx, 0, ValueKind::kSequence);
    ctx.set_output(0, DType::kI64, Shape());
  }
  void run(KernelContext& ctx) const override {
    put(ctx.output(0), Tensor::from<int64_t>({}, {int64_t(ctx.input(0).items().size())}));
  }
};

// Copies slices [begin, end) of `src` along `axis` into a new tensor.
Tensor slice_of(const Tensor& src, int64_t axis, int64_t begin, int64_t end) {
  std::vector<int64_t> shape = src.shape();
  int64_t outer = 1, inner = int64_t(dtype_size(src.dtype()));
  for (int64_t d = 0; d < axis; ++d) outer *= shape[size_t(d)];
  for (int64_t d = axis + 1; d < src.rank(); ++d) inner *= shape[size_t(d)];
  const int64_t length = shape[size_t(axis)];
  shape[size_t(axis)] = end - begin;
  Tensor out = Tensor::zeros(src.dtype(), shape);
  const auto* from = static_cast<const uint8_t*>(src.raw());
  auto* to = static_cast<uint8_t*>(out.raw());
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(to + o * (end - begin) * inner, from + (o * length + begin) * inner,
                size_t((end - begin) * inner));
  return out;
}

class SplitToSequenceOp final : public ListOp {
 public:
  explicit SplitToSequenceOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", 0)), keepdims_(node.attr_int("keepdims", 1) != 0) {}
  void infer(InferContext& ctx) const override {
    tensor_input(ctx, 0);
    normalize_axis(axis_, ctx.shape(0).rank());
    if (ctx.has_input(1)) tensor_input(ctx, 1);  // a list here would have no values to split by
    if (ctx.has_input(1) && ctx.dtype(1) != DType::kI64 && ctx.dtype(1) != DType::kI32)
      fail("input 'split' must be int32 or int64, not {}", dtype_name(ctx.dtype(1)));
    ctx.set_list_output(0, ValueKind::kSequence, ctx.dtype(0));
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) fail("input 'input' is a scalar: there is no axis to split along");
    const int64_t axis = normalize_axis(axis_, x.rank());
    const int64_t length = x.dim(axis);
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (!ctx.has_input(1)) {  // pieces of 1, squeezed unless keepdims
      // Before the list of sizes: an axis of 2^40 empty slices is a list of 2^40 tensors.
      charge_pieces(x, length);
      sizes.assign(size_t(length), 1);
      squeeze = !keepdims_;
    } else {
      const Tensor& split = ctx.input(1);
      const std::vector<int64_t> v = split.to_int64();
      if (!split.is_tensor()) fail("input 'split' must be a tensor, not a list");
      if (split.rank() == 0) {  // pieces of v[0], the last one smaller
        if (v[0] <= 0) fail("input 'split' must be positive, not {}", v[0]);
        charge_pieces(x, length / v[0] + 1);
        for (int64_t at = 0; at < length; at += v[0]) sizes.push_back(std::min(v[0], length - at));
      } else {
        int64_t total = 0;
        for (int64_t s : v) {
          if (s < 0) fail("input 'split' has a negative size {}", s);
          total += s;
        }
        if (total != length)
          fail("input 'split' sums to {} but the axis has {} elements", total, length);
        charge_pieces(x, int64_t(v.size()));
        sizes = v;
      }
    }
    std::vector<Tensor> items;
    int64_t at = 0;
    for (int64_t s : sizes) {
      Tensor piece = slice_of(x, axis, at, at + s);
      at += s;
      if (squeeze) {
        std::vector<int64_t> shape = piece.shape();
        shape.erase(shape.begin() + axis);
        piece.reshape_unchecked(shape);
      }
      items.push_back(std::move(piece));
    }
    ctx.output(0) = Tensor::sequence(x.dtype(), std::move(items));
  }

 private:
  static void charge_pieces(const Tensor& x, int64_t pieces) {
    charge_run_memory(list_bytes(pieces, int64_t(x.nbytes())), "the sequence of output", 0);
  }
  int64_t axis_;
  bool keepdims_;
};

class ConcatFromSequenceOp final : public ListOp {
 public:
  explicit ConcatFromSequenceOp(const NodeInfo& node)
      : axis_(node.required_int("axis")), new_axis_(node.attr_int("new_axis", 0) != 0) {}
  void infer(InferContext& ctx) const override {
    const Meta& seq = list_input(ctx, 0, ValueKind::kSequence);
    if (!seq.value) throw NotStatic();  // the items' shapes: while running
    std::vector<std::vector<int64_t>> shapes;
    const std::vector<int64_t> out_shape = concat_shape(seq.value->items(), shapes);
    ctx.set_output(0, seq.value->items()[0].dtype(), Shape::of(out_shape));
  }
  void run(KernelContext& ctx) const override { put(ctx.output(0), concat(ctx.input(0))); }

 private:
  // The output's shape (checking the items fit together) and each item's, with the new axis.
  std::vector<int64_t> concat_shape(const std::vector<Tensor>& items,
                                    std::vector<std::vector<int64_t>>& shapes) const {
    if (items.empty()) fail("cannot concatenate an empty sequence");
    const Tensor& first = items[0];
    const int64_t rank = first.rank() + (new_axis_ ? 1 : 0);
    const int64_t axis = normalize_axis(axis_, rank);
    std::vector<int64_t> base = first.shape();
    if (new_axis_) base.insert(base.begin() + axis, 1);
    int64_t total = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      std::vector<int64_t> s = items[i].shape();
      if (new_axis_) s.insert(s.begin() + axis, 1);
      if (!items[i].is_tensor() || int64_t(s.size()) != rank)
        fail("item {} has shape {}, unlike item 0's {}", i, items[i].shape_str(),
             first.shape_str());
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && s[size_t(d)] != base[size_t(d)])
          fail("item {} has shape {}, unlike item 0's {} off axis {}", i, items[i].shape_str(),
               first.shape_str(), axis);
      total = checked_add(total, s[size_t(axis)]);
      shapes.push_back(std::move(s));
    }
    std::vector<int64_t> out_shape = base;
    out_shape[size_t(axis)] = total;
    return out_shape;
  }

  Tensor concat(const Tensor& seq) const {
    const std::vector<Tensor>& items = seq.items();
    std::vector<std::vector<int64_t>> shapes;
    const std::vector<int64_t> out_shape = concat_shape(items, shapes);
    const Tensor& first = items[0];
    const int64_t rank = int64_t(out_shape.size());
    const int64_t axis = normalize_axis(axis_, rank);
    const int64_t total = out_shape[size_t(axis)];
    std::vector<int64_t> base = out_shape;
    Tensor out = Tensor::zeros(first.dtype(), out_shape);
    int64_t outer = 1, inner = int64_t(dtype_size(first.dtype()));
    for (int64_t d = 0; d < axis; ++d) outer *= base[size_t(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= base[size_t(d)];
    auto* to = static_cast<uint8_t*>(out.raw());
    int64_t offset = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const int64_t n = shapes[i][size_t(axis)];
      const auto* from = static_cast<const uint8_t*>(items[i].raw());
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(to + (o * total + offset) * inner, from + o * n * inner, size_t(n * inner));
      offset += n;
    }
    return out;
  }
  int64_t axis_;
  bool new_axis_;
};

class OptionalOp final : public ListOp {
 public:
  explicit OptionalOp(const NodeInfo& node) {
    if (const ir::Attribute* type = node.attr_type("type")) {
      has_type_ = true;
      dtype_ = type->dtype;
    }
    if (!node.has_input(0) && !has_type_)
      fail("Optional without an input needs its 'type' attribute");
  }
  void infer(InferContext& ctx) const override {
    const DType elem = ctx.has_input(0) ? ctx.dtype(0) : dtype_;
    ctx.set_list_output(0, ValueKind::kOptional, elem);
  }
  void run(KernelContext& ctx) const override {
    if (!ctx.has_input(0)) {
      ctx.output(0) = Tensor::optional(dtype_, {});
      return;
    }
    ctx.output(0) = Tensor::optional(ctx.input(0).dtype(), {ctx.input(0).clone()});
  }

 private:
  bool has_type_ = false;
  DType dtype_ = DType::kUndefined;
};

class OptionalHasElementOp final : public ListOp {
 public:
  explicit OptionalHasElementOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override { ctx.set_output(0, DType::kBool, Shape()); }
  void run(KernelContext& ctx) const override {
    const bool has = ctx.has_input(0) &&
                     (ctx.input(0).kind() != ValueKind::kOptional || !ctx.input(0).items().empty());
    put(ctx.output(0), Tensor::from<bool>({}, {has}));
  }
};

class OptionalGetElementOp final : public ListOp {
 public:
  explicit OptionalGetElementOp(const NodeInfo&) {}
  void infer(InferContext& ctx) const override {
    const Meta& in = ctx.input(0);
    if (in.kind == ValueKind::kTensor) return ctx.set_output(0, in.dtype, in.shape);
    if (in.kind == ValueKind::kSequence) return ctx.set_list_output(0, in.kind, in.dtype);
    if (!in.value) throw NotStatic();  // a tensor or a sequence: known while running
    const Tensor& item = element(*in.value);
    if (!item.is_tensor()) return ctx.set_list_output(0, item.kind(), item.dtype());
    ctx.set_output(0, item.dtype(), Shape::of(item.shape()));
  }
  void run(KernelContext& ctx) const override { put(ctx.output(0), element(ctx.input(0))); }

 private:
  static const Tensor& element(const Tensor& in) {
    if (in.kind() != ValueKind::kOptional) return in;
    if (in.items().empty()) fail("the optional input is empty");
    return in.items()[0];
  }
};

}  // namespace

std::unique_ptr<Op> make_sequence(const NodeInfo& node) {
  const std::string& t = node.op_type();
  if (t == "SequenceEmpty") return std::make_unique<SequenceEmptyOp>(node);
  if (t == "SequenceConstruct") return std::make_unique<SequenceConstructOp>(node);
  if (t == "SequenceAt") return std::make_unique<SequenceAtOp>(node);
  if (t == "SequenceInsert") return std::make_unique<SequenceInsertOp>(node);
  if (t == "SequenceErase") return std::make_unique<SequenceEraseOp>(node);
  if (t == "SequenceLength") return std::make_unique<SequenceLengthOp>(node);
  if (t == "SplitToSequence") return std::make_unique<SplitToSequenceOp>(node);
  if (t == "ConcatFromSequence") return std::make_unique<ConcatFromSequenceOp>(node);
  if (t == "Optional") return std::make_unique<OptionalOp>(node);
  if (t == "OptionalHasElement") return std::make_unique<OptionalHasElementOp>(node);
  return std::make_unique<OptionalGetElementOp>(node);
}

}  // namespace strata::ops
