#include <spdlog/spdlog.h>

#include "tests/fuzz/fuzz_support.h"

namespace ballast::fuzz {

void quiet_logs() { spdlog::set_level(spdlog::level::off); }

}  // namespace ballast::fuzz
