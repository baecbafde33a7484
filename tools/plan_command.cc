/// `ballast plan`: a dry run on the journal's latest state, like Cruise
/// Control's dry-run proposals: the actions a planning round would take now,
/// the ones the gate would hold back, and every broker's load before and
/// after. Nothing is written and nothing is executed. With `--model` it
/// plans on a cluster described in JSON instead (plan_model.cc).

#include <cinttypes>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/journal_replay.h"
#include "tools/driver/plan_json.h"
#include "tools/driver/text_format.h"
#include "tools/plan_model.h"

namespace ballast::tools {

namespace {

struct PlanOptions {
    std::string journal;
    bool json = false;
    std::vector<std::string> overrides;
    ModelPlanOptions model;
};

int run_plan(const Context& ctx, const PlanOptions& options) {
    if (!options.model.model_path.empty()) return run_model_plan(ctx, options.model, options.overrides, options.json);
    if (options.model.complete || !options.model.assignment_out.empty() || !options.model.score_assignment.empty()) {
        return report_error(events::make_error(events::ErrorCode::invalid_argument,
                                               "--complete, --assignment-out and --score-assignment need --model FILE.json"));
    }
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    setup_logging(*config);
    // The replay's own info lines (brokers registered, ...) are the
    // journal's history, not the plan: only warnings and errors show.
    if (spdlog::get_level() == spdlog::level::info) spdlog::set_level(spdlog::level::warn);
    const std::string path =
        options.journal.empty() ? config->get_string("ballast.journal.path") : options.journal;
    events::Result<driver::ReplaySource> source = driver::open_replay_source(path, driver::ReplayStart::newest, UINT64_MAX);
    if (!source) return report_error(source.error());

    actors::EngineOptions engine_options;
    engine_options.overrides = options.overrides;
    engine_options.replay_from = source->start ? &*source->start : nullptr;
    events::Result<std::unique_ptr<actors::Engine>> engine = actors::Engine::start(engine_options);
    if (!engine) return report_error(engine.error());
    if (events::Status fed = driver::feed_journal(**engine, *source, {}); !fed) return report_error(fed.error());
    events::Result<actors::DecisionPtr> decision = (*engine)->plan_now();
    if (!decision) return report_error(decision.error());
    const actors::Decision& d = **decision;
    const auto& planned = std::get<events::ActionsPlanned>(d.event.body);

    if (options.json) {
        std::printf("%s\n", driver::dry_run_json(d).dump().c_str());
        return exit_ok;
    }

    std::printf("plan as of seq %" PRIu64 " (%s)\n", d.barrier_seq, driver::format_time_ms(d.event.time_ms).c_str());
    auto goals_line = [](const std::vector<std::string>& names) {
        std::string line;
        for (const std::string& n : names) line += (line.empty() ? "" : ", ") + n;
        return line.empty() ? std::string("none") : line;
    };
    std::printf("goals not met now: %s\n", goals_line(d.violated_before).c_str());
    std::printf("goals not met after the plan: %s\n", goals_line(d.violated_after).c_str());
    if (!d.in_flight.empty()) {
        // What this round comes after: without it, a round planned around
        // running actions reads as if they were not needed.
        std::printf("\nplanned around %zu action(s) in flight", d.in_flight.size());
        if (d.pending > 0) std::printf(" (the last %zu decided, waiting for their Tick to take effect)", d.pending);
        std::printf(":\n");
        // The waiting ones first: they are the newest, and past the list's
        // end they would go unnamed.
        constexpr size_t listed_max = 20;
        const size_t n = d.in_flight.size();
        for (size_t k = 0; k < n && k < listed_max; k++) {
            const size_t i = (n - d.pending + k) % n;
            std::printf("  %s%s\n", driver::describe_action(d.in_flight[i]).c_str(),
                        k < d.pending ? "  (waiting for its Tick)" : "");
        }
        if (d.in_flight.size() > listed_max) std::printf("  ... and %zu more\n", d.in_flight.size() - listed_max);
    }
    std::printf("\n%zu action(s) the gate would release now:\n", planned.actions.size());
    for (const events::Action& a : planned.actions) std::printf("  %s\n", driver::describe_action(a).c_str());
    if (!planned.held.empty()) {
        std::printf("%zu more held back by the gate:\n", planned.held.size());
        for (const events::HeldAction& h : planned.held) {
            std::printf("  %s  (%s)\n", driver::describe_action(h.action).c_str(), h.reason.c_str());
        }
    }
    for (const std::string& u : d.unfixable) std::printf("cannot fix: %s\n", u.c_str());
    std::printf("\n%-7s %-10s %-7s %-8s %-26s %-26s %-12s %s\n", "broker", "rack", "state",
                "metrics", "in (before -> after)", "out (before -> after)", "replicas", "leaders");
    for (const actors::BrokerSummary& b : d.brokers) {
        const std::string in = driver::mib_per_s(b.before.load.bytes_in_per_s) + " -> " +
                               driver::mib_per_s(b.after.load.bytes_in_per_s);
        const std::string out = driver::mib_per_s(b.before.load.bytes_out_per_s) + " -> " +
                                driver::mib_per_s(b.after.load.bytes_out_per_s);
        std::printf("%-7d %-10s %-7s %-8s %-26s %-26s %4d -> %-4d %4d -> %d\n", b.id, b.rack.c_str(),
                    driver::liveness_name(b.liveness), b.metrics_fresh ? "fresh" : "stale", in.c_str(), out.c_str(), b.before.replica_count,
                    b.after.replica_count, b.before.leader_count, b.after.leader_count);
    }
    return exit_ok;
}

}  // namespace

void register_plan_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<PlanOptions>();
    CLI::App* plan = app.add_subcommand(
        "plan", "Dry run: what a planning round would do now, and the loads before and after");
    plan->add_option("--journal", options->journal, "Journal directory (default: ballast.journal.path)");
    plan->add_flag("--json", options->json, "One JSON object");
    plan->add_option("--set", options->overrides, "Plan with this setting changed, key=value (repeatable)");
    plan->add_option("--model", options->model.model_path,
                     "Plan on a cluster described in JSON (format: goals/README.md), not on a journal")
        ->check(CLI::ExistingFile);
    plan->add_flag("--complete", options->model.complete,
                   "With --model: plan round after round on the projected result until nothing is left (no caps, "
                   "no cooldowns), and print the totals");
    plan->add_option("--assignment-out", options->model.assignment_out,
                     "With --model: write the final assignment as kafka-reassign-partitions --execute reads it");
    plan->add_option("--score-assignment", options->model.score_assignment,
                     "With --model: plan nothing; judge this final assignment (kafka-reassign-partitions JSON, "
                     "another balancer's answer) with the same totals")
        ->check(CLI::ExistingFile)
        ->excludes("--complete")
        ->excludes("--assignment-out");
    plan->callback([&ctx, options] { ctx.exit_code = run_plan(ctx, *options); });
}

}  // namespace ballast::tools
