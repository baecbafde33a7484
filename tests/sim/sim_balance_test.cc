/// Balance as operators judge it, through the whole engine against the
/// simulated cluster: scenarios built for one behaviour each, checked step
/// by step (tools/driver/sim_checks.h) and by what they are about.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "adapters/sim/sim_scenario.h"
#include "tests/support/temp_dir.h"
#include "tools/driver/sim_checks.h"
#include "tools/driver/sim_runner.h"

namespace ballast::driver {
namespace {

constexpr double mib = 1 << 20;

struct Outcome {
    SimVerdict verdict;
    std::map<int32_t, sim::BrokerLoad> loads;  // at the end
};

Outcome run(const std::string& json) {
    events::Result<sim::Scenario> scenario = sim::parse_scenario_json(json, "inline");
    EXPECT_TRUE(scenario.ok()) << scenario.error().to_string();
    events::Result<events::Config> config = sim_config(*scenario, {}, "");
    EXPECT_TRUE(config.ok()) << config.error().to_string();
    testing::TempDir dir;
    SimRunOptions options;
    options.scenario = *scenario;
    options.config = *config;
    options.journal_path = dir / "journal";
    SimChecker checker(*scenario, *config, scenario->duration_ms);
    Outcome outcome;
    options.on_step = [&](const SimStep& step) {
        checker.step(step);
        for (const sim::BrokerLoad& l : step.cluster.broker_loads()) outcome.loads[l.id] = l;
    };
    events::Result<SimRunSummary> summary = run_simulation(options);
    EXPECT_TRUE(summary.ok()) << summary.error().to_string();
    if (summary) outcome.verdict = checker.finish(options.journal_path, *summary);
    return outcome;
}

/// One small broker (50 MiB/s each way), two medium (100) and one large
/// (200), 120 MiB/s over 48 partitions placed evenly: 30 MiB/s each, the
/// small one at 60% of its size and the large one at 15%.
std::string sized_brokers(const std::string& capacities) {
    return R"({
      "name": "sized-brokers", "flavor": "automq", "seed": 1, "duration": "6m",
      "brokers": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}],
      "topics": [{"name": "t", "partitions": 48, "replication_factor": 1,
                  "traffic": {"profile": "constant", "bytes_in_per_s": 125829120, "record_bytes": 1024,
                              "fanout": 1}}],
      "settings": {)" + capacities + R"(}
    })";
}

TEST(SimBalance, BrokersOfDifferentSizesEndEquallyUtilized) {
    const Outcome outcome = run(sized_brokers(R"(
        "ballast.broker.capacity.network.in.bytes.per.s": "104857600",
        "ballast.broker.capacity.network.out.bytes.per.s": "104857600",
        "ballast.broker.capacity.overrides": "0:in=52428800:out=52428800,3:in=209715200:out=209715200")"));
    EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.report();
    EXPECT_TRUE(outcome.verdict.balance_checked) << outcome.verdict.report();
    ASSERT_EQ(outcome.loads.size(), 4u);
    // 120 MiB/s over 450 MiB/s of capacity: ~27% each, so the small broker
    // ends near 13 MiB/s and the large one near 53.
    const std::map<int32_t, double> capacity_mib = {{0, 50}, {1, 100}, {2, 100}, {3, 200}};
    for (const auto& [id, load] : outcome.loads) {
        const double utilization = load.bytes_in_per_s / (capacity_mib.at(id) * mib);
        EXPECT_NEAR(utilization, 120.0 / 450, 0.06) << "broker " << id << "\n" << outcome.verdict.report();
    }
    EXPECT_GT(outcome.loads.at(3).bytes_in_per_s, 2.5 * outcome.loads.at(0).bytes_in_per_s);
}

TEST(SimBalance, WithoutCapacitiesTheEvenPlacementIsLeftAlone) {
    const Outcome outcome = run(sized_brokers(""));
    EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.report();
    EXPECT_EQ(outcome.verdict.actions, 0u) << outcome.verdict.report();
}

/// Four equal brokers, 48 partitions of 2.5 MiB/s placed evenly: balanced.
/// From 3 min, the partitions on broker 0 change by `scale` for `for_s`
/// seconds, then return to what they were (0: they stay changed).
std::string passing_change(double scale, int for_s, const std::string& settings) {
    const std::string back = for_s == 0 ? "" : R"(,
        {"at": ")" + std::to_string(180 + for_s) + R"(s", "traffic": {"topic": "t", "led_by": 0, "scale": )" +
                                                  std::to_string(1 / scale) + "}}";
    return R"({
      "name": "passing-change", "flavor": "automq", "seed": 1, "duration": "10m",
      "brokers": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}],
      "topics": [{"name": "t", "partitions": 48, "replication_factor": 1,
                  "traffic": {"profile": "constant", "bytes_in_per_s": 125829120, "record_bytes": 1024,
                              "fanout": 1}}],
      "events": [
        {"at": "180s", "traffic": {"topic": "t", "led_by": 0, "scale": )" + std::to_string(scale) + "}}" + back + R"(
      ],
      "settings": {)" + settings + R"(}
    })";
}

