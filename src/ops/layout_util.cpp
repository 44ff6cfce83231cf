#include "ops/layout_util.h"

#include <algorithm>
#include <cstring>

namespace strata::ops {

void require_fixed_size(DType dtype) {
  if (dtype_size(dtype) == 0) fail("does not support dtype {}", dtype_name(dtype));
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

namespace {

// Word is an unsigned integer type of the element's size, so each element is one load and store.
template <class Word>
void strided_copy_words(const Word* src, int64_t offset, const std::vector<int64_t>& in_strides,
                        const std::vector<int64_t>& in_shape, Word* dst) {
  int64_t total = 1;
  for (int64_t d : in_shape) total *= d;
  if (total == 0) return;
  // Axes of size 1 dropped and neighbours that step through the source as one merged (an Expand
  // of [150, 1, 1, 1] to [150, 256, 7, 7] becomes 150 fills of 12,544 values, not 268,800 loops
  // of 7), so the innermost loop is as long as it can be.
  std::vector<int64_t> out_shape, strides;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (in_shape[d] == 1) continue;
    if (!out_shape.empty() && strides.back() == in_strides[d] * in_shape[d]) {
      out_shape.back() *= in_shape[d];
      strides.back() = in_strides[d];
      continue;
    }
    out_shape.push_back(in_shape[d]);
    strides.push_back(in_strides[d]);
  }
  const size_t rank = out_shape.size();
  if (rank == 0) {
    dst[0] = src[offset];
    return;
  }
  // Walk the outer dims with an odometer; the innermost dim is a simple strided loop.
  const int64_t inner = out_shape[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  int64_t src_pos = offset;
  for (int64_t done = 0; done < total; done += inner) {
    if (inner_stride == 1) {
      std::memcpy(dst, src + src_pos, size_t(inner) * sizeof(Word));
    } else if (inner_stride == 0) {
      std::fill_n(dst, inner, src[src_pos]);
    } else {
      for (int64_t i = 0; i < inner; ++i) dst[i] = src[src_pos + i * inner_stride];
    }
    dst += inner;
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out_shape[d]) {
        src_pos += strides[d];
        break;
      }
      src_pos -= strides[d] * (out_shape[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace

void strided_copy(const void* src, int64_t offset, const std::vector<int64_t>& strides,
                  const std::vector<int64_t>& out_shape, void* dst, size_t elem_size) {
  switch (elem_size) {
    case 1:
      return strided_copy_words(static_cast<const uint8_t*>(src), offset, strides, out_shape,
                                static_cast<uint8_t*>(dst));
    case 2:
      return strided_copy_words(static_cast<const uint16_t*>(src), offset, strides, out_shape,
                                static_cast<uint16_t*>(dst));
    case 4:
      return strided_copy_words(static_cast<const uint32_t*>(src), offset, strides, out_shape,
                                static_cast<uint32_t*>(dst));
    case 8:
      return strided_copy_words(static_cast<const uint64_t*>(src), offset, strides, out_shape,
                                static_cast<uint64_t*>(dst));
    default: fail_internal("strided copy of {}-byte elements", elem_size);
  }
}

void copy_all_bytes(const Tensor& src, Tensor& dst) {
  // Infer validated the element count; this guards the buffers should a run-time shape disagree.
  if (src.nbytes() != dst.nbytes())
    fail("input shape {} does not fit the output shape {}", src.shape_str(), dst.shape_str());
  if (dst.raw() != src.raw() && src.nbytes()) std::memcpy(dst.raw(), src.raw(), src.nbytes());
}

std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t rank,
                                    const char* what) {
  if (rank == 0 && !axes.empty()) fail("{} {} is out of range for a scalar", what, axes[0]);
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t axis : axes) {
    const int64_t a = normalize_axis(axis, rank, what);
    // A repeat among the axes already kept (a few at most: no set needed).
    if (std::find(out.begin(), out.end(), a) != out.end()) fail("{} {} is repeated", what, axis);
    out.push_back(a);
  }
  return out;
}

std::optional<std::vector<int64_t>> attr_or_input_ints(
    const std::optional<std::vector<int64_t>>& attribute, const InferContext& ctx, size_t index) {
  if (attribute) return attribute;
  if (ctx.has_input(index)) return ctx.ints(index);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> attr_or_input_ints(
    const std::optional<std::vector<int64_t>>& attribute, const KernelContext& ctx, size_t index) {
  if (attribute) return attribute;
  if (ctx.has_input(index)) return ctx.input(index).to_int64();
  return std::nullopt;
}

std::optional<std::vector<int64_t>> optional_ints_attr(const NodeInfo& node, const char* name) {
  if (!node.has_attr(name)) return std::nullopt;
  return node.attr_ints(name);
}

}  // namespace strata::ops
