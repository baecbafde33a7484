#include "tools/cli_common.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace ballast::tools {

events::Result<events::Config> load_config(const GlobalOptions& global) {
    events::Config config = events::Config::defaults();
    if (!global.config_file.empty()) {
        if (events::Status status = config.load_properties_file(global.config_file); !status) {
            return status.error();
        }
    }
    for (const std::string& assignment : global.overrides) {
        if (events::Status status = config.apply_override(assignment); !status) {
            return status.error();
        }
    }
    if (!global.log_level.empty()) {
        if (events::Status status = config.set("ballast.log.level", global.log_level, "--log-level");
            !status) {
            return status.error();
        }
    }
    return config;
}

void setup_logging(const events::Config& config) {
    auto logger = spdlog::stderr_color_mt("ballast");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ %v");
    logger->set_level(spdlog::level::from_str(config.get_string("ballast.log.level")));
    spdlog::set_default_logger(logger);
}

int report_error(const events::Error& error) { return report_error(error.to_string()); }

int report_error(const std::string& message) {
    std::fprintf(stderr, "ballast: error: %s\n", message.c_str());
    return exit_error;
}

std::string format_time_ms(int64_t time_ms) {
    // Times before 2000-01-01 are simulated clocks that start near zero.
    constexpr int64_t year_2000_ms = 946'684'800'000;
    char text[64];
    if (time_ms < year_2000_ms) {
        std::snprintf(text, sizeof text, "t+%" PRId64 ".%03" PRId64 "s", time_ms / 1000,
                      (time_ms < 0 ? -time_ms : time_ms) % 1000);
        return text;
    }
    const std::time_t seconds = static_cast<std::time_t>(time_ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(time_ms % 1000));
    return text;
}

std::string format_bytes(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        unit++;
    }
    char text[32];
    if (unit == 0) {
        std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
    } else {
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    }
    return text;
}

}  // namespace ballast::tools
