// What a fuzz target tolerates: strata refusing the input (exit 2: Error kBadInput, or
// std::bad_alloc, reported as "out of memory") is the expected answer to garbage. Anything else
// escaping the library (an internal error, a foreign exception) is what the CLI would report as a
// bug with exit 3, so the target aborts and libFuzzer records the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace strata::fuzz {

// Runs `body`, swallowing the refusals above and aborting on anything else.
void guarded(const std::function<void()>& body);

// A private directory under $TMPDIR (or /tmp) for the files a target writes, made once per process.
const std::string& scratch_dir();

// Writes `bytes` to scratch_dir()/name and returns the path.
std::string write_scratch(const std::string& name, std::string_view bytes);

}  // namespace strata::fuzz
