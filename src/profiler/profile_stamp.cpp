#include "profiler/profile_stamp.h"

#include <ctime>

#include "io/sha256.h"
#include "profiler/machine.h"

namespace strata::profiler {

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void stamp_profile(Profile& profile, const std::string& model_path) {
  profile.strata_version = STRATA_VERSION;
  profile.model = model_path;
  profile.model_sha256 = io::sha256_file(model_path);
  profile.created = utc_now_iso8601();
  profile.libraries = library_versions();
}

}  // namespace strata::profiler
