/// `ballast run --bootstrap-server HOST:PORT[,...] [--bootstrap-controller HOST:PORT[,...]] [--journal DIR]
/// [--command-config FILE]`: the companion beside a real Kafka cluster (see
/// live_run.h).

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "adapters/kafka/client_properties.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/live_run.h"

namespace ballast::tools {

namespace {

struct RunOptions {
    std::string bootstrap_servers;
    std::string bootstrap_controllers;
    std::string journal;
    std::string command_config;
    bool ha = false;
};

int run_command(const Context& ctx, const RunOptions& options) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    if (!options.journal.empty()) {
        if (events::Status s = config->set("ballast.journal.path", options.journal, "--journal"); !s) {
            return report_error(s.error());
        }
    }
    if (options.ha) {
        if (events::Status s = config->set("ballast.ha.enable", "true", "--ha"); !s) return report_error(s.error());
    }
    setup_logging(*config);
    events::Result<kafka::ClientConfig> client = kafka::read_client_config(*config, options.command_config);
    if (!client) return report_error(client.error());
    if (std::string warning = client->ignored_warning(options.command_config); !warning.empty()) {
        spdlog::warn("{}", warning);
    }
    for (const std::string& line : client->overridden) spdlog::info("{}", line);
    LiveRunOptions live;
    live.bootstrap_servers = options.bootstrap_servers;
    live.bootstrap_controllers = options.bootstrap_controllers;
    live.config = *config;
    live.security = client->security;
    return run_live(live);
}

}  // namespace

void register_run_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RunOptions>();
    CLI::App* run = app.add_subcommand("run", "Run beside a Kafka cluster: watch it, plan, and move partitions");
    run->add_option("--bootstrap-server", options->bootstrap_servers, "The cluster's brokers, HOST:PORT[,HOST:PORT...]")
        ->required();
    run->add_option("--bootstrap-controller", options->bootstrap_controllers,
                    "The controllers' listener, HOST:PORT[,HOST:PORT...] (as Kafka's tools take it): metadata "
                    "from KRaft's log instead of polling (ballast.metadata.source); the brokers' security applies");
    run->add_option("--journal", options->journal, "Journal directory (default: ballast.journal.path)");
    run->add_option("--command-config", options->command_config,
                    "Kafka client properties, as Kafka's tools take them: security.protocol, sasl.mechanism, "
                    "sasl.jaas.config, ssl.* (a kafka.* setting of the same name wins)")
        ->check(CLI::ExistingFile);
    run->add_flag("--ha", options->ha,
                  "One of several instances: leader elected through Kafka, journal replicated through a Kafka "
                  "topic (ballast.ha.enable)");
    run->callback([&ctx, options] { ctx.exit_code = run_command(ctx, *options); });
}

}  // namespace ballast::tools
