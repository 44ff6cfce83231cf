// strata::profile and strata::Profile (include/strata/profile.h): the procedure of
// `strata profile` (profiler::profile_session) behind the public API.
#include "strata/profile.h"

#include <fmt/format.h>

#include "api/profile_impl.h"
#include "api/session_impl.h"
#include "core/error.h"
#include "profiler/machine.h"
#include "profiler/profile_session.h"
#include "profiler/profile_stamp.h"
#include "profiler/stats.h"
#include "report/analysis_join.h"
#include "report/chrome_trace.h"
#include "report/html_report.h"
#include "report/profile_json.h"
#include "report/views.h"

namespace strata {

namespace {
std::string joined(const std::vector<std::string>& parts) {
  return fmt::format("{}", fmt::join(parts, "; "));
}
}  // namespace

Profile profile(Session& session, const std::vector<NamedArrays>& input_sets,
                const ProfileOptions& options) {
  if (options.iterations < 1) fail("iterations must be at least 1, not {}", options.iterations);
  if (options.warmup < 0) fail("warmup must not be negative, not {}", options.warmup);
  if (options.isolate_repeats < 1)
    fail("isolate_repeats must be at least 1, not {}", options.isolate_repeats);
  if (options.duration_seconds < 0) fail("duration_seconds must not be negative");
  if (input_sets.empty()) fail("profile needs at least one input set");
  Session::Impl& s = session.impl();
  const int threads = s.options.threads;
  profiler::MachineInfo machine;
  if (options.roofline) {
    profiler::MachineCacheOptions cache;
    cache.warn = options.warn;
    cache.progress = options.progress;
    machine = profiler::machine_peaks(threads, cache);
  } else {
    machine.cpu = profiler::cpu_model();
    machine.logical_cpus = profiler::logical_cpus();
  }
  const Session::Impl::OrderedSets sets = s.order_sets(input_sets);
  profiler::ProfileRunOptions run;
  run.warmup = options.warmup;
  run.iterations = options.iterations;
  run.duration_seconds = options.duration_seconds;
  run.isolate = options.isolate;
  run.isolate_repeats = options.isolate_repeats;
  run.progress = options.progress;
  auto impl = std::make_shared<Profile::Impl>();
  profiler::Profile& p = impl->profile;
  p = profiler::profile_session(*s.session, sets.pointers, run);
  s.has_run = true;
  profiler::stamp_profile(p, s.model_path);
  p.machine = machine;
  p.threads = threads;
  p.options = !options.record.empty()
                  ? options.record
                  : fmt::format("(API) warmup {} iterations {} threads {} layout {}{}{}",
                                run.warmup, run.iterations, threads, options.session.layout,
                                options.session.optimize ? "" : " no-optimize",
                                options.session.fast_kernels ? "" : " reference-kernels");
  p.load_ms = s.load_ms;
  p.prepare_ms = s.prepare_ms;
  p.arena_bytes = s.session->stats().arena_bytes;
  std::vector<std::vector<int64_t>> shapes;
  for (const Tensor& t : sets.tensors[0]) shapes.push_back(t.shape());
  report::join_static_analysis(p, s.session->graph(), shapes);
  return Profile(std::move(impl));
}

Profile profile(const Model& model, const NamedArrays& inputs, const ProfileOptions& options) {
  Session session(model, inputs, options.session);
  return profile(session, {inputs}, options);
}

Profile Profile::load(const std::string& path) {
  auto impl = std::make_shared<Impl>();
  impl->profile = report::read_profile(path);
  return Profile(std::move(impl));
}

ProfileSummary Profile::summary() const {
  const profiler::Profile& p = impl_->profile;
  const profiler::Summary s = profiler::summarize(p.iterations_ms);
  ProfileSummary out;
  out.model = p.model;
  out.threads = p.threads;
  out.iterations = int(p.iterations_ms.size());
  out.min_ms = s.min;
  out.median_ms = s.median;
  out.mean_ms = s.mean;
  out.p90_ms = s.p90;
  out.max_ms = s.max;
  out.cv = s.cv;
  out.first_iteration_ms = p.first_iteration_ms;
  out.overhead_pct = p.overhead_pct;
  out.load_ms = p.load_ms;
  out.prepare_ms = p.prepare_ms;
  out.arena_bytes = p.arena_bytes;
  out.peak_rss_bytes = p.peak_rss_bytes;
  return out;
}

std::vector<NodeRecord> Profile::nodes() const {
  const profiler::Profile& p = impl_->profile;
  std::vector<NodeRecord> records;
  double total = 0;
  for (const profiler::NodeProfile& n : p.nodes) {
    const profiler::Summary s = profiler::summarize(n.samples_ms);
    NodeRecord r;
    r.name = n.name;
    r.op_type = n.op_type;
    r.kernel = n.kernel;
    r.layout = n.layout;
    r.input_shapes = joined(n.input_shapes);
    r.output_shapes = joined(n.output_shapes);
    r.median_ms = s.median;
    r.mean_ms = s.mean;
    r.min_ms = s.min;
    r.max_ms = s.max;
    r.first_run_ms = n.first_run_ms;
    r.isolated_median_ms = n.isolated_median_ms;
    r.has_cost = n.has_cost;
    r.macs = n.macs;
    r.flops = n.flops;
    r.bytes_read = n.bytes_read;
    r.bytes_written = n.bytes_written;
    r.gflops_per_s = s.median > 0 ? n.flops / (s.median * 1e6) : 0;
    r.heap_allocations = n.heap_allocations;
    r.heap_bytes = n.heap_bytes;
    if (n.op_type != "scope") total += s.median;  // scopes may contain nodes: not summed
    records.push_back(std::move(r));
  }
  for (NodeRecord& r : records)
    if (r.op_type != "scope" && total > 0) r.share_pct = 100 * r.median_ms / total;
  return records;
}

std::string Profile::to_json() const {
  return report::profile_to_json(impl_->profile).dump(2);
}
std::string Profile::trace_json() const {
  return report::chrome_trace(impl_->profile).dump();
}
std::string Profile::render() const {
  return render(ViewOptions{});
}
std::string Profile::render(const ViewOptions& view) const {
  return report::render_views(impl_->profile, view);
}
std::string Profile::html() const {
  const profiler::Profile& p = impl_->profile;
  return report::html_page("strata profile: " + p.model, report::profile_page_data(p));
}
void Profile::save_json(const std::string& path) const {
  report::write_profile(impl_->profile, path);
}
void Profile::save_trace(const std::string& path) const {
  report::write_chrome_trace(impl_->profile, path);
}
void Profile::save_html(const std::string& path) const {
  const profiler::Profile& p = impl_->profile;
  report::write_html(path, "strata profile: " + p.model, report::profile_page_data(p));
}

}  // namespace strata
