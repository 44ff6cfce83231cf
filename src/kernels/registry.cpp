// The fast kernel registry (src/kernels/kernel_list.inc) and the rule that picks a kernel.
#include <fmt/format.h>

#include "kernels/kernel.h"

namespace strata::kernels {

#define STRATA_KERNEL(backend, family) \
  namespace backend {                  \
  KernelFamily family##_family();      \
  }
#include "kernels/kernel_list.inc"
#undef STRATA_KERNEL

const std::vector<KernelFamily>& kernel_families() {
  static const std::vector<KernelFamily> families = {
#define STRATA_KERNEL(backend, family) backend::family##_family(),
#include "kernels/kernel_list.inc"
#undef STRATA_KERNEL
  };
  return families;
}

const char* layout_policy_name(LayoutPolicy policy) {
  switch (policy) {
    case LayoutPolicy::kPlain: return "nchw";
    case LayoutPolicy::kChannelsLast: return "nhwc";
    case LayoutPolicy::kBlocked: return "blocked";
    case LayoutPolicy::kAuto: return "auto";
  }
  return "auto";
}

LayoutPolicy parse_layout_policy(const std::string& text) {
  for (LayoutPolicy p : {LayoutPolicy::kPlain, LayoutPolicy::kChannelsLast, LayoutPolicy::kBlocked,
                         LayoutPolicy::kAuto})
    if (text == layout_policy_name(p)) return p;
  fail("--layout must be nchw, nhwc, blocked or auto, not '{}'", text);
}

std::vector<SupportingFamily> supporting_families(const NodeRequest& request,
                                                  std::vector<std::string>& refusals) {
  std::vector<SupportingFamily> families;
  for (const KernelFamily& family : kernel_families()) {
    if (!family.serves(request.node)) continue;
    const Verdict verdict = family.supports(request);
    if (verdict.ok)
      families.push_back({&family, verdict.reason});
    else
      refusals.push_back(fmt::format("{}: {}", family.name, verdict.reason));
  }
  return families;
}

std::unique_ptr<Kernel> prepare_or_refuse(const KernelFamily& family, const NodeRequest& request,
                                          std::vector<std::string>& refusals) {
  try {
    return family.prepare(request);
  } catch (const NoSuchImplementation&) {
    throw;
  } catch (const std::exception& e) {  // the library turned the configuration down
    refusals.push_back(fmt::format("{}: {}", family.name, e.what()));
    return nullptr;
  }
}

Choice choose_kernel(const NodeRequest& request) {
  Choice choice;
  std::vector<std::string> refusals;
  std::vector<std::string> turned_down;  // families that supported the node, then refused it
  for (const SupportingFamily& supporting : supporting_families(request, refusals)) {
    choice.kernel = prepare_or_refuse(*supporting.family, request, refusals);
    if (!choice.kernel) {
      turned_down.push_back(refusals.back());
      continue;
    }
    choice.reason = supporting.reason;
    if (!turned_down.empty()) choice.reason += fmt::format(" ({})", fmt::join(turned_down, "; "));
    choice.family = supporting.family;
    choice.threads = request.threads;
    return choice;
  }
  choice.reason = fmt::format("{}", fmt::join(refusals, "; "));
  return choice;
}

}  // namespace strata::kernels
