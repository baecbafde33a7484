/// `ballast`: the command line. Each subcommand lives in its own file
/// (config_command.cc, log_command.cc, ...) and registers itself here.

#include <cstdio>

#include <CLI/CLI.hpp>

#include "tools/cli_common.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
    using namespace ballast::tools;
    Context ctx;

    CLI::App app{"Ballast: a self-balancing companion for Kafka clusters", "ballast"};
    app.set_version_flag("--version", std::string("ballast ") + BALLAST_VERSION);
    app.require_subcommand(0, 1);
    app.add_option("--config", ctx.global.config_file, "Properties file of settings")
        ->check(CLI::ExistingFile);
    app.add_option("--set", ctx.global.overrides,
                   "Override one setting, key=value (repeatable; applied after --config)")
        ->allow_extra_args(false);
    app.add_option("--log-level", ctx.global.log_level,
                   "trace, debug, info, warn, error, critical or off (ballast.log.level)");

    register_config_command(app, ctx);
    register_log_command(app, ctx);
    register_replay_command(app, ctx);
    register_plan_command(app, ctx);
    register_demo_command(app, ctx);
    register_sim_command(app, ctx);
    register_storm_command(app, ctx);
    register_run_command(app, ctx);
    register_ctl_command(app, ctx);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    if (app.get_subcommands().empty()) {
        std::fputs(app.help().c_str(), stderr);
        return exit_error;
    }
    return ctx.exit_code;
}
