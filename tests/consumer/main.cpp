// Uses only the installed public API: loads a model, runs it on given and random inputs, times and
// verifies it as `strata run` does, profiles and analyses it, and reports a bad path as
// strata::Error. Exits non-zero on any surprise.
#include <strata/strata.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: app MODEL\n");
    return 2;
  }
  const std::string path = argv[1];
  try {
    strata::Model model = strata::Model::load(path);
    std::printf("strata %s: %s, opset %lld, %zu nodes\n", strata::version(), path.c_str(),
                (long long)model.opset(), model.node_count());
    for (const strata::ValueInfo& in : model.inputs())
      std::printf("input  %s %s\n", in.name.c_str(), in.type_string().c_str());

    strata::InputOptions options;
    options.seed = 7;
    const strata::NamedArrays inputs = strata::bind_inputs(model, options);
    strata::Session session(model, inputs, {.threads = 1});
    const strata::NamedArrays outputs = session.run(inputs);
    for (const strata::NamedArray& out : outputs)
      std::printf("output %s %s\n", out.name.c_str(), out.array.type_string().c_str());
    if (outputs.empty() || outputs[0].array.numel() == 0) return 1;

    // What `strata run` does: the plan, timed runs on two streams, outputs verified.
    const strata::PlanSummary plan = session.plan();
    std::printf("plan: %zu of %zu steps fast, arena %s\n", plan.fast_steps, plan.steps,
                strata::human_bytes(double(plan.arena_bytes)).c_str());
    strata::Session second = session.clone();
    strata::TimingOptions timing;
    timing.iterations = 3;
    const strata::Timings t = strata::time_runs({&session, &second}, {inputs}, timing);
    const strata::LatencySummary latency = strata::summarize_latency(t.iterations_ms());
    std::printf("timed: %lld runs, median %.3f ms\n", (long long)t.timed_runs(), latency.median_ms);
    if (t.timed_runs() != 6 || !(latency.median_ms > 0)) return 1;
    strata::CompareOptions exact;
    exact.atol = exact.rtol = 0;
    for (const strata::ValueComparison& c :
         strata::verify_outputs(session.outputs(), outputs, exact))
      if (!c.ok) return 1;  // the same inputs give the same outputs

    strata::ProfileOptions profile_options;
    profile_options.iterations = 3;
    const strata::Profile p = strata::profile(model, inputs, profile_options);
    std::printf("profile: median %.3f ms, %zu nodes\n", p.summary().median_ms, p.nodes().size());
    if (p.nodes().empty() || !(p.summary().median_ms > 0)) return 1;
    strata::ViewOptions view;  // the scope tree only, as `strata report --by scope`
    view.views = {strata::View::kScopes};
    if (p.render(view).find("scope") == std::string::npos) return 1;
    if (p.html().find(p.nodes()[0].name) == std::string::npos) return 1;

    strata::Table table({{"node", strata::Align::kLeft}, {"median ms"}});
    for (const strata::NodeRecord& n : p.nodes())
      table.add_row({n.name, std::to_string(n.median_ms)});
    std::printf("%s", table.render({.width = 60}).c_str());

    const strata::Analysis a = strata::analyze(path);
    if (!a.totals().flops) return 1;
    std::printf("analysis: %.4g FLOPs, %lld params\n", *a.totals().flops,
                (long long)a.totals().params);
    if (a.html().find("strata-data") == std::string::npos) return 1;
  } catch (const strata::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return int(e.code());
  }
  try {
    strata::Model::load(path + ".missing");
  } catch (const strata::Error& e) {
    std::printf("missing file: %s (code %d)\n", e.what(), int(e.code()));
    return e.code() == strata::ErrorCode::kBadInput ? 0 : 1;
  }
  return 1;  // a missing file must throw
}
