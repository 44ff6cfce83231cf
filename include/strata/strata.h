// strata's public API: load an ONNX model, bind inputs, prepare a session, run and time it,
// compare outputs. The command-line tool uses nothing else.
#pragma once

#include "core/dtype.h"              // DType, f16, bf16
#include "core/error.h"              // Error, ErrorCode
#include "core/tensor.h"             // Tensor
#include "io/npy.h"                  // read_npy, write_npy
#include "onnx/loader.h"             // onnx_import::load_model (parse only)
#include "onnx/tensor_proto.h"       // read_tensor_pb
#include "profiler/stats.h"          // summarize, stability_warning
#include "runtime/model.h"           // load_model: parse, check ops, infer shapes
#include "runtime/input_binding.h"   // bind_inputs, parse_shape
#include "runtime/session.h"         // Session, SessionOptions, RunHooks
#include "runtime/test_data.h"       // read_test_data, read_expected_outputs
#include "runtime/timing.h"          // time_runs
#include "runtime/verify.h"          // compare

namespace strata {
inline constexpr const char* kVersion = STRATA_VERSION;
}
