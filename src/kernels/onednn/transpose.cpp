// Transpose, aware of layouts: when the input's memory order already is the output's (a
// channels-last [N,C,H,W] read as [N,H,W,C] by perm 0,2,3,1, or the way back), the output is a
// view of the input in the matching layout and nothing moves. Other permutations are one oneDNN
// reorder from the input read through permuted strides.
#include "ops/transpose.h"

#include <cstring>

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool transpose_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Transpose";
}

// Element strides of each logical dim of `shape` stored in `layout` (plain or channels-last).
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape, Layout layout) {
  std::vector<size_t> order(shape.size());  // dims from outermost to innermost
  for (size_t d = 0; d < order.size(); ++d) order[d] = d;
  if (layout == Layout::kChannelsLast && shape.size() >= 3) {
    order.erase(order.begin() + 1);
    order.push_back(1);
  }
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = stride;
    stride *= shape[order[i]];
  }
  return strides;
}

// True when both stride lists address the same elements (dims of size 1 never move).
bool same_strides(const std::vector<int64_t>& shape, const std::vector<int64_t>& a,
                  const std::vector<int64_t>& b) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && a[d] != b[d]) return false;
  return true;
}

Verdict transpose_supports(const NodeRequest& r) {
  if (!data_type_of(r.input(0).dtype))
    return Verdict::no("oneDNN has no data type for " + std::string(dtype_name(r.input(0).dtype)));
  if (r.input(0).shape.rank() > 6) return Verdict::no("more than 6 dimensions");
  return Verdict::yes("a transpose by strides (or a view when the layout already matches)");
}

class TransposeKernel final : public Kernel {
 public:
  explicit TransposeKernel(const NodeRequest& r) {
    const std::vector<int64_t> in = r.input(0).shape.values(), out = r.output(0).shape.values();
    const std::vector<int64_t> perm = *ops::transpose_permutation(r.op, int64_t(in.size()));
    const Layout in_layout =
        r.input_layouts[0] == Layout::kChannelsLast ? Layout::kChannelsLast : Layout::kPlain;
    const std::vector<int64_t> in_strides = strides_of(in, in_layout);
    std::vector<int64_t> read;  // element strides that read the output's dims from the input
    for (int64_t axis : perm) read.push_back(in_strides[size_t(axis)]);
    input_layouts_ = {in_layout};
    for (Layout layout : {Layout::kPlain, Layout::kChannelsLast}) {
      if (!layout_fits(layout, int64_t(out.size())) ||
          !same_strides(out, read, strides_of(out, layout)))
        continue;
      name_ = "strata:view";
      output_layouts_ = {layout};
      view_of_input_ = 0;
      bytes_ = r.output(0).shape.numel().value() * int64_t(dtype_size(r.output(0).dtype));
      return;
    }
    const memory::data_type type = *data_type_of(r.input(0).dtype);
    const memory::desc src(memory::dims(out.begin(), out.end()), type,
                           memory::dims(read.begin(), read.end()));
    const memory::desc dst = desc_of(out, Layout::kPlain, type);
    const dnnl::reorder::primitive_desc pd(cpu_engine(), src, cpu_engine(), dst,
                                           user_scratchpad_attr());
    name_ = impl_name(pd);
    output_layouts_ = {Layout::kPlain};
    primitive_ = BoundPrimitive(dnnl::reorder(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    src_slot_ = primitive_.add_slot(DNNL_ARG_FROM, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_TO, dst);
  }

  void run(const KernelArgs& args) override {
    if (view_of_input_ >= 0) {  // the session normally shares the buffer: nothing to do
      if (args.inputs[0]->raw() != args.outputs[0]->raw())
        std::memcpy(args.outputs[0]->raw(), args.inputs[0]->raw(), size_t(bytes_));
      return;
    }
    primitive_.set(src_slot_, args.inputs[0]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1;
  int64_t bytes_ = 0;
};

std::unique_ptr<Kernel> transpose_prepare(const NodeRequest& r) {
  return std::make_unique<TransposeKernel>(r);
}

}  // namespace

KernelFamily transpose_family() {
  return {"onednn_transpose", true, &transpose_serves, &transpose_supports,
          &transpose_prepare, false};
}

}  // namespace strata::kernels::onednn
