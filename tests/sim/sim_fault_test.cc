/// Deterministic simulation testing: the whole engine (journal, actors,
/// planner, executor) against the simulated cluster, for random scenarios
/// drawn from seeds: random clusters, traffic and capacities, crashes, restarts and
/// flapping brokers, lost and late metrics, failing and stuck admin calls,
/// and the engine itself crashed at any actor message (mid-append, mid-round,
/// mid-snapshot, between an intent and its admin call, between a submission
/// and its outcome; some with a power cut under the journal), without
/// draining, and recovered from its journal mid-run.
/// Every step is checked (tools/driver/sim_checks.h); at the end the engine must
/// have settled, be balanced where the cluster allows it, have recovered
/// without deciding differently, and its journal must replay bit for bit.
///
/// Seeds: BALLAST_SIM_SEEDS=FROM-TO (default 1-200). A failure prints the
/// seed and the one command that reproduces it.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "actors/engine_config.h"
#include "adapters/sim/random_scenario.h"
#include "tests/support/seed_range.h"
#include "tests/support/temp_dir.h"
#include "tools/driver/sim_checks.h"
#include "tools/driver/sim_runner.h"

namespace ballast::driver {
namespace {

std::pair<uint64_t, uint64_t> seed_range() { return testing::seed_range("BALLAST_SIM_SEEDS", {1, 200}); }

/// An apache scenario tells the engine its copy rate, as an operator sets
/// the key to the cluster's throttle; automq copies nothing; the user wins.
TEST(SimConfig, ApacheScenariosTellTheEngineTheirCopyRate) {
    const std::string key = "ballast.replication.throttle.bytes.per.s";
    sim::Scenario scenario;
    scenario.name = "s";
    scenario.flavor = sim::Flavor::apache;
    scenario.apache_throttle_bytes_per_s = 50.0 * (1 << 20);
    events::Result<events::Config> apache = sim_config(scenario, {}, "");
    ASSERT_TRUE(apache.ok()) << apache.error().message;
    EXPECT_EQ(apache->get_double(key), 50.0 * (1 << 20));

    events::Result<events::Config> told_otherwise = sim_config(scenario, {key + "=0"}, "");
    ASSERT_TRUE(told_otherwise.ok()) << told_otherwise.error().message;
    EXPECT_EQ(told_otherwise->get_double(key), 0);

    scenario.flavor = sim::Flavor::automq;
    events::Result<events::Config> automq = sim_config(scenario, {}, "");
    ASSERT_TRUE(automq.ok()) << automq.error().message;
    EXPECT_EQ(automq->get_double(key), 0);
}

/// A scenario's broker capacities reach the engine as the capacity
/// overrides do; the key and the scenario may both speak of a broker, but
/// not with two values for one field.
TEST(SimConfig, ScenarioBrokerCapacitiesBecomeTheEnginesCapacities) {
    events::Result<sim::Scenario> scenario = sim::parse_scenario_json(R"({
      "brokers": [{"id": 1, "capacity": {"network_in_bytes_per_s": 1000, "network_out_bytes_per_s": 2000,
                                         "disk_bytes": 3000, "replicas_max": 40}},
                  {"id": 2, "capacity": {"disk_bytes": 5000}}, {"id": 3}],
      "events": [{"at": "1m", "add_broker": {"id": 4, "capacity": {"replicas_max": 7}}}],
      "settings": {"ballast.broker.capacity.disk.bytes": 9000, "ballast.broker.capacity.overrides": "2:in=600"}
    })", "caps.json");
    ASSERT_TRUE(scenario.ok()) << scenario.error().message;
    events::Result<events::Config> config = sim_config(*scenario, {}, "");
    ASSERT_TRUE(config.ok()) << config.error().message;
    const actors::EngineSettings settings = actors::settings_from(*config);
    const goals::Capacity one = actors::capacity_of(settings, 1);
    EXPECT_EQ(one.network_in_bytes_per_s, 1000);
    EXPECT_EQ(one.network_out_bytes_per_s, 2000);
    EXPECT_EQ(one.disk_bytes, 3000);
    EXPECT_EQ(one.replicas_max, 40);
    const goals::Capacity two = actors::capacity_of(settings, 2);
    EXPECT_EQ(two.disk_bytes, 5000) << "the scenario's field";
    EXPECT_EQ(two.network_in_bytes_per_s, 600) << "the setting's field, for the same broker";
    EXPECT_EQ(actors::capacity_of(settings, 3).disk_bytes, 9000) << "no capacity of its own: the default";
    EXPECT_EQ(actors::capacity_of(settings, 4).replicas_max, 7) << "a broker added later";

