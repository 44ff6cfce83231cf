#include "kernels/fast_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>

#include "kernels/omp_threads.h"
#include "kernels/onednn/version.h"

namespace strata::kernels {

namespace {

// A family's implementation built for the node, and its fastest timed run so far.
struct Candidate {
  const KernelFamily* family = nullptr;  // nullptr: the op's reference kernel
  int implementation = 0;
  int threads = 1;
  std::unique_ptr<Kernel> kernel;
  double best_ms = std::numeric_limits<double>::infinity();
  bool retired = false;     // too slow to win: no longer timed
  bool is_default = false;  // what the session runs without fast-run
};

// A oneDNN list is a dozen long at most; the bound only guards against a family that never ends.
constexpr int kMaxImplementations = 64;
// A candidate this many times slower than the fastest cannot win; it stops being timed.
constexpr double kHopeless = 3.0;
// Another candidate replaces the default only when it is this much faster: closer than that is a
// tie within the noise of a shared host, and the default is kept.
constexpr double kSwitchMargin = 0.03;

// A library's reference implementation ("onednn:ref:any"): written for clarity, tens to thousands
// of times slower than its optimised ones (seconds for one resnet50 convolution), so it is timed
// only when it is all there is.
bool is_reference(const Kernel& kernel) {
  const std::string& name = kernel.name();
  const size_t colon = name.find(':');
  return colon != std::string::npos && name.compare(colon + 1, 3, "ref") == 0;
}

// The buffers a kernel runs on while timed: zero-filled inputs and outputs in the layouts the
// kernel reads and writes (constant inputs it reads plain are the constants themselves; a view's
// output is its input), and its scratch. Zeros are valid for every input (indices included) and
// time like any data in the f32 arithmetic of these kernels.
class TimingBuffers {
 public:
  TimingBuffers(const NodeRequest& r, const Kernel& k) {
    tensors_.reserve(r.inputs.size() + r.outputs.size() + 1);
    for (size_t i = 0; i < r.inputs.size(); ++i) {
      if (!r.has_input(i)) {
        inputs_.push_back(nullptr);
        continue;
      }
      const ops::Meta& m = r.input(i);
      if (m.value && k.input_layout(i) == Layout::kPlain) {
        inputs_.push_back(m.value.get());
        continue;
      }
      tensors_.push_back(Tensor::zeros(m.dtype, m.shape.values(), k.input_layout(i)));
      inputs_.push_back(&tensors_.back());
    }
    for (size_t j = 0; j < r.outputs.size(); ++j) {
      const ops::Meta& m = r.output(j);
      tensors_.push_back(Tensor::zeros(m.dtype, m.shape.values(), k.output_layout(j)));
      outputs_.push_back(&tensors_.back());
    }
    // A view's output shares its input's buffer in the session (it runs without copying): so here.
    const int viewed = k.view_of_input();
    if (viewed >= 0 && inputs_[size_t(viewed)] && !r.input(size_t(viewed)).value)
      outputs_[0]->rebind(const_cast<void*>(inputs_[size_t(viewed)]->raw()));
    tensors_.push_back(Tensor::zeros(DType::kU8, {std::max<int64_t>(k.scratch_bytes(), 1)}));
    scratch_ = tensors_.back().raw();
  }
  KernelArgs args() const {
    return {inputs_.data(), inputs_.size(), outputs_.data(), outputs_.size(), scratch_};
  }

