/// PlannerConfig::broker_actions_max: a plan spreads over brokers instead of
/// queuing behind the heaviest one, so the gate (which lets at most
/// broker_inflight_max actions run per broker) can release a full batch.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::mib;
using test_support::ModelBuilder;

constexpr int64_t now_ms = 100'000;

/// Actions per broker, counted as the gate counts: the destination always,
/// the source unless it is not alive.
std::map<int32_t, uint32_t> actions_per_broker(const ClusterModel& model, const Plan& result) {
    std::map<int32_t, uint32_t> per_broker;
    for (const Action& action : result.actions) {
        const Broker* source = test_support::find_broker(model, action.source);
        if (source == nullptr || source->liveness == Liveness::alive) per_broker[action.source]++;
        per_broker[action.destination]++;
    }
    return per_broker;
}

uint32_t most_actions(const std::map<int32_t, uint32_t>& per_broker) {
    uint32_t most = 0;
    for (const auto& [id, count] : per_broker) most = std::max(most, count);
    return most;
}

/// The engine benchmark's cluster, scaled down: 100 brokers in 3 racks
/// (id % 3), one RF1 topic placed round robin, brokers 1-25 at 4x the load
/// of the others, every broker fresh. Rates are scaled so that a broker
/// carries what it carries in the benchmark's 100,000 partitions (well above
/// the 1 MiB/s detect threshold).
ClusterModel engine_bench_cluster(int32_t partitions) {
    constexpr int32_t brokers = 100;
    ModelBuilder builder(now_ms);
    builder.racks({"rack-0", "rack-1", "rack-2"});
    for (int32_t id = 1; id <= brokers; id++) builder.broker(id, static_cast<uint32_t>(id % 3));
    builder.topic("bench");
    for (int32_t p = 0; p < partitions; p++) {
        const int32_t b = p % brokers + 1;
        const double scale = 100'000.0 / partitions;
        const double rate = scale * 1024.0 * (b <= brokers / 4 ? 4 : 1) * (1 + p % 7);
        builder.partition({b}, rate, rate, rate * 3600);
    }
    return builder.build();
}

TEST(BrokerActionsMax, APlanSpreadsOverBrokersAndTheGateReleasesAFullBatch) {
    // 30 and 200 partitions per broker: the shape of the benchmark's first round.
    for (const int32_t partitions : {3'000, 20'000}) {
        SCOPED_TRACE(partitions);
        const ClusterModel model = engine_bench_cluster(partitions);
        PlannerConfig config;
        config.actions_max = 200;  // 4 x execution.concurrency
        config.broker_actions_max = 5;
        const GateConfig gate;     // concurrency 50, 5 per broker, nothing in flight
        ASSERT_EQ(config.broker_actions_max, gate.broker_inflight_max);

        const Plan result = plan(model, config);
        ASSERT_EQ(result.status, Plan::Status::actions_planned);
        const std::map<int32_t, uint32_t> per_broker = actions_per_broker(model, result);
        EXPECT_LE(most_actions(per_broker), 5u);
        // Every hot broker sheds its 5; the cool ones pull from hot brokers
        // only, and those are spent: 125 actions over all 100 brokers.
        EXPECT_EQ(per_broker.size(), 100u);
        for (int32_t hot = 1; hot <= 25; hot++) EXPECT_EQ(per_broker.at(hot), 5u) << "broker " << hot;
        EXPECT_EQ(result.actions.size(), 125u);

        const GateResult released = apply_gate(result, model, GateState{}, gate);
        EXPECT_EQ(released.accepted.size(), 50u);
        EXPECT_EQ(released.held_count[static_cast<size_t>(HoldReason::broker_cap)], 0u);
    }
}

