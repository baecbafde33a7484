/// `ballast run --bootstrap-server HOST:PORT[,...] [--journal DIR]`: the
/// companion beside a real Kafka cluster (see live_run.h).

#include <CLI/CLI.hpp>

#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/live_run.h"

namespace ballast::tools {

namespace {

struct RunOptions {
    std::string bootstrap_servers;
    std::string journal;
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
    LiveRunOptions live;
    live.bootstrap_servers = options.bootstrap_servers;
    live.config = *config;
    return run_live(live);
}

}  // namespace

void register_run_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RunOptions>();
    CLI::App* run = app.add_subcommand("run", "Run beside a Kafka cluster: watch it, plan, and move partitions");
    run->add_option("--bootstrap-server", options->bootstrap_servers, "The cluster's brokers, HOST:PORT[,HOST:PORT...]")
        ->required();
    run->add_option("--journal", options->journal, "Journal directory (default: ballast.journal.path)");
    run->add_flag("--ha", options->ha,
                  "One of several instances: leader elected through Kafka, journal replicated through a Kafka "
                  "topic (ballast.ha.enable)");
    run->callback([&ctx, options] { ctx.exit_code = run_command(ctx, *options); });
}

}  // namespace ballast::tools
