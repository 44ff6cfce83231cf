// ONNX TensorProto → Tensor, with every size checked and external data confined to the model folder.
#pragma once

#include <string>

#include "core/tensor.h"

namespace onnx {
class TensorProto;
}

namespace strata::onnx_import {

// Converts a TensorProto. `model_dir` resolves external data ("" forbids it); `what` names the
// tensor in error messages ("initializer 'conv1.weight' in model.onnx").
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir,
                         const std::string& what);

// Reads a serialized TensorProto file (.pb), as in ONNX test_data_set folders.
Tensor read_tensor_pb(const std::string& path);

}  // namespace strata::onnx_import
