// The op registry, generated from src/ops/op_list.inc by the preprocessor.
#include <algorithm>
#include <string_view>

#include "ops/op.h"

namespace strata::ops {

// One declaration per family (repeats are harmless).
#define STRATA_OP(type, family) std::unique_ptr<Op> make_##family(const NodeInfo& node);
#include "ops/op_list.inc"
#undef STRATA_OP

namespace {
struct OpEntry {
  std::string_view type;
  OpFactory factory;
};

constexpr OpEntry kOpEntries[] = {
#define STRATA_OP(type, family) {#type, &make_##family},
#include "ops/op_list.inc"
#undef STRATA_OP
};
}  // namespace

OpFactory find_op(std::string_view op_type) {
  for (const OpEntry& e : kOpEntries)
    if (e.type == op_type) return e.factory;
  return nullptr;
}

const std::vector<std::string_view>& supported_ops() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const OpEntry& e : kOpEntries) v.push_back(e.type);
    return v;
  }();
  return names;
}

}  // namespace strata::ops
