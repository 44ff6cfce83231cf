// The version of the oneDNN library strata runs with, for the record in profiles. Kept apart from
// onednn.h so that callers outside the kernels need not see oneDNN's headers.
#pragma once

#include <string>

namespace strata::kernels::onednn {

std::string library_version();  // "2.6.3" (major.minor.patch of the loaded libdnnl)

}  // namespace strata::kernels::onednn
