// Figures as people read them: bytes in binary units, counts with SI prefixes, times and ratios
// with a fixed number of decimals so that columns line up.
#pragma once

#include <string>

namespace strata::report {

std::string human_bytes(double bytes);          // "1.5 MiB"; "512 B"
std::string si_count(double count);             // "1.82 G", "640 k", "12"
std::string fixed(double value, int decimals);  // "1.235"
std::string milliseconds(double ms);            // "12.500", "0.112", "0.0123", "0.000420"
std::string percent(double ratio_pct);          // "12.3%"; "-" when negative (unknown)

}  // namespace strata::report
