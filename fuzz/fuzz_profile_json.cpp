// The profile JSON reader (strata report, strata diff): any bytes as a saved profile, then every
// view of it, its Chrome trace and its diff against itself.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_guard.h"
#include "fuzz_targets.h"
#include "profiler/profile.h"
#include "report/chrome_trace.h"
#include "report/diff.h"
#include "report/profile_json.h"
#include "report/views.h"

namespace strata::fuzz {

void profile_json_one(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string path = write_scratch("profile.json", bytes);
  guarded([&] {
    const profiler::Profile profile = report::read_profile(path);
    report::ViewOptions view;
    view.views = {report::View::kNodes, report::View::kTypes, report::View::kScopes};
    view.top = 0;
    view.order_by = report::OrderBy(size % 6);  // one order per input, all reached over a run
    (void)report::render_views(profile, view);
    (void)report::chrome_trace(profile).dump();
    report::BootstrapOptions bootstrap;
    bootstrap.resamples = 50;  // the statistics are not under test; the reading of samples is
    const report::ProfileDiff diff = report::diff_profiles(profile, profile, bootstrap);
    (void)report::render_diff(diff, "a", "b", view);
  });
}

}  // namespace strata::fuzz

STRATA_FUZZ_TARGET(profile_json_one)
