#pragma once

/// Each subcommand registers itself on the top-level app; its callback runs
/// after parsing and leaves its exit code in the context.

#include "tools/cli_common.h"

namespace CLI {
class App;
}

namespace ballast::tools {

void register_config_command(CLI::App& app, Context& ctx);
void register_log_command(CLI::App& app, Context& ctx);
void register_replay_command(CLI::App& app, Context& ctx);
void register_plan_command(CLI::App& app, Context& ctx);
void register_sim_command(CLI::App& app, Context& ctx);
void register_demo_command(CLI::App& app, Context& ctx);
void register_storm_command(CLI::App& app, Context& ctx);
void register_run_command(CLI::App& app, Context& ctx);
void register_ctl_command(CLI::App& app, Context& ctx);

}  // namespace ballast::tools
