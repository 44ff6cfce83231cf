// Shared pieces of the data-movement ops (Concat, Slice, Transpose, Pad, ...): they copy bytes by
// element size, so one kernel serves every fixed-size dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

// Fails for dtypes without a fixed element size (strings), which byte copies cannot move.
void require_fixed_size(DType dtype);

// Element strides of a contiguous row-major tensor of `shape`.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);

// Fills the contiguous tensor `dst` of `out_shape`: the element at index (i0, i1, ...) is read from
// src at element offset `offset + i0*strides[0] + i1*strides[1] + ...` (strides may be 0 or
// negative). Transpose, Slice, Expand, Tile and DepthToSpace are all this copy with their strides.
void strided_copy(const void* src, int64_t offset, const std::vector<int64_t>& strides,
                  const std::vector<int64_t>& out_shape, void* dst, size_t elem_size);

// Copies src's bytes into dst of another shape but the same element count (Reshape, Flatten,
// Squeeze); a no-op when the session made them share a buffer.
void copy_all_bytes(const Tensor& src, Tensor& dst);

// Normalises each axis against rank; fails on an out-of-range or repeated axis.
std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t rank,
                                    const char* what = "axis");

// An int list that was an attribute in older opsets and is an optional input in newer ones:
// the attribute parsed at construction when set, else input `index` when present, else nullopt.
std::optional<std::vector<int64_t>> attr_or_input_ints(
    const std::optional<std::vector<int64_t>>& attribute, const InferContext& ctx, size_t index);
// The same for the kernel, which reads the input tensor.
std::optional<std::vector<int64_t>> attr_or_input_ints(
    const std::optional<std::vector<int64_t>>& attribute, const KernelContext& ctx, size_t index);

// The attribute `name` when the node has it, else nullopt.
std::optional<std::vector<int64_t>> optional_ints_attr(const NodeInfo& node, const char* name);

}  // namespace strata::ops
