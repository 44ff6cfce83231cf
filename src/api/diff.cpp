// strata::diff_profiles (include/strata/diff.h): report::diff_profiles behind the public API.
#include "strata/diff.h"

#include "api/profile_impl.h"
#include "core/error.h"
#include "report/diff.h"
#include "report/html_report.h"

namespace strata {

struct ProfileDiff::Impl {
  report::ProfileDiff diff;
  std::string label_a, label_b;
  DiffEstimate whole;
  std::vector<NodeDiff> nodes;
};

namespace {
DiffEstimate estimate(const report::RatioEstimate& e) {
  return {e.median_a, e.median_b, e.ratio, e.low, e.high, report::verdict_name(e.verdict)};
}
}  // namespace

ProfileDiff diff_profiles(const Profile& a, const Profile& b, const DiffOptions& options) {
  if (!(options.confidence >= 0.5 && options.confidence <= 0.999))
    fail("confidence must be 0.5 to 0.999, not {}", options.confidence);
  if (!(options.min_change >= 0 && options.min_change <= 1))
    fail("min_change must be 0 to 1, not {}", options.min_change);
  if (options.resamples < 100 || options.resamples > 100000)
    fail("resamples must be 100 to 100000, not {}", options.resamples);
  report::BootstrapOptions bootstrap;
  bootstrap.confidence = options.confidence;
  bootstrap.min_change = options.min_change;
  bootstrap.resamples = options.resamples;
  auto impl = std::make_shared<ProfileDiff::Impl>();
  impl->diff = report::diff_profiles(a.impl().profile, b.impl().profile, bootstrap);
  impl->label_a = options.label_a;
  impl->label_b = options.label_b;
  impl->whole = estimate(impl->diff.whole);
  for (const report::NodeChange& n : impl->diff.nodes)
    impl->nodes.push_back({n.name, n.op_type, n.in_a, n.in_b, estimate(n.estimate)});
  return ProfileDiff(std::move(impl));
}

const DiffEstimate& ProfileDiff::whole() const {
  return impl_->whole;
}
const std::vector<NodeDiff>& ProfileDiff::nodes() const {
  return impl_->nodes;
}
const std::vector<std::string>& ProfileDiff::notes() const {
  return impl_->diff.notes;
}
std::string ProfileDiff::render(const ViewOptions& view) const {
  return report::render_diff(impl_->diff, impl_->label_a, impl_->label_b, view);
}
std::string ProfileDiff::html() const {
  return report::html_page("strata diff",
                           report::diff_page_data(impl_->diff, impl_->label_a, impl_->label_b));
}
void ProfileDiff::save_html(const std::string& path) const {
  report::write_html(path, "strata diff",
                     report::diff_page_data(impl_->diff, impl_->label_a, impl_->label_b));
}

}  // namespace strata
