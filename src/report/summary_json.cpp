#include "report/summary_json.h"

namespace strata::report {

nlohmann::json summary_json(const profiler::Summary& s) {
  return {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"sd", s.sd},
          {"p90", s.p90}, {"p99", s.p99},       {"max", s.max},   {"cv", s.cv}};
}

}  // namespace strata::report
