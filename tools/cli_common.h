#pragma once

/// What every `ballast` subcommand shares: the global options, the effective
/// configuration, logging, and how errors reach the user.

#include <string>
#include <vector>

#include "events/config.h"
#include "events/result.h"

namespace ballast::tools {

/// Exit codes: 0 success, 1 an error the message explains, 2 a check that
/// found a problem (a corrupt journal, a failed verification). CLI11's own
/// usage errors keep CLI11's codes.
inline constexpr int exit_ok = 0;
inline constexpr int exit_error = 1;

struct GlobalOptions {
    std::string config_file;             // --config FILE
    std::vector<std::string> overrides;  // --set key=value, in order
    std::string log_level;               // --log-level; empty: from the config
};

/// Shared by the subcommands: filled by parsing, read by the callbacks.
struct Context {
    GlobalOptions global;
    int exit_code = exit_ok;
};

/// The effective configuration: defaults, then --config FILE, then each
/// --set in order, then --log-level. The error names the file, key and value.
events::Result<events::Config> load_config(const GlobalOptions& global);

/// Routes spdlog to stderr at the config's `ballast.log.level`.
void setup_logging(const events::Config& config);

/// Prints "ballast: error: <message>" to stderr; returns exit_error.
int report_error(const events::Error& error);
int report_error(const std::string& message);

}  // namespace ballast::tools
