/// The seed scenarios: a dead broker (automq and apache flavors), the same
/// broker back and empty, and a traffic skew.

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::broker_loads;
using test_support::mib;
using test_support::ModelBuilder;
using test_support::replicas_of;

constexpr int64_t now_ms = 100'000;

/// Varied per-partition rates (0.5 to 1.5 MiB/s in, 1.5x that out).
double rate_of(int p) { return (0.5 + 0.25 * (p % 5)) * mib; }

/// Brokers 1..3 in racks r1..r3; topic of 16 partitions placed p % 3 + 1
/// (then the next broker for RF2); broker 3 fenced 30 s ago.
ClusterModel dead_broker_model(int replication_factor) {
    ModelBuilder builder(now_ms);
    builder.racks({"r1", "r2", "r3"});
    for (int32_t id = 1; id <= 3; id++) builder.broker(id, static_cast<uint32_t>(id - 1));
    builder.model().brokers[2].liveness = Liveness::fenced;
    builder.model().brokers[2].liveness_changed_ms = now_ms - 30'000;
    builder.topic("self-balancing-topic");
    for (int p = 0; p < 16; p++) {
        std::vector<int32_t> replicas = {p % 3 + 1};
        if (replication_factor == 2) replicas.push_back((p + 1) % 3 + 1);
        builder.partition(replicas, rate_of(p), 1.5 * rate_of(p));
    }
    return builder.build();
}

PlannerConfig config_for(Flavor flavor) {
    PlannerConfig config;
    config.flavor = flavor;
    return config;
}

TEST(DeadBroker, AutomqMovesEveryPartitionOffTheDeadBroker) {
    const ClusterModel model = dead_broker_model(1);
    const PlannerConfig config = config_for(Flavor::automq);
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;

    std::set<uint32_t> evacuated;
    for (const Action& action : result.actions) {
        if (!action.evacuation) continue;
        EXPECT_EQ(action.kind, ActionKind::move);
        EXPECT_EQ(action.source, 3);
        EXPECT_TRUE(action.destination == 1 || action.destination == 2);
        ASSERT_EQ(action.loads.size(), 2u);
        EXPECT_EQ(action.loads[0].broker_id, 3);
        EXPECT_EQ(action.loads[1].broker_id, action.destination);
        EXPECT_EQ(action.loads[0].after.replica_count, action.loads[0].before.replica_count - 1);
        evacuated.insert(action.partition);
    }
    std::set<uint32_t> on_three;
    for (uint32_t p = 0; p < model.partitions.size(); p++) {
        if (replicas_of(model, p) == std::vector<int32_t>{3}) on_three.insert(p);
    }
    EXPECT_EQ(evacuated, on_three);
    EXPECT_EQ(on_three.size(), 5u);

    const ClusterModel after = apply(model, result, config.flavor);
    for (uint32_t p = 0; p < after.partitions.size(); p++) {
        EXPECT_NE(replicas_of(after, p).front(), 3) << "partition " << p;
        EXPECT_NE(after.partitions[p].leader, 3);
    }
    // Evacuations spread: neither survivor takes all five.
    int to_one = 0;
    for (const Action& action : result.actions) to_one += action.evacuation && action.destination == 1;
    EXPECT_GT(to_one, 0);
    EXPECT_LT(to_one, 5);
    EXPECT_EQ(violated_goals(after, config), result.violated_after);
}

TEST(DeadBroker, ApacheReportsOfflineRf1PartitionsAsUnfixable) {
    const ClusterModel model = dead_broker_model(1);
    const Plan result = plan(model, config_for(Flavor::apache));
    for (const Action& action : result.actions) {
        EXPECT_FALSE(action.evacuation);
        EXPECT_NE(action.source, 3);
        EXPECT_NE(action.destination, 3);
    }
    std::set<uint32_t> unfixable;
    for (const Unfixable& entry : result.unfixable) {
        if (entry.partition == UINT32_MAX) continue;
        EXPECT_EQ(entry.broker_id, 3);
        EXPECT_FALSE(entry.reason.empty());
        unfixable.insert(entry.partition);
    }
    EXPECT_EQ(unfixable, (std::set<uint32_t>{2, 5, 8, 11, 14}));
}

TEST(DeadBroker, ApacheMovesDeadReplicasOfRf2Partitions) {
    const ClusterModel model = dead_broker_model(2);
    const PlannerConfig config = config_for(Flavor::apache);
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
    EXPECT_TRUE(result.unfixable.empty());
    int evacuations = 0;
    for (const Action& action : result.actions) {
        if (!action.evacuation) continue;
        evacuations++;
        EXPECT_EQ(action.source, 3);
    }
    // Partitions p % 3 == 1 (replicas {2, 3}) and p % 3 == 2 (replicas {3, 1}).
    EXPECT_EQ(evacuations, 10);
    const ClusterModel after = apply(model, result, config.flavor);
    for (uint32_t p = 0; p < after.partitions.size(); p++) {
        const std::vector<int32_t> replicas = replicas_of(after, p);
        EXPECT_EQ(std::count(replicas.begin(), replicas.end(), 3), 0) << "partition " << p;
        EXPECT_EQ(std::set<int32_t>(replicas.begin(), replicas.end()).size(), 2u);
    }
}

TEST(DeadBroker, WithinTheGraceNothingIsEvacuated) {
    ClusterModel model = dead_broker_model(1);
    model.brokers[2].liveness_changed_ms = now_ms - 5'000;  // grace is 10 s
    const Plan result = plan(model, config_for(Flavor::automq));
    for (const Action& action : result.actions) {
        EXPECT_FALSE(action.evacuation);
        EXPECT_NE(action.source, 3);
    }
}

