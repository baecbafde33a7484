/// `ballast demo`: the two seed scenarios of AutoMQ's self-balancing
/// documentation, run in simulated time against the simulated cluster with
/// the engine at its default (AutoMQ-compatible) settings:
///
///   1. node change: broker 3 of 3 stops and comes back; the partition table
///      before, after the stop and after the restart, with the phase times;
///   2. traffic skew: 40/40/40 MiB/s becomes 80/120/40; a per-broker
///      throughput timeline in the terminal and an SVG chart with the moves.
///
/// Both journals are kept, so `ballast replay --explain` can say why each
/// partition moved.

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/demo_scenarios.h"
#include "tools/driver/sim_runner.h"
#include "tools/sim_report.h"
#include "tools/svg_chart.h"

namespace ballast::tools {

namespace {

struct DemoOptions {
    std::string out = ".";
};

constexpr double mib = 1 << 20;

events::Result<sim::Scenario> embedded_scenario(const std::string& file) {
    auto it = embedded_files().find(file);
    if (it == embedded_files().end()) {
        return events::make_error(events::ErrorCode::not_found, "no embedded scenario " + file);
    }
    return sim::parse_scenario_json(it->second, file);
}

std::string seconds(int64_t ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000);
    return text;
}

/// A fresh journal directory for one demo run, under OUT/ballast-demo/.
std::string journal_dir(const std::string& out, const std::string& name) {
    const std::filesystem::path dir = std::filesystem::path(out) / "ballast-demo" / (name + ".journal");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir.parent_path(), ec);
    return dir.string();
}

struct Outcome {
    std::string name;
    uint64_t moves = 0;
    std::string converged;  // "21.5 s after the stop", ...
    double spread = 0;      // max/mean of bytes in, at the end
    std::string journal;
};

events::Result<Outcome> node_change(const Context& ctx, const DemoOptions& options) {
    events::Result<sim::Scenario> scenario = embedded_scenario("node-change.json");
    if (!scenario) return scenario.error();
    events::Result<events::Config> config = driver::sim_config(*scenario, ctx.global.overrides, ctx.global.config_file);
    if (!config) return config.error();
    const std::string topic = "self-balancing-topic";
    const int64_t stop_ms = scenario->events[0].at_ms;
    const int64_t start_ms = scenario->events[1].at_ms;
    std::printf("== 1. Node change (AutoMQ's seed scenario, shared storage)\n");
    std::printf("   3 brokers; %s has 16 partitions (RF 1); a producer writes 5 MiB/s\n", topic.c_str());
    std::printf("   (1024-byte records at 5,120 records/s). Broker 3 stops at 60 s and starts again at 3 min.\n\n");

    driver::SimRunOptions run;
    run.scenario = *scenario;
    run.config = *config;
    run.journal_path = journal_dir(options.out, "node-change");
    TimelinePrinter timeline(stdout, 16);
    int64_t evacuated_ms = -1;
    int64_t last_move_ms = -1;
    std::string after_stop;
    std::string final_table;
    std::vector<sim::BrokerLoad> final_loads;
    run.on_step = [&](const driver::SimStep& step) {
        final_table = describe_topic(step.cluster, topic);
        final_loads = step.cluster.broker_loads();
        if (step.now_ms == 0) {
            std::printf("before (t+0s):\n%s\n", final_table.c_str());
            return;
        }
        timeline.step(step);
        for (const events::Event& e : step.fed) {
            if (std::holds_alternative<events::ActionCompleted>(e.body)) last_move_ms = e.time_ms;
        }
        if (evacuated_ms < 0 && step.now_ms > stop_ms && step.now_ms < start_ms) {
            bool done = true;
            for (const sim::SimPartition& p : step.cluster.partitions()) {
                done = done && p.leader >= 0 && p.replicas != std::vector<int32_t>{3};
            }
            if (done) {
                evacuated_ms = last_move_ms;
                after_stop = final_table;
            }
        }
    };
    events::Result<driver::SimRunSummary> summary = driver::run_simulation(run);
    if (!summary) return summary.error();
    if (evacuated_ms < 0) {
        return events::make_error(events::ErrorCode::conflict,
                                  "node change: broker 3's partitions never left it (see the journal " +
                                      run.journal_path + ")");
    }
    std::printf("\nafter broker 3 stopped: every partition on brokers 1 and 2, %s after the stop\n"
                "(fenced after the 9 s session timeout; Ballast waits the 10 s failure grace, then moves all at once):\n%s\n",
                seconds(evacuated_ms - stop_ms).c_str(), after_stop.c_str());
    std::printf("after broker 3 restarted: moves back done %s after the restart (Ballast waits for its first\n"
                "metrics report and the next detect interval, 60 s, as AutoMQ does):\n%s\n",
                seconds(last_move_ms - start_ms).c_str(), final_table.c_str());
    Outcome outcome;
    outcome.name = "node change";
    outcome.moves = summary->cluster.partitions_moved;
    outcome.converged = seconds(evacuated_ms - stop_ms) + " after the stop, " + seconds(last_move_ms - start_ms) +
                        " after the restart";
    outcome.spread = load_spread(final_loads, false);
    outcome.journal = run.journal_path;
    return outcome;
}

