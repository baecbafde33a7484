/// `ballast config`: the effective configuration with where each value came
/// from, or with --defaults every key with its default and what it means.

#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/cli_common.h"
#include "tools/commands.h"

namespace ballast::tools {

namespace {

struct ConfigOptions {
    bool defaults = false;
};

int run_config(const Context& ctx, const ConfigOptions& options) {
    if (options.defaults) {
        for (const events::KeySpec& spec : events::config_keys()) {
            std::printf("%s=%.*s\n    %.*s (%s)\n", std::string(spec.key).c_str(),
                        static_cast<int>(spec.default_value.size()), spec.default_value.data(),
                        static_cast<int>(spec.description.size()), spec.description.data(),
                        events::value_type_name(spec.type));
        }
        return exit_ok;
    }
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    // Loadable as a .properties file; origins ride along as comments.
    for (const auto& [key, value] : config->entries()) {
        const std::string& origin = config->origin(key);
        std::printf("%s=%s%s%s\n", key.c_str(), value.c_str(),
                    origin == "default" ? "" : "    # from ", origin == "default" ? "" : origin.c_str());
    }
    return exit_ok;
}

}  // namespace

void register_config_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<ConfigOptions>();
    CLI::App* config = app.add_subcommand(
        "config", "Print the effective configuration (defaults, --config FILE, --set)");
    config->add_flag("--defaults", options->defaults,
                     "Print every key with its default value and description");
    config->callback([&ctx, options] { ctx.exit_code = run_config(ctx, *options); });
}

}  // namespace ballast::tools
