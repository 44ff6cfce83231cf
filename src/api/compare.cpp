// strata::compare_dumps and strata::compare_runs (include/strata/compare.h): debug::compare_dumps
// behind the public API.
#include "strata/compare.h"

#include "api/convert.h"
#include "api/model_impl.h"
#include "api/session_impl.h"
#include "debug/against.h"
#include "debug/compare.h"
#include "debug/dump.h"

namespace strata {

namespace {

Comparison convert(const debug::DumpComparison& c, std::string report) {
  Comparison out;
  for (const debug::ValueDiff& d : c.values) {
    ValueComparison v = api::value_comparison(d.value, d.comparison);
    if (d.node) {
      v.node = c.nodes[*d.node].name;
      v.op_type = c.nodes[*d.node].op_type;
    }
    out.values.push_back(std::move(v));
  }
  out.out_of_tolerance = c.out_of_tolerance;
  out.only_a = c.only_a;
  out.only_b = c.only_b;
  if (c.first_divergent) {
    out.first_divergent_node = c.nodes[*c.first_divergent].name;
    out.first_divergent_op = c.nodes[*c.first_divergent].op_type;
  }
  out.report = std::move(report);
  return out;
}

Comparison compare(const debug::Dump& a, const debug::Dump& b, const std::string& label_a,
                   const std::string& label_b, const CompareOptions& options) {
  const runtime::Tolerance tol = api::tolerance(options);
  const debug::DumpComparison c = debug::compare_dumps(a, b, tol);
  return convert(c, debug::render_comparison(c, label_a, label_b, tol, options.fit));
}

}  // namespace

std::vector<Column> comparison_columns() {
  return debug::comparison_columns();
}

Comparison compare_dumps(const std::string& a, const std::string& b,
                         const CompareOptions& options) {
  const debug::Dump dump_a = debug::read_dump(a);  // a's errors first
  const debug::Dump dump_b = debug::read_dump(b);
  return compare(dump_a, dump_b, a, b, options);
}

Comparison compare_runs(const Model& model, const NamedArrays& inputs, const std::string& against,
                        const SessionOptions& session, const CompareOptions& options) {
  const debug::Against other = debug::parse_against(against);
  // The signature of the graph as loaded: both sides' dumps name the same model.
  const std::string sha = debug::model_signature(model.impl().loaded.graph);
  Session first(model, inputs, session);
  const std::vector<Tensor> ordered = first.impl().order(inputs, true);
  const debug::Dump a =
      debug::record_run(*first.impl().session, Session::Impl::pointers(ordered), sha);
  debug::Dump b;
  if (other.kind == debug::Against::Kind::kDump) {
    b = debug::read_dump(other.path);
  } else {
    // The second session: the same graph and inputs, the options `against` changes.
    const runtime::SessionOptions options = debug::against_options(other, first.impl().options);
    runtime::Session second(*first.impl().graph, first.impl().specs(), options);
    b = debug::record_run(second, Session::Impl::pointers(ordered), sha);
  }
  return compare(a, b, model.path(), other.label, options);
}

}  // namespace strata
