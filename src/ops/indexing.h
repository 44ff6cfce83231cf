// Index handling shared by Gather, GatherElements, GatherND, ScatterElements and ScatterND:
// validating indices, turning them into element offsets, copying and reducing by offsets.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

int64_t resolve_index(int64_t index, int64_t dim, int64_t axis);
void require_index_dtype(DType dtype, const char* input);
void copy_from_offsets(const Tensor& src, std::span<const int64_t> offsets, Tensor& dst);
bool known_different(const Dim& a, const Dim& b);
void check_element_indices_shape(const Shape& data, const Shape& indices, int64_t axis);
std::vector<int64_t> element_offsets(const std::vector<int64_t>& data_shape, const Tensor& indices,
                                     int64_t axis);
int64_t check_nd_indices_shape(const Shape& data, const Shape& indices, int64_t batch_dims);
std::vector<int64_t> nd_element_offsets(const std::vector<int64_t>& data_shape,
                                        const Tensor& indices, int64_t batch_dims);
std::string parse_scatter_reduction(const NodeInfo& node);
void check_scatter_dtypes(const InferContext& ctx, const std::string& reduction);
Cost scatter_cost(const CostContext& ctx, const std::string& reduction);
// ScatterElements' axis (as written: may be negative) and reduction ("none", "add", ...), for its
// fast kernel; nullopt for other ops.
struct ScatterElementsAttributes {
  int64_t axis = 0;
  std::string reduction;
};
std::optional<ScatterElementsAttributes> scatter_elements_attributes(const Op& op);
void scatter_from_offsets(const std::string& reduction, const Tensor& data, const Tensor& updates,
                          std::span<const int64_t> offsets, Tensor& out);

}  // namespace strata::ops