/// One line of bars: "t+70s   b0  80.0 ████████  b1 120.0 ████████████  ...".
std::string throughput_line(int64_t now_ms, const std::vector<sim::BrokerLoad>& loads, double scale_max,
                            const std::string& note) {
    std::string line;
    char head[32];
    std::snprintf(head, sizeof head, "t+%4" PRId64 "s ", now_ms / 1000);
    line += head;
    for (const sim::BrokerLoad& l : loads) {
        const double v = l.bytes_in_per_s / mib;
        const int bars = static_cast<int>(std::lround(v / scale_max * 24));
        char cell[48];
        std::snprintf(cell, sizeof cell, "  b%d %5.1f ", l.id, v);
        line += cell;
        std::string bar;
        for (int i = 0; i < 24; i++) bar += i < bars ? "\u2588" : " ";
        line += bar;
    }
    return line + (note.empty() ? "" : "  " + note);
}

events::Result<Outcome> traffic_skew(const Context& ctx, const DemoOptions& options) {
    events::Result<sim::Scenario> scenario = embedded_scenario("traffic-skew.json");
    if (!scenario) return scenario.error();
    events::Result<events::Config> config = driver::sim_config(*scenario, ctx.global.overrides, ctx.global.config_file);
    if (!config) return config.error();
    const int64_t skew_ms = scenario->events[0].at_ms;
    std::printf("== 2. Traffic skew (AutoMQ's seed scenario)\n");
    std::printf("   3 brokers at ~40 MiB/s in each (48 partitions, RF 1). At 60 s the partitions on broker 0\n");
    std::printf("   double and those on broker 1 triple: 80 / 120 / 40 MiB/s.");
    if (const int64_t window_ms = config->get_int64("ballast.metrics.window.ms"); window_ms > 0) {
        // Why the moves come over minutes, not at the first round after the skew.
        std::printf(" Each partition's load is the\n   %s of its samples over %lld s (ballast.metrics.window.ms): the skew is\n"
                    "   acted on as it shows there, not on one sample.",
                    config->get_string("ballast.metrics.window.aggregate").c_str(),
                    static_cast<long long>(window_ms / 1000));
    }
    std::printf(" Bytes in per broker (MiB/s):\n\n");

    driver::SimRunOptions run;
    run.scenario = *scenario;
    run.config = *config;
    run.journal_path = journal_dir(options.out, "traffic-skew");
    std::map<int32_t, ChartSeries> series;
    const char* colors[] = {"#1565c0", "#c62828", "#ef6c00", "#6a1b9a", "#00838f"};
    std::vector<ChartMarker> markers;
    std::vector<std::pair<int64_t, std::vector<sim::BrokerLoad>>> samples;
    uint64_t moves_since_line = 0;
    uint64_t moves_total = 0;
    std::vector<sim::BrokerLoad> printed;
    int folded = 0;
    run.on_step = [&](const driver::SimStep& step) {
        uint64_t released = 0;
        for (const events::Event& e : step.decided) {
            if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) released += plan->actions.size();
        }
        if (released > 0) {
            markers.push_back({static_cast<double>(step.now_ms) / 1000,
                               std::to_string(released) + (released == 1 ? " move" : " moves")});
            moves_since_line += released;
            moves_total += released;
        }
        if (step.now_ms % scenario->report_interval_ms != 0) return;
        const std::vector<sim::BrokerLoad> loads = step.cluster.broker_loads();
        samples.push_back({step.now_ms, loads});
        for (const sim::BrokerLoad& l : loads) {
            ChartSeries& s = series[l.id];
            if (s.name.empty()) {
                s.name = "broker " + std::to_string(l.id);
                s.color = colors[(series.size() - 1) % 5];
            }
            s.points.push_back({static_cast<double>(step.now_ms) / 1000, l.bytes_in_per_s / mib});
        }
        std::string note;
        if (step.now_ms == skew_ms) note = "<- skew";
        if (moves_since_line > 0) note += (note.empty() ? "" : ", ") + std::to_string(moves_since_line) + " moves";
        // A line when something changed (and the last one); quiet stretches fold.
        bool changed = printed.size() != loads.size();
        for (size_t i = 0; !changed && i < loads.size(); i++) {
            changed = std::abs(printed[i].bytes_in_per_s - loads[i].bytes_in_per_s) > 0.05 * mib;
        }
        const bool last = step.now_ms + scenario->report_interval_ms > scenario->duration_ms;
        if (changed || !note.empty() || last) {
            if (folded > 0) std::printf("%-8s  ... the same for %d more samples\n", "", folded);
            std::printf("%s\n", throughput_line(step.now_ms, loads, 130, note).c_str());
            printed = loads;
            folded = 0;
        } else {
            folded++;
        }
        moves_since_line = 0;
    };
    events::Result<driver::SimRunSummary> summary = driver::run_simulation(run);
    if (!summary || samples.empty()) {
        return summary ? events::make_error(events::ErrorCode::conflict, "no samples") : summary.error();
    }
    // Converged: from when every broker is within mean +- 10% until the end.
    int64_t converged_ms = -1;
    double spread = 0;
    for (const auto& [t, loads] : samples) {
        double total = 0;
        for (const sim::BrokerLoad& l : loads) total += l.bytes_in_per_s;
        const double mean = total / static_cast<double>(loads.size());
        bool within = t > skew_ms;
        for (const sim::BrokerLoad& l : loads) within = within && std::abs(l.bytes_in_per_s - mean) <= 0.1 * mean;
        if (!within) converged_ms = -1;
        else if (converged_ms < 0) converged_ms = t;
        spread = load_spread(loads, false);
    }
    const auto& last = samples.back().second;
    double total = 0;
    for (const sim::BrokerLoad& l : last) total += l.bytes_in_per_s;
    const double mean = total / static_cast<double>(last.size()) / mib;
    Chart chart;
    chart.title = "Traffic skew: bytes in per broker (Ballast, AutoMQ-compatible defaults)";
    chart.x_label = "simulated time (s)";
    chart.y_label = "bytes in (MiB/s)";
    for (auto& [id, s] : series) chart.series.push_back(s);
    chart.markers = markers;
    chart.bands.push_back({static_cast<double>(skew_ms) / 1000, mean * 0.9, mean * 1.1, "mean \u00b1 10%"});
    const std::string svg_path =
        (std::filesystem::path(options.out) / "ballast-demo" / "traffic-skew.svg").string();
    std::ofstream svg(svg_path);
    svg << render_svg(chart);
    if (!svg) return events::make_error(events::ErrorCode::io_error, "cannot write " + svg_path);
    std::printf("\nchart: %s (open it in a browser; dashed lines mark the rounds that moved partitions)\n\n",
                svg_path.c_str());
    Outcome outcome;
    outcome.name = "traffic skew";
    outcome.moves = moves_total;
    outcome.converged = converged_ms < 0 ? std::string("not within the band at the end")
                                         : "inside the +-10% band " + seconds(converged_ms - skew_ms) +
                                               " after the skew (sampled every 10 s)";
    outcome.spread = spread;
    outcome.journal = run.journal_path;
    return outcome;
}