    // The same field of one broker, two values: an error naming both.
    events::Result<events::Config> clash = sim_config(*scenario, {"ballast.broker.capacity.overrides=2:disk=4000"}, "");
    ASSERT_FALSE(clash.ok());
    EXPECT_EQ(clash.error().message,
              "scenario scenario: brokers[1].capacity.disk_bytes = 5000 contradicts ballast.broker.capacity.overrides "
              "(from --set), which gives broker 2 disk=4000: give the capacity in one place");
    // The same value twice is no contradiction.
    EXPECT_TRUE(sim_config(*scenario, {"ballast.broker.capacity.overrides=2:disk=5000"}, "").ok());
}

TEST(SimFaults, EverySeedKeepsEveryPromise) {
    const auto [from, to] = seed_range();
    ASSERT_LE(from, to);
    uint64_t rounds = 0;
    uint64_t actions = 0;
    uint64_t move_actions = 0;
    uint64_t swap_actions = 0;
    uint64_t leader_actions = 0;
    uint64_t restarts = 0;
    uint64_t capacity_actions = 0;
    uint64_t capacity_plans = 0;
    uint64_t unstable_plans = 0;
    uint32_t most_moves = 0;
    uint64_t most_moves_seed = 0;
    SimRunSummary::Crashes crashes;
    for (uint64_t seed = from; seed <= to; seed++) {
        events::Result<sim::Scenario> scenario = sim::random_scenario(seed);
        ASSERT_TRUE(scenario.ok()) << scenario.error().message;
        events::Result<events::Config> config = sim_config(*scenario, {}, "");
        ASSERT_TRUE(config.ok()) << config.error().message;
        testing::TempDir dir;
        SimRunOptions run;
        run.scenario = *scenario;
        run.config = *config;
        run.journal_path = dir / "journal";
        SimChecker checker(*scenario, *config, sim::random_disturbed_until_ms(*scenario));
        run.on_step = [&](const SimStep& step) { checker.step(step); };
        events::Result<SimRunSummary> summary = run_simulation(run);
        ASSERT_TRUE(summary.ok()) << "seed " << seed << ": " << summary.error().to_string()
                                  << "\n  reproduce: build/tools/ballast sim --random-seed " << seed << " --check";
        const SimVerdict verdict = checker.finish(run.journal_path, *summary);
        EXPECT_TRUE(verdict.ok()) << "seed " << seed << "\n"
                                  << verdict.report()
                                  << "  reproduce: build/tools/ballast sim --random-seed " << seed << " --check";
        rounds += verdict.rounds;
        actions += verdict.actions;
        move_actions += verdict.move_actions;
        swap_actions += verdict.swap_actions;
        leader_actions += verdict.leader_actions;
        restarts += summary->engine_restarts;
        const SimRunSummary::Crashes& c = summary->crashes;
        crashes.mid_append += c.mid_append;
        crashes.mid_round += c.mid_round;
        crashes.mid_snapshot += c.mid_snapshot;
        crashes.between_intent_and_submit += c.between_intent_and_submit;
        crashes.between_submit_and_outcome += c.between_submit_and_outcome;
        crashes.power_cuts += c.power_cuts;
        crashes.power_cut_bytes_dropped += c.power_cut_bytes_dropped;
        capacity_actions += verdict.capacity_actions;
        capacity_plans += verdict.capacity_plans_checked;
        unstable_plans += verdict.unstable_plans;
        if (verdict.most_moves > most_moves) {
            most_moves = verdict.most_moves;
            most_moves_seed = seed;
        }
    }
    // The seeds exercise what they are meant to.
    EXPECT_GT(actions, 0u);
    EXPECT_GT(restarts, 0u);
    if (to - from + 1 >= 50) {
        // About a third of the seeds have capacities: the goals must act on them.
        EXPECT_GT(capacity_plans, 0u);
        EXPECT_GT(capacity_actions, 0u);
        // A quarter of the seeds have a flapping broker: it must become unstable
        // (the checker holds every plan to giving it no load meanwhile).
        EXPECT_GT(unstable_plans, 0u);
    }
    const auto n = [](uint64_t v) { return static_cast<unsigned long>(v); };
    std::printf("seeds %lu-%lu: %lu crashes: %lu mid-append, %lu mid-round, %lu mid-snapshot, %lu between intent and "
                "submit, %lu between submit and outcome; %lu power cuts (%lu unsynced bytes dropped)\n",
                n(from), n(to), n(restarts), n(crashes.mid_append), n(crashes.mid_round), n(crashes.mid_snapshot),
                n(crashes.between_intent_and_submit), n(crashes.between_submit_and_outcome), n(crashes.power_cuts),
                n(crashes.power_cut_bytes_dropped));
    if (to - from + 1 >= 50) {
        // The crashes land where they are meant to.
        EXPECT_GT(crashes.mid_append, 0u);
        EXPECT_GT(crashes.mid_round, 0u);
        EXPECT_GT(crashes.mid_snapshot, 0u);
        EXPECT_GT(crashes.between_intent_and_submit, 0u);
        EXPECT_GT(crashes.between_submit_and_outcome, 0u);
        EXPECT_GT(crashes.power_cuts, 0u);
    }
    std::printf("seeds %lu-%lu: %lu rounds, %lu actions (%lu moves, %lu swaps, %lu leader changes), %lu engine "
                "restarts; %lu plans judged against capacity limits, %lu actions by the capacity goals\n",
                static_cast<unsigned long>(from), static_cast<unsigned long>(to), static_cast<unsigned long>(rounds),
                static_cast<unsigned long>(actions), n(move_actions), n(swap_actions), n(leader_actions),
                static_cast<unsigned long>(restarts),
                static_cast<unsigned long>(capacity_plans), static_cast<unsigned long>(capacity_actions));
    std::printf("seeds %lu-%lu: %lu plans with an unstable (flapping) broker; at most %u moves of one partition "
                "(seed %lu)\n",
                n(from), n(to), n(unstable_plans), most_moves, n(most_moves_seed));
}

}  // namespace
}  // namespace ballast::driver
