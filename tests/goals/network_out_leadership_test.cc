/// Network out balanced by leadership: with RF > 1 a partition's out
/// (consumers plus a copy per follower) is all on its leader, so a leader
/// change moves it without copying data. These cases check that the out goal
/// uses leader changes wherever they reach the band, moves only where they
/// cannot, and never elects a replica Kafka would refuse.

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
using test_support::out_of;

constexpr int64_t now_ms = 100'000;

size_t count_kind(const Plan& result, ActionKind kind) {
    return static_cast<size_t>(std::count_if(result.actions.begin(), result.actions.end(),
                                             [&](const Action& a) { return a.kind == kind; }));
}

/// Every eligible broker's out within mean x (1 ± deviation) after `result`.
::testing::AssertionResult out_within_band(const ClusterModel& model, const Plan& result,
                                           const PlannerConfig& config) {
    const std::vector<Load> loads = broker_loads(apply(model, result, config.flavor));
    double total = 0;
    for (const Load& load : loads) total += out_of(load);
    const double mean = total / static_cast<double>(loads.size());
    for (size_t b = 0; b < loads.size(); b++) {
        const double out = out_of(loads[b]);
        if (std::abs(out - mean) > mean * config.network_out_avg_deviation + 1) {
            return ::testing::AssertionFailure() << "broker " << model.brokers[b].id << " ends at "
                                                 << out / mib << " MiB/s out, mean " << mean / mib;
        }
    }
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------- in-sync followers only

TEST(NetworkOutLeadership, LeadershipGoesOnlyToAFollowerInTheIsr) {
    // Broker 1 leads everything; broker 2 is the only light follower, but
    // its replicas are catching up (out of the ISR): Kafka would refuse
    // to elect it, so leadership goes to broker 3 or not at all.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 6; i++) {
        Partition& p = builder.partition({1, 2, 3}, 1 * mib, 2 * mib);
        p.out_of_sync_slots = 0b010;  // broker 2's replica
    }
    const ClusterModel model = builder.build();
    const Plan result = plan(model, PlannerConfig{});
    ASSERT_FALSE(result.actions.empty());
    for (const Action& action : result.actions) {
        EXPECT_NE(action.destination, 2) << "leadership of partition " << action.partition << " to a lagging replica";
    }
}

// ---------------------------------------------------------------- leadership before moves

/// Six brokers, 36 partitions RF3 placed round robin ({i, i+1, i+2} mod 6):
/// 18 replicas each, bytes in even. Broker 0 leads every partition it
/// holds; the rest are led by their first replica except broker 3's and
/// broker 5's: brokers 3 and 5 lead nothing, and broker 3 follows nothing
/// broker 0 leads.
ClusterModel leadership_skewed() {
    ModelBuilder builder(now_ms);
    for (int32_t id = 0; id < 6; id++) builder.broker(id);
    builder.topic("t");
    for (int32_t i = 0; i < 36; i++) {
        const std::vector<int32_t> replicas = {i % 6, (i + 1) % 6, (i + 2) % 6};
        int32_t leader = replicas[0];
        if (std::find(replicas.begin(), replicas.end(), 0) != replicas.end()) leader = 0;
        if (leader == 3) leader = replicas[1];  // {3, 4, 5}: led by 4
        // 1 MiB/s in, consumers read 2: the leader sends 4 MiB/s out.
        builder.partition(replicas, 1 * mib, 2 * mib, 0, leader);
    }
    return builder.build();
}

TEST(NetworkOutLeadership, SkewedLeadershipIsBalancedByLeaderChangesAlone) {
    const ClusterModel model = leadership_skewed();
    const PlannerConfig config;
    const std::vector<Load> before = broker_loads(model);
    ASSERT_EQ(out_of(before[0]), 72 * mib);  // 18 led, mean 24
    ASSERT_EQ(out_of(before[3]), 0.0);
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(std::find(result.violated_before.begin(), result.violated_before.end(),
                          GoalKind::network_out_usage_distribution) != result.violated_before.end());
    EXPECT_TRUE(result.violated_after.empty());
    EXPECT_EQ(count_kind(result, ActionKind::move), 0u);
    EXPECT_EQ(count_kind(result, ActionKind::swap), 0u);
    EXPECT_GT(count_kind(result, ActionKind::leader), 0u);
    EXPECT_TRUE(out_within_band(model, result, config));
}

TEST(NetworkOutLeadership, ABrokerThatFollowsNothingOfTheHeavyOneIsReachedThroughAMiddleBroker) {
    // As after a restart: broker 3 leads nothing, broker 0 leads twice its
    // share (12 partitions, 48 MiB/s out; mean 24), the others their share.
    // Broker 3 follows only what brokers 1, 2 and 5 lead, and broker 0's
    // followers are 1, 2 and 5 too, each at the mean: one leader change
    // alone would push one of them out of the band, and with bytes in even
    // no move is allowed (it would widen in's distribution).
    ModelBuilder builder(now_ms);
    for (int32_t id = 0; id < 6; id++) builder.broker(id);
    builder.topic("t");
    for (int32_t i = 0; i < 36; i++) {
        const std::vector<int32_t> replicas = {i % 6, (i + 1) % 6, (i + 2) % 6};
        int32_t leader = replicas[0];
        if (i % 6 == 3) leader = 5;  // {3, 4, 5}
        if (i % 6 == 5) leader = 0;  // {5, 0, 1}
        builder.partition(replicas, 1 * mib, 2 * mib, 0, leader);
    }
    const ClusterModel model = builder.build();
    const std::vector<Load> before = broker_loads(model);
    ASSERT_EQ(out_of(before[0]), 48 * mib);
    ASSERT_EQ(out_of(before[3]), 0.0);
    const PlannerConfig config;
    const Plan result = plan(model, config);
    EXPECT_TRUE(out_within_band(model, result, config));
    EXPECT_EQ(count_kind(result, ActionKind::move) + count_kind(result, ActionKind::swap), 0u);
    bool reached = false;
    for (const Action& action : result.actions) reached = reached || action.destination == 3;
    EXPECT_TRUE(reached);
}