TEST(BrokerActionsMax, WithoutItTheHeaviestBrokersFillThePlanAndTheGateQueues) {
    // 200 partitions per broker: a hot broker needs about 100 moves, so the
    // first two fill a 200-action plan and the gate takes 5 of each: a batch
    // far short of 50 (how short depends on the cluster; at the engine
    // benchmark's 1,000 partitions per broker the gate released 5).
    const ClusterModel model = engine_bench_cluster(20'000);
    PlannerConfig config;
    config.actions_max = 200;
    const Plan unlimited = plan(model, config);
    ASSERT_EQ(unlimited.actions.size(), 200u);
    EXPECT_GT(most_actions(actions_per_broker(model, unlimited)), 5u);
    const GateResult queued = apply_gate(unlimited, model, GateState{}, GateConfig{});
    EXPECT_LT(queued.accepted.size(), 50u);
    EXPECT_GT(queued.held_count[static_cast<size_t>(HoldReason::broker_cap)], 0u);
}

TEST(BrokerActionsMax, ADeadSourceIsNotCountedADrainingOneIs) {
    ModelBuilder builder(now_ms);
    builder.broker(1).liveness = Liveness::gone;  // dead: evacuated, not counted
    builder.broker(2).draining = true;            // alive: evacuated and counted
    for (int32_t id = 3; id <= 6; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 12; i++) builder.partition({1}, mib, mib);
    for (int i = 0; i < 12; i++) builder.partition({2}, mib, mib);
    const ClusterModel model = builder.build();
    PlannerConfig config;
    config.flavor = Flavor::automq;
    config.broker_actions_max = 2;
    const Plan result = plan(model, config);

    // 4 hosts x 2 = 8 evacuations, all off the dead broker (first in line,
    // and not counted against its budget); the draining one waits.
    std::map<int32_t, uint32_t> sources;
    for (const Action& action : result.actions) {
        EXPECT_TRUE(action.evacuation);
        sources[action.source]++;
    }
    EXPECT_EQ(sources[1], 8u);
    EXPECT_EQ(sources[2], 0u);
    EXPECT_LE(most_actions(actions_per_broker(model, result)), 2u);
    // Out of room, not unfixable: the rest go in the next plans.
    EXPECT_TRUE(result.unfixable.empty());

}

TEST(BrokerActionsMax, ADrainingSourceSpendsItsOwnBudget) {
    ModelBuilder builder(now_ms);
    builder.broker(1).draining = true;
    for (int32_t id = 2; id <= 6; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 12; i++) builder.partition({1}, mib, mib);
    const ClusterModel model = builder.build();
    PlannerConfig config;
    config.flavor = Flavor::automq;
    config.broker_actions_max = 2;
    const Plan result = plan(model, config);
    // Alive, so counted: 2 replicas leave it per plan, to 2 different hosts.
    ASSERT_EQ(result.actions.size(), 2u);
    for (const Action& action : result.actions) {
        EXPECT_TRUE(action.evacuation);
        EXPECT_EQ(action.source, 1);
    }
    EXPECT_NE(result.actions[0].destination, result.actions[1].destination);
    EXPECT_TRUE(result.unfixable.empty());
}

TEST(BrokerActionsMax, ARepairBlockedOnlyByBudgetsIsNotUnfixable) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 0);
    builder.broker(3, 1);
    builder.broker(4, 1);
    builder.topic("t");
    for (int i = 0; i < 10; i++) builder.partition({1, 2}, mib, mib);  // both in rack a
    const ClusterModel model = builder.build();
    PlannerConfig config;
    config.goals = {GoalKind::rack_aware};
    config.broker_actions_max = 2;
    const Plan result = plan(model, config);
    // Brokers 3 and 4 take 2 each; the other 6 partitions wait, unreported.
    EXPECT_EQ(result.actions.size(), 4u);
    EXPECT_LE(most_actions(actions_per_broker(model, result)), 2u);
    EXPECT_TRUE(result.unfixable.empty());
    EXPECT_EQ(result.violated_after, std::vector<GoalKind>{GoalKind::rack_aware});
}

TEST(BrokerActionsMax, ZeroIsNoLimitAndALimitThatCannotBindChangesNothing) {
    const ClusterModel model = engine_bench_cluster(2'000);
    PlannerConfig config;
    config.actions_max = 50;
    const Plan unlimited = plan(model, config);
    config.broker_actions_max = 50;  // no broker can be in more than 50 of 50 actions
    EXPECT_EQ(plan(model, config), unlimited);
}

}  // namespace
}  // namespace ballast::goals
