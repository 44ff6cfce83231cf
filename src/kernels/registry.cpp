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

Choice choose_kernel(const NodeRequest& request) {
  Choice choice;
  std::vector<std::string> refusals;
  for (const KernelFamily& family : kernel_families()) {
    if (!family.serves(request.node)) continue;
    const Verdict verdict = family.supports(request);
    if (!verdict.ok) {
      refusals.push_back(fmt::format("{}: {}", family.name, verdict.reason));
      continue;
    }
    try {
      choice.kernel = family.prepare(request);
      choice.reason = verdict.reason;
      choice.family = &family;
      choice.threads = request.threads;
      return choice;
    } catch (const std::exception& e) {  // the library turned the configuration down
      refusals.push_back(fmt::format("{}: {}", family.name, e.what()));
    }
  }
  choice.reason = fmt::format("{}", fmt::join(refusals, "; "));
  return choice;
}

}  // namespace strata::kernels
