// Images as model inputs: PGM/PPM (P2, P3, P5, P6; our own parser) and PNG, JPEG, BMP (stb_image).
#pragma once

#include <string>

#include "core/tensor.h"

namespace strata::io {

// Reads an image as a float32 NCHW tensor [1, C, H, W] with values in [0, 1] (sample / maxval):
// C = 1 for grayscale, 3 for color; alpha is dropped. The format is detected from the file's
// first bytes, not its extension. Every failure throws Error with one sentence that starts with
// the path.
Tensor read_image(const std::string& path);

}  // namespace strata::io
