#include "tools/cli_common.h"

#include <cstdio>

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

}  // namespace ballast::tools
