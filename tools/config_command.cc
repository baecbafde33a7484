/// `ballast config`: the effective configuration with where each value came
/// from, or with --defaults every key with its default and what it means.
/// With --command-config FILE, the Kafka client settings as `ballast run
/// --command-config FILE` would use them.

#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "adapters/kafka/client_properties.h"
#include "tools/cli_common.h"
#include "tools/commands.h"

namespace ballast::tools {

namespace {

struct ConfigOptions {
    bool defaults = false;
    std::string command_config;
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
    events::Result<kafka::ClientConfig> client = kafka::read_client_config(*config, options.command_config);
    if (!client) return report_error(client.error());
    if (std::string warning = client->ignored_warning(options.command_config); !warning.empty()) {
        std::fprintf(stderr, "ballast: warning: %s\n", warning.c_str());
    }
    // Loadable as a .properties file (secrets aside, shown as [hidden]);
    // origins ride along as comments.
    auto print = [](const std::string& key, const std::string& value, const std::string& origin) {
        std::printf("%s=%s%s%s\n", key.c_str(), value.c_str(), origin == "default" ? "" : "    # from ",
                    origin == "default" ? "" : origin.c_str());
    };
    for (const auto& [key, value] : config->entries()) {
        if (key.starts_with(events::kafka_client_prefix)) continue;
        print(key, config->display_text(key), config->origin(key));
    }
    // The Kafka client settings: a kafka.* setting's origin, or the file's line.
    for (const kafka::ClientProperty& property : client->effective) {
        const std::string key = std::string(events::kafka_client_prefix) + property.name;
        const std::string origin = property.origin.starts_with(key) ? config->origin(key) : property.origin;
        print(key, client->display_value(property), origin);
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
    config->add_option("--command-config", options->command_config,
                       "Kafka client properties, as `run --command-config` reads them (security.protocol, "
                       "sasl.*, ssl.*)")
        ->check(CLI::ExistingFile);
    config->callback([&ctx, options] { ctx.exit_code = run_config(ctx, *options); });
}

}  // namespace ballast::tools
