/// The network distribution goals on brokers of different sizes: with every
/// broker's capacity known they balance utilization (load / capacity), as
/// Cruise Control does; with one unknown, load, as AutoMQ does.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::broker_loads;
using test_support::mib;
using test_support::ModelBuilder;

constexpr int64_t now_ms = 100'000;

PlannerConfig network_goals() {
    PlannerConfig config;
    config.goals = {GoalKind::network_in_usage_distribution, GoalKind::network_out_usage_distribution};
    return config;
}

/// One small broker, two medium and one large (in MiB/s each way), and 200
/// partitions of 0.2 MiB/s in and out, 50 on each: loads even, utilization
/// not (the small one at 100%, the large one at 25%).
ClusterModel sized_cluster(const std::vector<double>& capacities_mib) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) {
        Broker& broker = builder.broker(id);
        broker.capacity.network_in_bytes_per_s = capacities_mib[id - 1] * mib;
        broker.capacity.network_out_bytes_per_s = capacities_mib[id - 1] * mib;
    }
    builder.topic("t");
    for (int i = 0; i < 200; i++) builder.partition({1 + i % 4}, 0.2 * mib, 0.2 * mib);
    return builder.build();
}

TEST(Utilization, BrokersOfDifferentSizesEndEquallyLoadedForTheirSize) {
    const std::vector<double> capacities = {10, 20, 20, 40};
    const ClusterModel model = sized_cluster(capacities);
    const PlannerConfig config = network_goals();
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(result.violated_after.empty());

    const std::vector<Load> loads = broker_loads(apply(model, result, config.flavor));
    // 40 MiB/s over 90 MiB/s of capacity: 44% each, within the band (10%)
    // and a partition's share of the smallest broker (2%).
    const double mean = 40.0 / 90.0;
    for (size_t b = 0; b < loads.size(); b++) {
        for (double load : {loads[b].bytes_in_per_s, loads[b].bytes_out_per_s}) {
            const double utilization = load / (capacities[b] * mib);
            EXPECT_NEAR(utilization, mean, mean * 0.1 + 0.02) << "broker " << b + 1;
        }
    }
    // The large broker carries about four times what the small one does.
    EXPECT_GT(loads[3].bytes_in_per_s, 3 * loads[0].bytes_in_per_s);
}

TEST(Utilization, TheSmallBrokerIsTheOneRelieved) {
    const ClusterModel model = sized_cluster({10, 20, 20, 40});
    const Plan result = plan(model, network_goals());
    ASSERT_FALSE(result.actions.empty());
    for (const Action& action : result.actions) {
        EXPECT_NE(action.destination, 1) << "a move onto the fullest broker for its size";
        EXPECT_NE(action.source, 4) << "a move off the emptiest broker for its size";
    }
}

TEST(Utilization, WithOneCapacityUnknownLoadIsBalancedAsBefore) {
    // Broker 4's size unknown: utilization is undefined for it, so the goals
    // balance load, which is already even.
    const Plan result = plan(sized_cluster({10, 20, 20, 0}), network_goals());
    EXPECT_EQ(result.status, Plan::Status::balanced);
    EXPECT_TRUE(result.actions.empty());
}

TEST(Utilization, EqualCapacitiesPlanWhatUnknownCapacitiesPlan) {
    // The same skew, all brokers of one size: utilization is load scaled,
    // and the plan is the same, action for action.
    ModelBuilder skewed(now_ms);
    for (int32_t id = 1; id <= 4; id++) skewed.broker(id);
    skewed.topic("t");
    for (int i = 0; i < 120; i++) {
        // Most on broker 1, some on 2 to 4; sizes 0.1 to 0.5 MiB/s in.
        const int32_t broker = 1 + (i % 7 == 0 ? 1 : 0) + (i % 3 == 0 ? 2 : 0);
        skewed.partition({broker}, 0.1 * mib * (1 + i % 5), 0.1 * mib);
    }
    const ClusterModel unknown = skewed.build();
    ClusterModel sized = unknown;
    for (Broker& broker : sized.brokers) {
        broker.capacity.network_in_bytes_per_s = 100 * mib;
        broker.capacity.network_out_bytes_per_s = 100 * mib;
    }
    const Plan without = plan(unknown, network_goals());
    const Plan with = plan(sized, network_goals());
    ASSERT_FALSE(without.actions.empty());
    ASSERT_EQ(with.actions.size(), without.actions.size());
    for (size_t i = 0; i < with.actions.size(); i++) {
        EXPECT_EQ(with.actions[i].partition, without.actions[i].partition) << "action " << i;
        EXPECT_EQ(with.actions[i].destination, without.actions[i].destination) << "action " << i;
    }
}

}  // namespace
}  // namespace ballast::goals
