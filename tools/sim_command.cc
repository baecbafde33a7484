/// `ballast sim`: runs one scenario against the simulated cluster, in
/// simulated time (or paced to the wall clock with --realtime), and prints
/// what happened: broker changes, each round's actions, their outcomes, and
/// a summary. The journal it writes can be replayed with `ballast replay`.
/// With --realtime the HTTP API (tools/http/) answers on
/// `ballast.http.listen` between the steps, and SIGINT or SIGTERM ends the
/// run at the next step, with its summary.

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "adapters/sim/random_scenario.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/sim_checks.h"
#include "tools/driver/sim_runner.h"
#include "tools/driver/text_format.h"
#include "tools/http/server.h"
#include "tools/sim_report.h"

namespace ballast::tools {

namespace {

/// --realtime: SIGINT or SIGTERM asks the run to end at the next step.
volatile std::sig_atomic_t stop_signal = 0;
void on_stop_signal(int signal) { stop_signal = signal; }

struct SimOptions {
    std::string scenario_file;
    uint64_t random_seed = 0;
    std::string until;
    std::string journal;
    bool realtime = false;
    bool check = false;
    bool quiet = false;
};

int run_sim(const Context& ctx, const SimOptions& options) {
    events::Result<sim::Scenario> scenario = make_error(events::ErrorCode::invalid_argument, "");
    if (!options.scenario_file.empty() && options.random_seed != 0) {
        return report_error("give --scenario FILE or --random-seed N, not both");
    }
    if (!options.scenario_file.empty()) {
        scenario = sim::load_scenario_file(options.scenario_file);
    } else if (options.random_seed != 0) {
        scenario = sim::random_scenario(options.random_seed);
    } else {
        return report_error("give --scenario FILE (a .json or .toml scenario) or --random-seed N");
    }
    if (!scenario) return report_error(scenario.error());

    events::Result<events::Config> config = driver::sim_config(*scenario, ctx.global.overrides, ctx.global.config_file);
    if (!config) return report_error(config.error());
    if (!ctx.global.log_level.empty()) {
        if (events::Status s = config->set("ballast.log.level", ctx.global.log_level); !s) return report_error(s.error());
    } else if (config->origin("ballast.log.level") == "default") {
        (void)config->set("ballast.log.level", "warn", "sim");  // the timeline says what happens
    }
    setup_logging(*config);

    driver::SimRunOptions run;
    run.scenario = *scenario;
    run.config = *config;
    run.realtime = options.realtime;
    if (!options.until.empty()) {
        events::Result<int64_t> until = sim::parse_duration_ms(options.until);
        if (!until) return report_error("--until: " + until.error().message);
        run.until_ms = *until;
    }
    std::string journal = options.journal;
    if (journal.empty()) journal = "ballast-sim-" + scenario->name;
    if (std::filesystem::exists(journal)) {
        if (!options.journal.empty() && !std::filesystem::is_empty(journal)) {
            // The simulated cluster starts from nothing; an engine recovered
            // from another run's journal would not match it.
            return report_error("--journal " + journal +
                                ": already holds a journal; a simulated run starts a new one "
                                "(remove it or give another directory)");
        }
        std::error_code ec;
        std::filesystem::remove_all(journal, ec);  // the default journal is this command's own
    }
    run.journal_path = journal;

    // Realtime: the HTTP API, served on this thread between the steps (the
    // engine's actors run here).
    http::EngineAccess access(http::EngineAccess::Mode::owner_thread);
    std::unique_ptr<http::Server> server;
    if (options.realtime) {
        http::ApiOptions api;
        api.process_config = *config;
        events::Result<std::unique_ptr<http::Server>> started = http::Server::start(*config, access, api);
        if (!started) return report_error(started.error());
        server = std::move(*started);
        if (server) std::printf("HTTP API on %s (%s)\n", server->url().c_str(), server->access_text().c_str());
        access.set_readiness({"simulation", true, "scenario " + scenario->name + ", paced to the wall clock"});
        std::signal(SIGINT, on_stop_signal);
        std::signal(SIGTERM, on_stop_signal);
        run.between_steps = [&access](actors::Engine& engine, int64_t now_ms,
                                      std::chrono::steady_clock::time_point next_step) {
            access.serve_until(engine, now_ms, next_step, [] { return stop_signal != 0; });
            return stop_signal == 0;
        };
    }
    std::printf("scenario %s (%s, %zu brokers, %zu topics): %s\n", scenario->name.c_str(),
                sim::flavor_name(scenario->flavor), scenario->brokers.size(), scenario->topics.size(),
                scenario->description.empty() ? "no description" : scenario->description.c_str());
    // Random scenarios stop changing at a known time: thrash is checked after it.
    const int64_t quiet_from_ms = options.random_seed != 0 ? sim::random_disturbed_until_ms(*scenario) : -1;
    driver::SimChecker checker(*scenario, *config, quiet_from_ms);
    TimelinePrinter timeline(options.quiet ? nullptr : stdout);
    run.on_step = [&](const driver::SimStep& step) {
        timeline.step(step);
        if (options.check) checker.step(step);
    };
    std::fflush(stdout);  // where the API listens, before the run
    events::Result<driver::SimRunSummary> summary = driver::run_simulation(run);
    access.close("the simulation has ended");
    if (server) server->stop();
    if (!summary) return report_error(summary.error());
    if (stop_signal != 0) std::printf("\nstopped by %s at t+%" PRId64 " ms\n", stop_signal == SIGINT ? "SIGINT" : "SIGTERM", summary->simulated_ms);
    std::printf("\n%s", format_summary(*summary, timeline).c_str());
    std::printf("journal: %s (replay it: ballast replay --journal %s)\n", journal.c_str(), journal.c_str());
    if (!options.check) return exit_ok;
    driver::SimVerdict verdict = checker.finish(journal, *summary);
    std::printf("%s", verdict.report().c_str());
    return verdict.ok() ? exit_ok : 2;
}

}  // namespace

void register_sim_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<SimOptions>();
    CLI::App* sim = app.add_subcommand("sim", "Run a scenario against the simulated cluster, in simulated time");
    sim->add_option("--scenario", options->scenario_file, "Scenario file, JSON or TOML by its extension (.json, .toml; see adapters/sim/README.md)")
        ->check(CLI::ExistingFile);
    sim->add_option("--random-seed", options->random_seed,
                    "Instead of a file: the random scenario of this seed (what the fault tests run)");
    sim->add_option("--until", options->until, "Stop at this simulated time, e.g. 10m (default: the scenario's)");
    sim->add_option("--journal", options->journal, "Journal directory (default: ./ballast-sim-<scenario>, replaced)");
    sim->add_flag("--realtime", options->realtime,
                  "Pace simulated time to the wall clock, with the HTTP API on ballast.http.listen (empty: none); "
                  "SIGINT or SIGTERM ends the run");
    sim->add_flag("--check", options->check,
                  "Check the invariants at every step and replay the journal at the end; exit 2 on a break");
    sim->add_flag("--quiet", options->quiet, "Print only the summary");
    sim->callback([&ctx, options] { ctx.exit_code = run_sim(ctx, *options); });
}

}  // namespace ballast::tools