// ---------------------------------------------------------------- one hot partition

/// Three brokers, every partition RF3 on all of them (so no move is
/// possible and leadership is all there is), `hot` led by broker 1: in 2
/// MiB/s, consumers read `hot_consumers_mib`. Broker 1 also leads
/// `regular_on_1` of the 48 regular partitions (0.25 in, 0.5 read: 1 MiB/s
/// out on the leader); brokers 2 and 3 split the rest.
ClusterModel hot_partition(double hot_consumers_mib, int regular_on_1, std::vector<double> capacities_mib) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) {
        Broker& broker = builder.broker(id);
        broker.capacity.network_out_bytes_per_s = capacities_mib[id - 1] * mib;
    }
    builder.topic("hot");
    builder.partition({1, 2, 3}, 2 * mib, hot_consumers_mib * mib);
    builder.topic("regular");
    for (int i = 0; i < 48; i++) {
        const int32_t leader = i < regular_on_1 ? 1 : 2 + i % 2;
        builder.partition({1, 2, 3}, 0.25 * mib, 0.5 * mib, 0, leader);
    }
    return builder.build();
}

TEST(NetworkOutLeadership, ABrokerLeadingOnlyAHotPartitionHandsItToAFollowerThatCanCarryIt) {
    // Broker 1 can send 50 MiB/s, brokers 2 and 3 400: utilization is
    // balanced. Broker 1 leads only the hot partition (40 read + 2 x 2
    // replicated = 44 MiB/s out, 88% of it); the cluster's out is 92 MiB/s
    // over 850, 10.8%. On a large broker the hot partition is 11%: inside
    // the band. Its leadership moves there, and broker 1 takes regular ones.
    const ClusterModel model = hot_partition(40, 0, {50, 400, 400});
    const PlannerConfig config;
    const Plan result = plan(model, config);
    EXPECT_FALSE(std::find(result.violated_after.begin(), result.violated_after.end(),
                           GoalKind::network_out_usage_distribution) != result.violated_after.end());
    bool hot_moved = false;
    for (const Action& action : result.actions) {
        EXPECT_EQ(action.kind, ActionKind::leader);
        hot_moved = hot_moved || (action.partition == 0 && action.source == 1);
    }
    EXPECT_TRUE(hot_moved);
    const std::vector<Load> after = broker_loads(apply(model, result, config.flavor));
    const double mean = 92.0 / 850;
    for (size_t b = 0; b < after.size(); b++) {
        const double utilization = out_of(after[b]) / (model.brokers[b].capacity.network_out_bytes_per_s);
        EXPECT_NEAR(utilization, mean, mean * config.network_out_avg_deviation) << "broker " << b + 1;
    }
}

TEST(NetworkOutLeadership, AHotPartitionNoBrokerCanLeadInsideTheBandKeepsItsLeaderWhoShedsTheRest) {
    // Equal brokers; the hot partition alone sends 44 MiB/s out, more than
    // any broker may carry (mean 30.7, band up to 33.7): whoever leads it
    // is above the band, and moving it only moves the problem. Its leader
    // hands away the regular leaderships instead, and keeps the hot one.
    const ClusterModel model = hot_partition(40, 16, {0, 0, 0});
    const PlannerConfig config;
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    for (const Action& action : result.actions) {
        EXPECT_EQ(action.kind, ActionKind::leader);
        EXPECT_NE(action.partition, 0u) << "the hot partition's leadership moved";
    }
    const std::vector<Load> after = broker_loads(apply(model, result, config.flavor));
    EXPECT_EQ(out_of(after[0]), 44 * mib);  // the hot partition alone
}

// ---------------------------------------------------------------- moves where leadership cannot

TEST(NetworkOutLeadership, MovesWhereLeaderChangesCannotReachTheBand) {
    // Six partitions RF2 on brokers 1 and 2, all led by 1 (2 MiB/s out
    // each); broker 3 was just added and holds nothing. Mean 4: leadership
    // alone leaves brokers 1 and 2 at 6 each, above the band, and broker 3
    // at 0. Leader changes first, then a replica to broker 3 from each.
    // Bytes in are tiny (below the detect threshold) so that in's goal
    // does not decide.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("a");
    for (int i = 0; i < 6; i++) builder.partition({1, 2}, 0.01 * mib, 1.99 * mib);
    const ClusterModel model = builder.build();
    const PlannerConfig config;
    const Plan result = plan(model, config);
    EXPECT_TRUE(out_within_band(model, result, config));
    size_t leaders_before_first_move = 0;
    for (const Action& action : result.actions) {
        if (action.kind != ActionKind::leader) break;
        leaders_before_first_move++;
    }
    EXPECT_GT(leaders_before_first_move, 0u);
    EXPECT_GT(count_kind(result, ActionKind::move) + count_kind(result, ActionKind::swap), 0u);
}

}  // namespace
}  // namespace ballast::goals
