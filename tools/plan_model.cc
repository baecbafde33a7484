#include "tools/plan_model.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/engine_config.h"
#include "actors/scheduler_actor.h"
#include "tools/driver/model_file.h"
#include "tools/driver/text_format.h"

namespace ballast::tools {

namespace {

/// A complete plan that has not run out of actions after this many rounds
/// is trading partitions back and forth: stopped and said so.
constexpr uint32_t complete_rounds_max = 1'000;

struct Totals {
    uint32_t rounds = 0;
    uint64_t moves = 0, swaps = 0, leaders = 0;
    double planning_s = 0;
    bool converged = true;
    std::vector<std::string> unfixable;  // of the last round
    /// Per goal that proposed them: actions, and the bytes their copies carry.
    std::map<std::string, std::pair<uint64_t, double>> by_goal;
};

void count(const goals::ClusterModel& model, const goals::Plan& plan, Totals& t) {
    t.rounds++;
    for (const goals::Action& a : plan.actions) {
        auto& [actions, bytes] = t.by_goal[goals::goal_name(a.goal)];
        actions++;
        if (a.kind != goals::ActionKind::leader) bytes += model.partitions[a.partition].load.size_bytes;
        if (a.kind == goals::ActionKind::swap) bytes += model.partitions[a.swap_partition].load.size_bytes;
        switch (a.kind) {
            case goals::ActionKind::move: t.moves++; break;
            case goals::ActionKind::swap: t.swaps++; break;
            case goals::ActionKind::leader: t.leaders++; break;
        }
    }
}

nlohmann::ordered_json balance_json(const driver::BalanceSummary& b) {
    return {{"network_in_max_mean", b.in_max_mean},   {"network_in_min_mean", b.in_min_mean},
            {"network_out_max_mean", b.out_max_mean}, {"network_out_min_mean", b.out_min_mean},
            {"disk_max_mean", b.disk_max_mean},       {"disk_min_mean", b.disk_min_mean},
            {"replicas_min", b.replicas_min},         {"replicas_max", b.replicas_max},
            {"leaders_min", b.leaders_min},           {"leaders_max", b.leaders_max},
            {"rack_violations", b.rack_violations},   {"brokers_over_capacity", b.brokers_over_capacity},
            {"topic_replicas_over_band", b.topic_replicas_over}};
}

}  // namespace

int run_model_plan(const Context& ctx, const ModelPlanOptions& options, const std::vector<std::string>& overrides,
                   bool json) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    for (const std::string& o : overrides) {
        if (events::Status s = config->apply_override(o); !s) return report_error(s.error());
    }
    setup_logging(*config);
    events::Result<goals::ClusterModel> model = driver::read_model_file(options.model_path);
    if (!model) return report_error(model.error());
    goals::PlannerConfig planner = actors::settings_from(*config).planner;
    if (options.complete) {
        // The whole way: no per-round or per-broker caps (no gate runs here,
        // and no time passes, so no cooldown either).
        planner.actions_max = UINT32_MAX;
        planner.broker_actions_max = 0;
    }
    if (std::string error = goals::check_input(*model, planner); !error.empty()) {
        return report_error(options.model_path + ": " + error);
    }

    Totals totals;
    std::vector<std::string> actions;  // one line each, single round only
    goals::ClusterModel scored;
    if (!options.score_assignment.empty()) {
        std::ifstream in(options.score_assignment);
        if (!in) return report_error(options.score_assignment + ": cannot be read");
        std::stringstream text;
        text << in.rdbuf();
        events::Result<goals::ClusterModel> result =
            driver::apply_assignment_json(*model, text.str(), options.score_assignment);
        if (!result) return report_error(result.error());
        scored = std::move(*result);
    }
    // Names, sizes and topics stay as the input has them round after round.
    const goals::ClusterModel& input = *model;
    std::optional<goals::Rounds> planning;
    if (options.score_assignment.empty()) planning.emplace(input, planner);
    while (planning) {
        const auto started = std::chrono::steady_clock::now();
        // The first round checks its input as every plan does, and is timed with it.
        const goals::Plan plan = planning->next();
        totals.planning_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        totals.unfixable.clear();
        for (const goals::Unfixable& u : plan.unfixable) {
            const std::string what = u.partition < input.partitions.size()
                                         ? input.topics[input.partitions[u.partition].topic] + "-" +
                                               std::to_string(input.partitions[u.partition].partition)
                                         : "broker " + std::to_string(u.broker_id);
            totals.unfixable.push_back(what + " (" + goals::goal_name(u.goal) + "): " + u.reason);
        }
        if (plan.actions.empty()) break;
        count(input, plan, totals);
        if (!options.complete) {
            // The single round planned on the input.
            for (const goals::Action& a : plan.actions) {
                actions.push_back(driver::describe_action(actors::to_event_action(input, a, 0)));
            }
            break;
        }
        if (totals.rounds >= complete_rounds_max) {
            totals.converged = false;
            break;
        }
    }
    const goals::ClusterModel& now = planning ? planning->model() : scored;

    const double threshold = planner.capacity_threshold;
    const driver::BalanceSummary before = driver::balance_of(*model, threshold, planner.topic_spread_avg_deviation);
    const driver::BalanceSummary after = driver::balance_of(now, threshold, planner.topic_spread_avg_deviation);
    const driver::MovedSummary moved = driver::moved_between(*model, now);
    std::vector<std::string> violated;
    for (goals::GoalKind g : goals::violated_goals(now, planner)) violated.push_back(goals::goal_name(g));
    if (!options.assignment_out.empty()) {
        std::ofstream out(options.assignment_out);
        out << driver::reassignment_json(*model, now);
        if (!out) return report_error(options.assignment_out + ": cannot be written");
    }

