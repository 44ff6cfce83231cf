// What a strata::Model holds (include/strata/model.h).
#pragma once

#include <string>
#include <vector>

#include "runtime/model.h"
#include "strata/model.h"

namespace strata {

struct Model::Impl {
  std::string path;
  runtime::Model loaded;  // never modified: sessions optimise copies of loaded.graph
  std::vector<ValueInfo> inputs, outputs;
  double load_ms = 0;
};

}  // namespace strata
