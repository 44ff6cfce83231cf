#include "ops/domain_ops.h"

namespace strata::ops {

// One declaration per family (repeats are harmless).
#define STRATA_DOMAIN_OP(domain, type, family) \
  std::unique_ptr<Op> make_##family(const NodeInfo& node);
#include "ops/domain_op_list.inc"
#undef STRATA_DOMAIN_OP

namespace {
struct DomainOpEntry {
  std::string_view domain;
  std::string_view type;
  OpFactory factory;
};

constexpr DomainOpEntry kDomainOpEntries[] = {
#define STRATA_DOMAIN_OP(domain, type, family) {domain, #type, &make_##family},
#include "ops/domain_op_list.inc"
#undef STRATA_DOMAIN_OP
};
}  // namespace

OpFactory find_domain_op(std::string_view domain, std::string_view op_type) {
  for (const DomainOpEntry& e : kDomainOpEntries)
    if (e.domain == domain && e.type == op_type) return e.factory;
  return nullptr;
}

const std::vector<std::pair<std::string_view, std::string_view>>& supported_domain_ops() {
  static const std::vector<std::pair<std::string_view, std::string_view>> names = [] {
    std::vector<std::pair<std::string_view, std::string_view>> v;
    for (const DomainOpEntry& e : kDomainOpEntries) v.emplace_back(e.domain, e.type);
    return v;
  }();
  return names;
}

}  // namespace strata::ops
