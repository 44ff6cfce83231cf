// The tensor-file readers behind --input, --test-data and --verify: the same bytes as a .npy, .npz,
// .pb (tensor, sequence, optional), .json (float and int64), and as every image format. Each
// reader rejects foreign bytes at its first check, so one input exercises the reader it fits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/dtype.h"
#include "fuzz_guard.h"
#include "fuzz_targets.h"
#include "io/image.h"
#include "io/json_tensor.h"
#include "io/npy.h"
#include "io/npz.h"
#include "onnx/tensor_proto.h"

namespace strata::fuzz {

void tensor_files_one(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  guarded([&] { (void)io::read_npy_bytes(bytes, "input.npy"); });
  guarded([&] { (void)io::read_npz(write_scratch("input.npz", bytes)); });
  const std::string pb = write_scratch("input.pb", bytes);
  guarded([&] { (void)onnx_import::read_tensor_pb(pb); });
  guarded([&] { (void)onnx_import::read_value_pb(pb, ValueKind::kSequence, DType::kF32); });
  guarded([&] { (void)onnx_import::read_value_pb(pb, ValueKind::kOptional, DType::kF32); });
  guarded([&] { (void)io::parse_json_tensor(bytes, DType::kF32, "input.json"); });
  guarded([&] { (void)io::parse_json_tensor(bytes, DType::kI64, "input.json"); });
  for (const char* name : {"input.png", "input.ppm", "input.pgm"}) {  // the reader --input uses
    const std::string path = write_scratch(name, bytes);
    guarded([&] { (void)io::read_image(path); });
  }
}

}  // namespace strata::fuzz

STRATA_FUZZ_TARGET(tensor_files_one)
