// NumPy .npz archives (np.savez and np.savez_compressed): a zip file of .npy entries, the usual
// way a Python script saves many named tensors at once.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace strata::io {

// Every array in the archive, in the archive's order, named as np.load names them (the entry
// name without ".npy"). Entries may be stored or deflated; zip64 archives (over 4 GiB) are not
// read. Every failure throws Error with one sentence that starts with the path.
std::vector<std::pair<std::string, Tensor>> read_npz(const std::string& path);

}  // namespace strata::io
