/// A flapping broker (goals/broker_stability.h): its repeated fencing
/// raises its failure grace, and once fenced often enough within the window
/// it is unstable, taking no load until it has been alive long enough; the
/// plan says so for each such broker and when that changes by the clock.

#include <gtest/gtest.h>

#include <algorithm>

#include "goals/broker_stability.h"
#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::mib;
using test_support::ModelBuilder;

constexpr int64_t now_ms = 10'000'000;

PlannerConfig flap_config() {
    PlannerConfig config;
    config.broker_failure_grace_ms = 10'000;
    config.broker_failure_grace_max_ms = 60'000;
    config.broker_flap_fences = 3;
    config.broker_flap_window_ms = 600'000;
    config.broker_stable_ms = 300'000;
    return config;
}

/// A broker fenced at each of `ago_ms` (before now, newest first), alive
/// or not since the newest.
Broker broker_fenced(std::vector<int64_t> ago_ms, Liveness liveness, int64_t changed_ago_ms) {
    Broker b;
    b.id = 3;
    for (size_t i = 0; i < ago_ms.size(); i++) b.fenced_ms[i] = now_ms - ago_ms[i];
    b.liveness = liveness;
    b.liveness_changed_ms = now_ms - changed_ago_ms;
    return b;
}

TEST(BrokerStability, EachFencingInTheWindowAfterTheFirstDoublesTheGraceUpToTheMax) {
    const PlannerConfig config = flap_config();
    EXPECT_EQ(broker_stability(broker_fenced({5'000}, Liveness::fenced, 5'000), now_ms, config).grace_ms, 10'000);
    EXPECT_EQ(broker_stability(broker_fenced({5'000, 60'000}, Liveness::fenced, 5'000), now_ms, config).grace_ms,
              20'000);
    EXPECT_EQ(broker_stability(broker_fenced({5'000, 60'000, 90'000}, Liveness::fenced, 5'000), now_ms, config)
                  .grace_ms,
              40'000);
    EXPECT_EQ(broker_stability(broker_fenced({1, 2, 3, 4, 5, 6}, Liveness::fenced, 1), now_ms, config).grace_ms,
              60'000)
        << "capped";
    // Fencings older than the window do not count.
    EXPECT_EQ(broker_stability(broker_fenced({5'000, 700'000, 800'000}, Liveness::fenced, 5'000), now_ms, config)
                  .grace_ms,
              10'000);
    PlannerConfig off = config;
    off.broker_flap_fences = 0;
    const BrokerStability undamped = broker_stability(broker_fenced({1, 2, 3, 4}, Liveness::fenced, 1), now_ms, off);
    EXPECT_EQ(undamped.grace_ms, 10'000);
    EXPECT_FALSE(undamped.unstable);
}

TEST(BrokerStability, UnstableUntilAliveForTheStableTime) {
    const PlannerConfig config = flap_config();
    // Fenced three times within ten minutes, back for a minute: unstable.
    const BrokerStability back = broker_stability(broker_fenced({120'000, 300'000, 500'000}, Liveness::alive, 60'000),
                                                  now_ms, config);
    EXPECT_TRUE(back.unstable);
    EXPECT_EQ(back.changes_at_ms, now_ms - 60'000 + 300'000) << "a round when it becomes stable";
    EXPECT_NE(back.note.find("unstable"), std::string::npos) << back.note;
    // Alive for the whole stable time: stable again, whatever the history.
    const BrokerStability stable = broker_stability(
        broker_fenced({400'000, 500'000, 550'000}, Liveness::alive, 300'000), now_ms, config);
    EXPECT_FALSE(stable.unstable);
    EXPECT_TRUE(stable.note.empty()) << stable.note;
    // Twice only: its grace is raised but it is not unstable.
    const BrokerStability twice = broker_stability(broker_fenced({1'000, 100'000}, Liveness::fenced, 1'000), now_ms,
                                                   config);
    EXPECT_FALSE(twice.unstable);
    EXPECT_EQ(twice.changes_at_ms, now_ms - 1'000 + 20'000) << "a round when the raised grace runs out";
    EXPECT_NE(twice.note.find("failure grace 20 s instead of 10 s"), std::string::npos) << twice.note;
}

TEST(BrokerStability, AGraceThatRanOutIsNotedOnceWithOrWithoutDamping) {
    PlannerConfig config = flap_config();
    const BrokerStability within = broker_stability(broker_fenced({5'000}, Liveness::fenced, 5'000), now_ms, config);
    EXPECT_TRUE(within.note.empty()) << within.note;
    const BrokerStability past = broker_stability(broker_fenced({12'000}, Liveness::fenced, 12'000), now_ms, config);
    EXPECT_EQ(past.note, "fenced past its failure grace (10 s): its replicas move to other brokers");
    // The same text a round later: the decision is journaled when it changes.
    EXPECT_EQ(broker_stability(broker_fenced({12'000}, Liveness::fenced, 12'000), now_ms + 5'000, config).note, past.note);
    config.broker_flap_fences = 0;
    EXPECT_EQ(broker_stability(broker_fenced({12'000}, Liveness::fenced, 12'000), now_ms, config).note, past.note);
}

TEST(BrokerStability, OneFenceLongAfterAFlappingSpellIsAnOrdinaryFence) {
    const PlannerConfig config = flap_config();
    // Flapped a day ago, fenced once now: three fencings, but not within one window of the newest.
    const BrokerStability b = broker_stability(
        broker_fenced({5'000, 86'400'000, 86'500'000, 86'600'000}, Liveness::fenced, 5'000), now_ms, config);
    EXPECT_FALSE(b.unstable);
    EXPECT_EQ(b.grace_ms, 10'000);
}

/// Brokers 1-3 hold 24 partitions of 1 MiB/s; broker 4 holds none.
ClusterModel refill_cluster(const Broker& four) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    Broker& b = builder.broker(4);
    b.liveness = four.liveness;
    b.liveness_changed_ms = four.liveness_changed_ms;
    b.fenced_ms = four.fenced_ms;
    builder.topic("t");
    for (int i = 0; i < 24; i++) builder.partition({1 + i % 3}, 1 * mib, 1 * mib);
    return builder.build();
}

bool any_onto(const Plan& plan, int32_t broker_id) {
    return std::any_of(plan.actions.begin(), plan.actions.end(),
                       [&](const Action& a) { return a.destination == broker_id; });
}

TEST(BrokerStability, AnUnstableBrokerIsNotRefilledUntilStableAndThePlanSaysWhy) {
    PlannerConfig config = flap_config();
    config.goals = {GoalKind::network_in_usage_distribution, GoalKind::replica_count_distribution};
    Broker flapper = broker_fenced({120'000, 300'000, 500'000}, Liveness::alive, 60'000);
    flapper.id = 4;
    const Plan unstable = plan(refill_cluster(flapper), config);
    EXPECT_TRUE(unstable.actions.empty()) << "refilled while unstable (the others are even among themselves)";
    ASSERT_EQ(unstable.broker_notes.size(), 1u);
    EXPECT_EQ(unstable.broker_notes[0].broker_id, 4);
    EXPECT_NE(unstable.broker_notes[0].reason.find("takes no load until alive for 300 s"), std::string::npos)
        << unstable.broker_notes[0].reason;
    EXPECT_EQ(unstable.replan_at_ms, now_ms - 60'000 + 300'000);

    // The same broker alive for the stable time: refilled, nothing noted.
    flapper.liveness_changed_ms = now_ms - 300'000;
    const Plan stable = plan(refill_cluster(flapper), config);
    EXPECT_TRUE(any_onto(stable, 4)) << "an empty, stable broker is refilled";
    EXPECT_TRUE(stable.broker_notes.empty());
    EXPECT_EQ(stable.replan_at_ms, INT64_MAX);
}

TEST(BrokerStability, AFlappingBrokerIsEvacuatedOnlyOnceItsRaisedGraceRunsOut) {
    const PlannerConfig config = flap_config();
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    Broker& b = builder.broker(4);
    b.liveness = Liveness::fenced;
    b.fenced_ms[0] = now_ms - 15'000;  // fenced again 15 s ago: grace 20 s, not 10 s
    b.fenced_ms[1] = now_ms - 200'000;
    b.liveness_changed_ms = now_ms - 15'000;
    builder.topic("t");
    for (int i = 0; i < 8; i++) builder.partition({1 + i % 4, 1 + (i + 1) % 4}, 1 * mib, 1 * mib);
    const ClusterModel waiting = builder.build();
    EXPECT_TRUE(plan(waiting, config).actions.empty()) << "evacuated inside the raised grace";

    ClusterModel later = waiting;
    later.now_ms = now_ms + 5'000;  // 20 s after the fence
    const Plan evacuated = plan(later, config);
    EXPECT_EQ(evacuated.actions.size(), 4u) << "its four replicas moved away";
}

}  // namespace
}  // namespace ballast::goals
