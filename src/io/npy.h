// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the simplest way to exchange tensors with
// Python: np.save("x.npy", array) and np.load("y.npy").
#pragma once

#include <string>
#include <string_view>

#include "core/tensor.h"

namespace strata::io {

// Reads a C-order, little-endian .npy file of a numeric or bool dtype (not bfloat16, which numpy
// lacks). Every failure throws Error with one sentence that starts with the path.
Tensor read_npy(const std::string& path);
// The same from the bytes of an .npy file in memory (an .npz entry); `name` starts the errors.
Tensor read_npy_bytes(std::string_view bytes, const std::string& name);

// Writes `t` as a version 1.0 .npy file (2.0 only for huge headers), byte-for-byte what np.save
// writes. bfloat16 and string tensors cannot be written.
void write_npy(const std::string& path, const Tensor& t);

}  // namespace strata::io