/// Broker 3 is back, alive and empty; brokers 1 and 2 hold all 16 partitions.
TEST(BrokerBack, PartitionsMoveBackUntilTheNetworkIsWithinTheBand) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("self-balancing-topic");
    for (int p = 0; p < 16; p++) builder.partition({p % 2 + 1}, rate_of(p), 1.5 * rate_of(p));
    const ClusterModel model = builder.build();
    const PlannerConfig config = config_for(Flavor::automq);
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
    EXPECT_TRUE(test_support::contains(result.violated_before, GoalKind::network_in_usage_distribution));

    const ClusterModel after = apply(model, result, config.flavor);
    const std::vector<Load> loads = broker_loads(after);
    double in_total = 0;
    double out_total = 0;
    for (const Load& load : loads) {
        in_total += load.bytes_in_per_s;
        out_total += load.bytes_out_per_s;
    }
    for (size_t b = 0; b < loads.size(); b++) {
        EXPECT_NEAR(loads[b].bytes_in_per_s, in_total / 3, 0.1 * in_total / 3) << "broker " << b + 1;
        EXPECT_NEAR(loads[b].bytes_out_per_s, out_total / 3, 0.1 * out_total / 3) << "broker " << b + 1;
    }
    for (const Action& action : result.actions) {
        if (action.goal == GoalKind::network_in_usage_distribution) {
            EXPECT_EQ(action.destination, 3);
        }
    }
    EXPECT_FALSE(test_support::contains(result.violated_after, GoalKind::network_in_usage_distribution));
    EXPECT_FALSE(test_support::contains(result.violated_after, GoalKind::network_out_usage_distribution));
    EXPECT_EQ(violated_goals(after, config), result.violated_after);
}

/// Twenty brokers at 100 partitions of 1 MiB/s each are inside the band
/// around the new mean (95.2); the new, empty broker 21 is the only one
/// outside it and must pull its share from the others.
TEST(BrokerJoin, AnEmptyBrokerPullsItsShareIntoTheBand) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 21; id++) builder.broker(id);
    builder.topic("events");
    for (int p = 0; p < 2000; p++) builder.partition({p % 20 + 1}, mib, mib);
    const ClusterModel model = builder.build();
    PlannerConfig config;
    config.goals = {GoalKind::network_in_usage_distribution, GoalKind::network_out_usage_distribution};
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
    EXPECT_TRUE(result.violated_after.empty());
    const std::vector<Load> loads = broker_loads(apply(model, result, config.flavor));
    const double mean = 2000 * mib / 21;
    for (size_t b = 0; b < loads.size(); b++) {
        EXPECT_GE(loads[b].bytes_in_per_s, 0.9 * mean) << "broker " << b + 1;
        EXPECT_LE(loads[b].bytes_in_per_s, 1.1 * mean) << "broker " << b + 1;
    }
    for (const Action& action : result.actions) EXPECT_EQ(action.destination, 21);
}

/// Three brokers, 60 partitions each with realistic, uneven rates scaled so
/// the brokers carry `in_mib[b]` MiB/s in; consumers read 2x.
ClusterModel skewed_model(const double (&in_mib)[3]) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 0; id < 3; id++) builder.broker(id);
    builder.topic("orders");
    std::vector<std::vector<double>> rates(3);
    for (int b = 0; b < 3; b++) {
        double sum = 0;
        for (int i = 0; i < 60; i++) {
            // A deterministic spread from 0.2x to 2.2x the average.
            const double weight = 0.2 + 2.0 * ((i * 37 + b * 11) % 60) / 59.0;
            rates[b].push_back(weight);
            sum += weight;
        }
        for (double& rate : rates[b]) rate *= in_mib[b] * mib / sum;
    }
    for (int i = 0; i < 60; i++) {
        for (int b = 0; b < 3; b++) builder.partition({b}, rates[b][i], 2 * rates[b][i]);
    }
    return builder.build();
}

TEST(TrafficSkew, BalancedBrokersNeedNoNetworkMoves) {
    const ClusterModel model = skewed_model({40, 40, 40});
    const Plan result = plan(model, PlannerConfig{});
    EXPECT_FALSE(test_support::contains(result.violated_before, GoalKind::network_in_usage_distribution));
    for (const Action& action : result.actions) {
        EXPECT_NE(action.goal, GoalKind::network_in_usage_distribution);
        EXPECT_NE(action.goal, GoalKind::network_out_usage_distribution);
    }
}

TEST(TrafficSkew, AfterThePlanEveryBrokerIsWithinTheBand) {
    const ClusterModel model = skewed_model({80, 120, 40});
    const PlannerConfig config;
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned) << result.error;
    const ClusterModel after = apply(model, result, config.flavor);
    const std::vector<Load> loads = broker_loads(after);
    const double mean_in = 80 * mib;
    const double mean_out = 160 * mib;
    for (size_t b = 0; b < loads.size(); b++) {
        EXPECT_GE(loads[b].bytes_in_per_s, mean_in * 0.9) << "broker " << b;
        EXPECT_LE(loads[b].bytes_in_per_s, mean_in * 1.1) << "broker " << b;
        EXPECT_GE(loads[b].bytes_out_per_s, mean_out * 0.9) << "broker " << b;
        EXPECT_LE(loads[b].bytes_out_per_s, mean_out * 1.1) << "broker " << b;
    }
    EXPECT_TRUE(result.violated_after.empty() ||
                !test_support::contains(result.violated_after, GoalKind::network_in_usage_distribution));
    EXPECT_EQ(violated_goals(after, config), result.violated_after);
}

}  // namespace
}  // namespace ballast::goals
