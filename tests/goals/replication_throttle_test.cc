/// Moves that must copy (apache) and cannot catch up with the producers at
/// the replication throttle, or not before the action timeout, are never
/// planned (goals/copy_estimate.h): not as balancing candidates, not as
/// evacuations, where they are reported unfixable with the produce rate and
/// the throttle. automq moves copy nothing and stay free; leader changes too.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::contains;
using test_support::mib;
using test_support::ModelBuilder;

constexpr int64_t now_ms = 100'000;
constexpr double throttle_bytes_per_s = 50 * mib;

PlannerConfig throttled(Flavor flavor, std::vector<GoalKind> goals = default_goals()) {
    PlannerConfig config;
    config.goals = std::move(goals);
    config.flavor = flavor;
    config.replication_throttle_bytes_per_s = throttle_bytes_per_s;
    config.copy_time_max_ms = 240'000;
    return config;
}

bool copies(const Action& action, uint32_t p) {
    if (action.kind == ActionKind::leader) return false;
    return action.partition == p || (action.kind == ActionKind::swap && action.swap_partition == p);
}

bool contains_text(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Broker 1 holds two partitions that produce 60 MiB/s each, broker 2 one,
/// broker 3 none: network in is balanced by moving one of broker 1's to 3.
ClusterModel hot_partitions_on_broker_1() {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("hot");
    builder.partition({1}, 60 * mib, 60 * mib, 64 * mib);
    builder.partition({1}, 60 * mib, 60 * mib, 64 * mib);
    builder.partition({2}, 60 * mib, 60 * mib, 64 * mib);
    return builder.build();
}

TEST(ReplicationThrottle, APartitionHotterThanTheThrottleIsNotMovedOnApache) {
    const ClusterModel model = hot_partitions_on_broker_1();
    const PlannerConfig config = throttled(Flavor::apache);
    const Plan result = plan(model, config);
    for (const Action& action : result.actions) {
        for (uint32_t p = 0; p < model.partitions.size(); p++) EXPECT_FALSE(copies(action, p)) << p;
    }
    EXPECT_TRUE(contains(result.violated_after, GoalKind::network_in_usage_distribution));
    // Balancing goals skip it silently: only hard goals report what they cannot fix.
    EXPECT_TRUE(result.unfixable.empty());
}

TEST(ReplicationThrottle, TheSamePartitionMovesOnAutomqAndWithoutAThrottle) {
    const ClusterModel model = hot_partitions_on_broker_1();
    PlannerConfig unknown = throttled(Flavor::apache);
    unknown.replication_throttle_bytes_per_s = 0;  // not told: plans as before
    for (const PlannerConfig& config : {throttled(Flavor::automq), unknown}) {
        const Plan result = plan(model, config);
        ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
        bool moved_hot = false;
        for (const Action& action : result.actions) {
            moved_hot = moved_hot || ((copies(action, 0) || copies(action, 1)) && action.source == 1);
        }
        EXPECT_TRUE(moved_hot);
    }
}

TEST(ReplicationThrottle, WithinTheHeadroomOfTheThrottleCountsAsTooHot) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    builder.partition({1}, 47 * mib, 47 * mib, 1 * mib);  // 47 x 1.1 > 50
    builder.partition({1}, 40 * mib, 40 * mib, 1 * mib);  // 40 x 1.1 < 50, 1 MiB: copies in ~0.2 s
    builder.partition({2}, 47 * mib, 47 * mib, 1 * mib);
    const ClusterModel model = builder.build();
    const Plan result = plan(model, throttled(Flavor::apache, {GoalKind::network_in_usage_distribution}));
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
    for (const Action& action : result.actions) {
        EXPECT_FALSE(copies(action, 0));
        EXPECT_FALSE(copies(action, 2));
    }
}

TEST(ReplicationThrottle, LeaderChangesOfHotPartitionsCopyNothingAndStayAllowed) {
    ModelBuilder builder(now_ms);
    builder.broker(1);
    builder.broker(2);
    builder.topic("t");
    for (int i = 0; i < 4; i++) builder.partition({1, 2}, 60 * mib, 60 * mib, 64 * mib);
    const ClusterModel model = builder.build();
    const Plan result = plan(model, throttled(Flavor::apache, {GoalKind::leader_count_distribution}));
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
    for (const Action& action : result.actions) EXPECT_EQ(action.kind, ActionKind::leader);
}

