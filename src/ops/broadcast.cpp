#include "ops/broadcast.h"

namespace strata::ops {

std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  const size_t offset = out.size() - in.size();
  for (size_t d = in.size(); d-- > 0;) {
    strides[d + offset] = in[d] == 1 ? 0 : stride;
    stride *= in[d];
  }
  return strides;
}

}  // namespace strata::ops
