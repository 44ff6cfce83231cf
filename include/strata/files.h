// Files strata writes (profiles, traces, reports, dumps) are written atomically; a command that
// writes one after long work checks first that it can:
//
//   strata::check_writable("out/report.html");  // throws now, not after minutes of profiling
//   ...
//   strata::write_file("out/report.html", html);
//   strata::save_npy("out/" + strata::file_stem_of("logits:0") + ".npy", logits);  // logits_0.npy
#pragma once

#include <string>

namespace strata {

// Throws strata::Error with the system's reason, naming `path`, when a file cannot be created
// there (checked by creating and removing a temporary file beside it); leaves nothing behind.
void check_writable(const std::string& path);

// Writes `text` to `path` atomically (a temporary file beside it, then renamed): nobody sees half a
// file. Throws strata::Error naming the path when it cannot be written.
void write_file(const std::string& path, const std::string& text);

// A file name (without extension) for a value name: the '/', ':' and '\\' common in exported
// names become '_', as in dumps and the NAME.npy files read for verification.
std::string file_stem_of(const std::string& value_name);

}  // namespace strata
