// The fuzz targets' bodies, one per target. Each fuzz_*.cpp defines its function and, built for
// libFuzzer (STRATA_FUZZ_MAIN), the LLVMFuzzerTestOneInput that calls it; the unit tests call the
// same functions on the inputs checked in under tests/data/fuzz-regressions/TARGET/.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::fuzz {

void load_model_one(const uint8_t* data, size_t size);
void tensor_files_one(const uint8_t* data, size_t size);
void profile_json_one(const uint8_t* data, size_t size);
void graph_one(const uint8_t* data, size_t size);

}  // namespace strata::fuzz

// libFuzzer's entry point for the target whose body is `function`.
#ifdef STRATA_FUZZ_MAIN
#define STRATA_FUZZ_TARGET(function)                                        \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    strata::fuzz::function(data, size);                                     \
    return 0;                                                               \
  }
#else
#define STRATA_FUZZ_TARGET(function)
#endif