/// A minute at `scale` times broker 0's share moves nothing under the
/// default window, and moves partitions judged on the newest sample alone.
void expect_a_passing_minute_moves_nothing(double scale) {
    const Outcome windowed = run(passing_change(scale, 60, ""));
    EXPECT_TRUE(windowed.verdict.ok()) << windowed.verdict.report();
    EXPECT_EQ(windowed.verdict.actions, 0u) << windowed.verdict.report();
    const Outcome newest = run(passing_change(scale, 60, R"("ballast.metrics.window.ms": "0")"));
    EXPECT_GT(newest.verdict.actions, 0u) << newest.verdict.report();
}

TEST(SimBalance, ABurstShorterThanHalfTheWindowMovesNothing) {
    expect_a_passing_minute_moves_nothing(3);  // well out of the band
}

TEST(SimBalance, AQuietMinuteDoesNotMovePartitionsBack) {
    expect_a_passing_minute_moves_nothing(0.1);
}

TEST(SimBalance, ALastingChangeIsBalancedOnceItIsMostOfTheWindow) {
    // Broker 0's partitions stay at three times their rate: the window's
    // median follows after half the window and the planner moves them.
    const Outcome outcome = run(passing_change(3, 0, ""));
    EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.report();
    EXPECT_GT(outcome.verdict.actions, 0u) << outcome.verdict.report();
    EXPECT_TRUE(outcome.verdict.balance_checked) << outcome.verdict.report();
}

/// Four brokers, an RF2 topic on all of them; from 1 min broker 3 goes down
/// for 25 s (fenced after the 9 s session timeout, past the 10 s grace) and
/// comes back for 75 s, five times: a flapping broker.
std::string flapping_broker(const std::string& settings) {
    std::string events;
    for (int i = 0; i < 5; i++) {
        const int stop_s = 60 + 100 * i;
        events += std::string(i == 0 ? "" : ",") + R"({"at": ")" + std::to_string(stop_s) + R"(s", "stop_broker": 3},
        {"at": ")" + std::to_string(stop_s + 25) + R"(s", "start_broker": 3})";
    }
    return R"({
      "name": "flapping-broker", "flavor": "automq", "seed": 1, "duration": "20m",
      "brokers": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}],
      "topics": [{"name": "t", "partitions": 24, "replication_factor": 2,
                  "traffic": {"profile": "constant", "bytes_in_per_s": 62914560, "record_bytes": 1024,
                              "fanout": 1}}],
      "events": [)" + events + R"(],
      "settings": {)" + settings + R"(}
    })";
}

TEST(SimBalance, AFlappingBrokerIsNotEvacuatedAndRefilledEachTime) {
    // Damped: evacuated once, refilled, then its raised grace outlasts each
    // spell and, unstable from the third, it is refilled only once stable.
    const Outcome damped = run(flapping_broker(""));
    EXPECT_TRUE(damped.verdict.ok()) << damped.verdict.report();
    EXPECT_LE(damped.verdict.most_moves, 2u) << damped.verdict.report();
    EXPECT_TRUE(damped.verdict.balance_checked) << damped.verdict.report();
    // Undamped, partitions leave and come back with the spells: more than
    // twice the data copied.
    const Outcome undamped = run(flapping_broker(R"("ballast.broker.flap.fences": "0")"));
    EXPECT_GE(undamped.verdict.most_moves, 3u) << undamped.verdict.report();
    EXPECT_LT(damped.verdict.move_actions * 2, undamped.verdict.move_actions)
        << damped.verdict.report() << undamped.verdict.report();
}

