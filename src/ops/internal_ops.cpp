#include "ops/internal_ops.h"

#include "ops/domain_ops.h"

namespace strata::ops {

#define STRATA_INTERNAL_OP(type, family) std::unique_ptr<Op> make_##family(const NodeInfo& node);
#include "ops/internal_op_list.inc"
#undef STRATA_INTERNAL_OP

namespace {
struct InternalOpEntry {
  std::string_view type;
  OpFactory factory;
};

constexpr InternalOpEntry kInternalOpEntries[] = {
#define STRATA_INTERNAL_OP(type, family) {#type, &make_##family},
#include "ops/internal_op_list.inc"
#undef STRATA_INTERNAL_OP
};
}  // namespace

OpFactory find_internal_op(std::string_view op_type) {
  for (const InternalOpEntry& e : kInternalOpEntries)
    if (e.type == op_type) return e.factory;
  return nullptr;
}

OpFactory find_op_in_domain(std::string_view domain, std::string_view op_type) {
  if (domain.empty() || domain == "ai.onnx") return find_op(op_type);
  if (domain == kStrataDomain) return find_internal_op(op_type);
  return find_domain_op(domain, op_type);
}

}  // namespace strata::ops