 private:
  std::vector<Tensor> tensors_;  // reserved up front: the pointers below stay valid
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
  void* scratch_ = nullptr;
};

double run_ms(Kernel& kernel, const KernelArgs& args) {
  const auto t0 = std::chrono::steady_clock::now();
  kernel.run(args);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Every implementation of every family that supports the node, built for r.threads threads;
// refusals collects why the others did not (as choose_kernel() words them).
void add_candidates(const NodeRequest& r, std::vector<Candidate>& candidates,
                    std::vector<std::string>& refusals) {
  const OmpThreads threads(r.threads);
  for (const SupportingFamily& supporting : supporting_families(r, refusals)) {
    const KernelFamily* family = supporting.family;
    const int count = family->lists_implementations ? kMaxImplementations : 1;
    std::vector<std::string> unreported;  // why a later implementation failed: not the family's
    for (int i = 0; i < count; ++i) {
      NodeRequest request = r;
      request.implementation = i;
      std::unique_ptr<Kernel> kernel;
      try {
        kernel = prepare_or_refuse(*family, request, i == 0 ? refusals : unreported);
      } catch (const NoSuchImplementation&) {
        break;
      }
      if (kernel)
        candidates.push_back({family, i, r.threads, std::move(kernel)});
      else if (i == 0)  // the family's default failed: the rest are built from the same descriptor
        break;
    }
  }
}

// The op's reference kernel, run as fast-run times the others.
class ReferenceKernel final : public Kernel {
 public:
  explicit ReferenceKernel(const ops::Op& op) : op_(op) { name_ = "reference"; }
  void run(const KernelArgs& a) override {
    ops::KernelContext ctx(a.inputs, a.num_inputs, a.outputs, a.num_outputs);
    op_.run(ctx);
  }

 private:
  const ops::Op& op_;
};

// Whether the reference kernel may compete (see fast_run.h).
bool reference_may_compete(const NodeRequest& r) {
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    if (!r.has_input(i)) continue;
    if (r.input_layouts[i] != Layout::kPlain) return false;
    if (!r.input(i).value && !is_float(r.input(i).dtype)) return false;
  }
  return std::all_of(r.output_needs_plain.begin(), r.output_needs_plain.end(),
                     [](bool plain) { return plain; });
}

// The candidates at the request's threads and, with more than one, on one thread too; without
// the library's reference implementations when an optimised one exists.
std::vector<Candidate> build_candidates(const NodeRequest& r, std::vector<std::string>& refusals,
                                        size_t& references_left_out) {
  const onednn::PrimitiveCachePause pause;
  std::vector<Candidate> candidates;
  add_candidates(r, candidates, refusals);
  if (r.threads > 1 && !candidates.empty()) {
    NodeRequest one = r;
    one.threads = 1;
    std::vector<std::string> ignored;  // the same refusals again
    add_candidates(one, candidates, ignored);
  }
  if (!candidates.empty() && reference_may_compete(r))
    candidates.push_back({nullptr, 0, r.threads, std::make_unique<ReferenceKernel>(r.op)});
  const bool optimised = std::any_of(candidates.begin(), candidates.end(),
                                     [](const Candidate& c) { return !is_reference(*c.kernel); });
  const size_t before = candidates.size();
  if (optimised)
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [](const Candidate& c) { return is_reference(*c.kernel); }),
                     candidates.end());
  references_left_out = before - candidates.size();
  return candidates;
}

// Times the candidates in alternating rounds until the budget is spent; each keeps its fastest.
void time_candidates(std::vector<Candidate>& candidates, const NodeRequest& r,
                     const FastRunOptions& options) {
  std::vector<TimingBuffers> buffers;
  buffers.reserve(candidates.size());
  for (Candidate& c : candidates) {
    buffers.emplace_back(r, *c.kernel);
    const OmpThreads threads(c.threads);
    c.kernel->run(buffers.back().args());  // first touch of buffers, weights and code
  }
  const auto start = std::chrono::steady_clock::now();
  const size_t n = candidates.size();
  for (int round = 0; round < options.max_rounds; ++round) {
    const double spent =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (round >= options.min_rounds && spent > options.budget_ms) break;
    for (size_t k = 0; k < n; ++k) {
      Candidate& c = candidates[(k + size_t(round)) % n];
      if (c.retired) continue;
      const OmpThreads threads(c.threads);
      c.best_ms = std::min(c.best_ms, run_ms(*c.kernel, buffers[(k + size_t(round)) % n].args()));
    }
    double best = std::numeric_limits<double>::infinity();
    for (const Candidate& c : candidates) best = std::min(best, c.best_ms);
    for (Candidate& c : candidates) c.retired = c.retired || c.best_ms > kHopeless * best;
  }
}

