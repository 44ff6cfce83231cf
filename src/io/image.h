// Images as model inputs: PGM/PPM (P2, P3, P5, P6; our own parser) and PNG, JPEG, BMP (stb_image).
#pragma once

#include <string>
#include <string_view>

#include "core/tensor.h"

namespace strata::io {

// Reads an image as a float32 NCHW tensor [1, C, H, W] with values in [0, 1] (sample / maxval):
// C = 1 for grayscale, 3 for color; alpha is dropped. The format is detected from the file's
// first bytes, not its extension. Every failure throws Error with one sentence that starts with
// the path.
Tensor read_image(const std::string& path);

// Decodes an image held in memory (the same formats) into uint8 [H, W, C], interleaved: C = 3
// (RGB) for color, 1 for grayscale; alpha is dropped; samples above 8 bits are scaled to 0..255.
// Failures throw Error with one sentence (the caller names the tensor).
Tensor decode_image_hwc(std::string_view bytes);

}  // namespace strata::io