/// Out inside AutoMQ's band (mean x (1 ± 0.1)) on every broker at the
/// end: stricter than the checker, whose band is widened by what one
/// partition weighs on either side (with RF3 a leadership is 4 MiB/s here,
/// a sixth of a broker's share).
::testing::AssertionResult out_in_band(const Outcome& outcome) {
    double total = 0;
    for (const auto& [id, load] : outcome.loads) total += load.bytes_out_per_s;
    const double mean = total / static_cast<double>(outcome.loads.size());
    for (const auto& [id, load] : outcome.loads) {
        if (std::abs(load.bytes_out_per_s - mean) > 0.1 * mean) {
            return ::testing::AssertionFailure() << "broker " << id << " ends at " << load.bytes_out_per_s / mib
                                                 << " MiB/s out, mean " << mean / mib;
        }
    }
    return ::testing::AssertionSuccess();
}

/// Six brokers, one topic of 36 partitions RF3 placed round robin
/// ({i, i+1, i+2} mod 6: 18 replicas each, bytes in even), 1 MiB/s in and
/// two reads each: a leader sends 4 MiB/s out. `leaders`: each partition's
/// leader, put first in its replica list (Kafka elects the first in sync).
std::string rf3_ring(const std::vector<int32_t>& leaders, const std::string& events) {
    std::string assignment;
    for (int32_t i = 0; i < 36; i++) {
        std::vector<int32_t> replicas = {i % 6, (i + 1) % 6, (i + 2) % 6};
        std::rotate(replicas.begin(), std::find(replicas.begin(), replicas.end(), leaders[i]), replicas.end());
        assignment += std::string(i == 0 ? "" : ", ") + "[" + std::to_string(replicas[0]) + ", " +
                      std::to_string(replicas[1]) + ", " + std::to_string(replicas[2]) + "]";
    }
    return R"({
      "name": "rf3-ring", "flavor": "apache", "seed": 1, "duration": "10m",
      "brokers": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}],
      "topics": [{"name": "t", "partitions": 36, "replication_factor": 3, "assignment": [)" + assignment + R"(],
                  "traffic": {"profile": "constant", "bytes_in_per_s": 37748736, "record_bytes": 1024,
                              "fanout": 2},
                  "initial_size_bytes": 1073741824}],
      "events": [)" + events + R"(]
    })";
}

TEST(SimBalance, SkewedLeadershipEndsInTheOutBandThroughLeaderChangesAlone) {
    // Broker 0 leads all 18 partitions it holds (72 MiB/s out, mean 24);
    // brokers 3 and 5 lead none, and broker 3 follows nothing broker 0 leads.
    std::vector<int32_t> leaders;
    for (int32_t i = 0; i < 36; i++) {
        const int32_t first = i % 6;
        leaders.push_back(first == 0 || first == 4 || first == 5 ? 0 : first == 3 ? 4 : first);
    }
    const Outcome outcome = run(rf3_ring(leaders, ""));
    EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.report();
    EXPECT_TRUE(outcome.verdict.balance_checked) << outcome.verdict.report();
    EXPECT_TRUE(out_in_band(outcome)) << outcome.verdict.report();
    EXPECT_GT(outcome.verdict.leader_actions, 0u) << outcome.verdict.report();
    EXPECT_EQ(outcome.verdict.move_actions + outcome.verdict.swap_actions, 0u) << outcome.verdict.report();
}

TEST(SimBalance, ABrokerBackFromARestartGetsLeadershipBackWithoutMoves) {
    // Leaders spread evenly (each the first of its ring slot); broker 0
    // stops for 15 s, is fenced, and its six leaderships fail over to
    // broker 1. It is back before the failure grace: nothing is evacuated.
    std::vector<int32_t> leaders;
    for (int32_t i = 0; i < 36; i++) leaders.push_back(i % 6);
    const Outcome outcome = run(rf3_ring(leaders, R"({"at": "60s", "stop_broker": 0}, {"at": "75s", "start_broker": 0})"));
    EXPECT_TRUE(outcome.verdict.ok()) << outcome.verdict.report();
    EXPECT_TRUE(outcome.verdict.balance_checked) << outcome.verdict.report();
    EXPECT_TRUE(out_in_band(outcome)) << outcome.verdict.report();
    EXPECT_GT(outcome.verdict.leader_actions, 0u) << outcome.verdict.report();
    EXPECT_EQ(outcome.verdict.move_actions + outcome.verdict.swap_actions, 0u) << outcome.verdict.report();
}

}  // namespace
}  // namespace ballast::driver