int run_demo(const Context& ctx, const DemoOptions& options) {
    events::Result<events::Config> base = load_config(ctx.global);
    if (!base) return report_error(base.error());
    events::Config quiet = *base;
    if (ctx.global.log_level.empty()) (void)quiet.set("ballast.log.level", "warn", "demo");
    setup_logging(quiet);
    std::printf("Ballast demo: the engine against the simulated cluster, in simulated time.\n\n");
    events::Result<Outcome> first = node_change(ctx, options);
    if (!first) return report_error(first.error());
    events::Result<Outcome> second = traffic_skew(ctx, options);
    if (!second) return report_error(second.error());
    std::printf("== Summary\n");
    for (const Outcome& o : {*first, *second}) {
        std::printf("  %-13s %2" PRIu64 " partition moves; %s; final spread (max/mean bytes in) %.2f\n",
                    o.name.c_str(), o.moves, o.converged.c_str(), o.spread);
    }
    std::printf("\nwhy did a partition move? ballast replay --journal %s --explain skew-topic-1\n",
                second->journal.c_str());
    return exit_ok;
}

}  // namespace

void register_demo_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<DemoOptions>();
    CLI::App* demo = app.add_subcommand(
        "demo", "Run AutoMQ's two self-balancing seed scenarios (node change, traffic skew) in simulated time");
    demo->add_option("--out", options->out, "Where ballast-demo/ (journals, chart) is written (default: .)");
    demo->callback([&ctx, options] { ctx.exit_code = run_demo(ctx, *options); });
}

}  // namespace ballast::tools