/// Broker 1 is gone; its replicas of RF2 partitions have live copies on 2.
ClusterModel dead_broker_with(std::vector<std::pair<double, double>> in_and_size) {
    ModelBuilder builder(now_ms);
    builder.broker(1).liveness = Liveness::gone;
    builder.broker(2);
    builder.broker(3);
    builder.topic("t");
    for (const auto& [in, size] : in_and_size) builder.partition({2, 1}, in, in, size);
    return builder.build();
}

TEST(ReplicationThrottle, AnEvacuationThatCannotCatchUpIsReportedUnfixable) {
    const ClusterModel model = dead_broker_with({{60 * mib, 64 * mib}, {1 * mib, 64 * mib}});
    const Plan result = plan(model, throttled(Flavor::apache, {}));  // evacuation alone
    ASSERT_EQ(result.actions.size(), 1u);
    EXPECT_TRUE(result.actions[0].evacuation);
    EXPECT_EQ(result.actions[0].partition, 1u);
    ASSERT_EQ(result.unfixable.size(), 1u);
    const Unfixable& finding = result.unfixable[0];
    EXPECT_EQ(finding.partition, 0u);  // the scheduler names it: "t-0 (RackAwareGoal): produces ..."
    EXPECT_EQ(finding.broker_id, 1);
    EXPECT_TRUE(contains_text(finding.reason, "produces 60 MiB/s")) << finding.reason;
    EXPECT_TRUE(contains_text(finding.reason, "50 MiB/s replication throttle")) << finding.reason;
    EXPECT_TRUE(contains_text(finding.reason, "ballast.replication.throttle.bytes.per.s")) << finding.reason;

    // automq: shared storage, nothing to copy, both move.
    const Plan automq = plan(model, throttled(Flavor::automq, {}));
    EXPECT_EQ(automq.actions.size(), 2u);
    EXPECT_TRUE(automq.unfixable.empty());
}

TEST(ReplicationThrottle, AnEvacuationThatWouldOutlastTheTimeoutIsReportedUnfixable) {
    // 30 MiB/s produced: the copy gains 50 - 33 = 17 MiB/s. 1 GiB: ~60 s;
    // 10 GiB: ~600 s, over the 240 s timeout.
    const ClusterModel model = dead_broker_with({{30 * mib, 10 * 1024 * mib}, {30 * mib, 1024 * mib}});
    const Plan result = plan(model, throttled(Flavor::apache, {}));
    ASSERT_EQ(result.actions.size(), 1u);
    EXPECT_EQ(result.actions[0].partition, 1u);
    ASSERT_EQ(result.unfixable.size(), 1u);
    const Unfixable& finding = result.unfixable[0];
    EXPECT_EQ(finding.partition, 0u);
    EXPECT_TRUE(contains_text(finding.reason, "a copy of 10 GiB")) << finding.reason;
    EXPECT_TRUE(contains_text(finding.reason, "produces 30 MiB/s")) << finding.reason;
    EXPECT_TRUE(contains_text(finding.reason, "takes about 600 s")) << finding.reason;
    EXPECT_TRUE(contains_text(finding.reason, "ballast.action.timeout.ms (240 s)")) << finding.reason;

    PlannerConfig no_limit = throttled(Flavor::apache, {});
    no_limit.copy_time_max_ms = 0;  // time not checked: both move
    EXPECT_EQ(plan(model, no_limit).actions.size(), 2u);
}

TEST(ReplicationThrottle, ARackRepairThatCannotCopyIsReportedUnfixable) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 0);
    builder.broker(3, 1);
    builder.topic("t");
    builder.partition({1, 2}, 60 * mib, 60 * mib, 64 * mib);  // both in rack a
    const Plan result = plan(builder.build(), throttled(Flavor::apache, {GoalKind::rack_aware}));
    EXPECT_EQ(result.status, Plan::Status::stuck);
    EXPECT_TRUE(result.actions.empty());
    ASSERT_EQ(result.unfixable.size(), 1u);
    EXPECT_EQ(result.unfixable[0].goal, GoalKind::rack_aware);
    EXPECT_TRUE(contains_text(result.unfixable[0].reason, "produces 60 MiB/s")) << result.unfixable[0].reason;
}

TEST(ReplicationThrottle, ANegativeThrottleIsInvalidInput) {
    PlannerConfig config = throttled(Flavor::apache);
    config.replication_throttle_bytes_per_s = -1;
    const Plan result = plan(hot_partitions_on_broker_1(), config);
    EXPECT_EQ(result.status, Plan::Status::invalid_input);
    EXPECT_TRUE(contains_text(result.error, "replication_throttle_bytes_per_s")) << result.error;
}

}  // namespace
}  // namespace ballast::goals
