// The ONNX loader: any bytes as model.onnx, loaded to run (every initializer read, external data
// resolved beside the model) and to analyse (weights skipped), with its op checks and shape
// inference (runtime::load_model). Subgraphs come from seeds with If, Loop and Scan nodes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_guard.h"
#include "fuzz_targets.h"
#include "runtime/model.h"

namespace strata::fuzz {

namespace {

// External data the seeds name (tests/data/fuzz-seeds/external_data.onnx): 1 KiB of a pattern
// whose floats are finite, so offsets and lengths into it are what the fuzzer varies.
void write_external_data() {
  static const bool written = [] {
    std::string bytes(1024, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i % 4 == 3 ? 0x3f : i);
    write_scratch("external.bin", bytes);
    return true;
  }();
  (void)written;
}

}  // namespace

void load_model_one(const uint8_t* data, size_t size) {
  write_external_data();
  const std::string path =
      write_scratch("model.onnx", std::string_view(reinterpret_cast<const char*>(data), size));
  guarded([&] { (void)runtime::load_model(path); });
  guarded([&] {
    runtime::LoadOptions analysis;
    analysis.read_weights = false;
    (void)runtime::load_model(path, analysis);
  });
}

}  // namespace strata::fuzz

STRATA_FUZZ_TARGET(load_model_one)