    if (json) {
        nlohmann::ordered_json out;
        out["model"] = options.model_path;
        out["brokers"] = model->brokers.size();
        out["partitions"] = model->partitions.size();
        out["replicas"] = model->replicas.size();
        out["complete"] = options.complete;
        if (!options.score_assignment.empty()) out["scored"] = options.score_assignment;
        out["converged"] = totals.converged;
        out["rounds"] = totals.rounds;
        out["planning_s"] = totals.planning_s;
        out["moves"] = totals.moves;
        out["swaps"] = totals.swaps;
        out["leader_changes"] = totals.leaders;
        out["partitions_moved"] = moved.partitions_moved;
        out["replicas_moved"] = moved.replicas_moved;
        out["bytes_moved"] = moved.bytes_moved;
        out["leaders_changed"] = moved.leaders_changed;
        out["before"] = balance_json(before);
        out["after"] = balance_json(after);
        out["violated_after"] = violated;
        nlohmann::ordered_json by_goal = nlohmann::ordered_json::object();
        for (const auto& [goal, counted] : totals.by_goal) {
            by_goal[goal] = {{"actions", counted.first}, {"bytes_copied", counted.second}};
        }
        out["by_goal"] = by_goal;
        out["unfixable"] = totals.unfixable;
        if (!options.complete) out["actions"] = actions;
        std::printf("%s\n", out.dump().c_str());
        return exit_ok;
    }
    std::printf("model %s: %zu brokers, %zu racks, %zu partitions, %zu replicas\n", options.model_path.c_str(),
                model->brokers.size(), model->racks.size(), model->partitions.size(), model->replicas.size());
    const std::string rounds = options.complete ? "complete plan, " + std::to_string(totals.rounds) + " rounds" : "one round";
    if (!options.score_assignment.empty()) {
        std::printf("scored the assignment in %s (nothing planned)\n", options.score_assignment.c_str());
    } else std::printf("%s: %" PRIu64 " moves, %" PRIu64 " swaps, %" PRIu64 " leader changes, planned in %.1f ms%s\n",
                rounds.c_str(), totals.moves, totals.swaps, totals.leaders, totals.planning_s * 1000,
                totals.converged ? "" : " (stopped: still planning after the round limit, a sign of partitions traded "
                                        "back and forth)");
    for (const std::string& line : actions) std::printf("  %s\n", line.c_str());
    for (const auto& [goal, counted] : totals.by_goal) {
        std::printf("  %-36s %8" PRIu64 " actions, %s copied\n", goal.c_str(), counted.first,
                    driver::format_bytes(static_cast<uint64_t>(counted.second)).c_str());
    }
    std::printf("moved: %u partitions, %u replicas, %s; %u leaders changed\n", moved.partitions_moved,
                moved.replicas_moved, driver::format_bytes(static_cast<uint64_t>(moved.bytes_moved)).c_str(),
                moved.leaders_changed);
    std::printf("\n%-28s %10s %10s\n", "", "before", "after");
    auto row = [](const char* name, double b, double a) { std::printf("%-28s %10.3f %10.3f\n", name, b, a); };
    row("network in max/mean", before.in_max_mean, after.in_max_mean);
    row("network in min/mean", before.in_min_mean, after.in_min_mean);
    row("network out max/mean", before.out_max_mean, after.out_max_mean);
    row("network out min/mean", before.out_min_mean, after.out_min_mean);
    row("disk max/mean", before.disk_max_mean, after.disk_max_mean);
    row("disk min/mean", before.disk_min_mean, after.disk_min_mean);
    auto range = [](const char* name, int32_t b0, int32_t b1, int32_t a0, int32_t a1) {
        const std::string b = std::to_string(b0) + "-" + std::to_string(b1);
        const std::string a = std::to_string(a0) + "-" + std::to_string(a1);
        std::printf("%-28s %10s %10s\n", name, b.c_str(), a.c_str());
    };
    range("replicas per broker", before.replicas_min, before.replicas_max, after.replicas_min, after.replicas_max);
    range("leaders per broker", before.leaders_min, before.leaders_max, after.leaders_min, after.leaders_max);
    std::printf("%-28s %10u %10u\n", "rack violations", before.rack_violations, after.rack_violations);
    std::printf("%-28s %10u %10u\n", "brokers over capacity", before.brokers_over_capacity, after.brokers_over_capacity);
    std::printf("%-28s %10llu %10llu\n", "topic replicas over band", static_cast<unsigned long long>(before.topic_replicas_over),
                static_cast<unsigned long long>(after.topic_replicas_over));
    std::string goals_line;
    for (const std::string& g : violated) goals_line += (goals_line.empty() ? "" : ", ") + g;
    std::printf("\ngoals not met after the plan: %s\n", goals_line.empty() ? "none" : goals_line.c_str());
    for (const std::string& u : totals.unfixable) std::printf("cannot fix: %s\n", u.c_str());
    if (!options.assignment_out.empty()) {
        std::printf("assignment written to %s (kafka-reassign-partitions --execute --reassignment-json-file)\n",
                    options.assignment_out.c_str());
    }
    return exit_ok;
}

}  // namespace ballast::tools