std::string label(const Candidate& c, int pool_threads) {
  std::string notes;
  if (c.implementation > 0) notes += fmt::format("#{}", c.implementation);
  if (c.threads != pool_threads)
    notes += fmt::format("{}{} thread{}", notes.empty() ? "" : ", ", c.threads,
                         c.threads == 1 ? "" : "s");
  return c.kernel->name() + (notes.empty() ? "" : " (" + notes + ")");
}

}  // namespace

Choice choose_fastest(const NodeRequest& request, const FastRunOptions& options,
                      std::vector<TimedCandidate>* timed) {
  std::vector<std::string> refusals;
  size_t references = 0;
  std::vector<Candidate> candidates = build_candidates(request, refusals, references);
  Choice choice;
  if (candidates.empty()) {
    choice.reason = fmt::format("{}", fmt::join(refusals, "; "));
    return choice;
  }
  candidates.front().is_default = true;
  if (candidates.size() > 1) time_candidates(candidates, request, options);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.best_ms < b.best_ms; });
  const auto default_one = std::find_if(candidates.begin(), candidates.end(),
                                        [](const Candidate& c) { return c.is_default; });
  const bool tie = default_one != candidates.begin() &&
                   candidates.front().best_ms > (1 - kSwitchMargin) * default_one->best_ms;
  if (tie) std::rotate(candidates.begin(), default_one, default_one + 1);
  if (timed)
    for (const Candidate& c : candidates)
      timed->push_back({c.family ? c.family->name : kReferenceFamily, c.implementation, c.threads,
                        c.kernel->name(), c.best_ms});
  Candidate& best = candidates.front();
  const std::string untimed = references ? fmt::format("; {} reference implementation{} not timed",
                                                       references, references == 1 ? "" : "s")
                                         : std::string();
  if (candidates.size() == 1) {
    choice.reason = "fast-run: the only optimised implementation" + untimed;
  } else {
    std::vector<std::string> times;
    for (const Candidate& c : candidates)
      times.push_back(fmt::format("{} {:.4f} ms{}", label(c, request.threads), c.best_ms,
                                  c.retired ? " (stopped: over 3× the fastest)" : ""));
    choice.reason = fmt::format("fast-run: {} of {} implementations: {}{}",
                                tie ? "the default kept (the fastest within 3%)" : "fastest",
                                candidates.size(), fmt::join(times, ", "), untimed);
  }
  choice.family = best.family;
  choice.implementation = best.implementation;
  choice.threads = best.threads;
  choice.threads_timed = true;
  choice.reference_won = best.family == nullptr;
  if (!choice.reference_won) choice.kernel = std::move(best.kernel);
  return choice;
}

Choice prepare_implementation(const NodeRequest& request, const std::string& family_name,
                              int implementation) {
  Choice choice;
  for (const KernelFamily& family : kernel_families()) {
    if (family.name != family_name) continue;
    if (!family.serves(request.node) || !family.supports(request).ok) {
      choice.reason = family_name + " does not support the node";
      return choice;
    }
    if (implementation > 0 && !family.lists_implementations) break;
    NodeRequest r = request;
    r.implementation = implementation;
    try {
      const OmpThreads threads(r.threads);
      choice.kernel = family.prepare(r);
    } catch (const std::exception& e) {
      choice.reason = fmt::format("{} #{}: {}", family_name, implementation, e.what());
      return choice;
    }
    choice.family = &family;
    choice.implementation = implementation;
    choice.threads = r.threads;
    return choice;
  }
  choice.reason =
      fmt::format("no kernel family '{}' offers implementation #{}", family_name, implementation);
  return choice;
}

}  // namespace strata::kernels
