/// Each goal on small hand-built models: what it fixes, what it refuses,
/// and the planner's rules around it (exclusions, stale metrics, cooldown,
/// drains, the action bound, invalid input).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "goals/goal.h"
#include "goals/planner_types.h"
#include "goals/planning_state.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::broker_loads;
using test_support::contains;
using test_support::mib;
using test_support::ModelBuilder;
using test_support::only;
using test_support::replica_counts;
using test_support::touches_broker;
using test_support::replicas_of;

constexpr int64_t now_ms = 100'000;

int count_goal(const Plan& result, GoalKind goal) {
    return static_cast<int>(std::count_if(result.actions.begin(), result.actions.end(),
                                          [&](const Action& a) { return a.goal == goal; }));
}

// ---------------------------------------------------------------- RackAwareGoal

TEST(RackAwareGoal, MovesAReplicaOutOfACrowdedRack) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 0);
    builder.broker(3, 1);
    builder.topic("t");
    builder.partition({1, 2}, mib, mib);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::rack_aware});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_EQ(result.violated_before, std::vector<GoalKind>{GoalKind::rack_aware});
    EXPECT_TRUE(result.violated_after.empty());
    ASSERT_EQ(result.actions.size(), 1u);
    EXPECT_EQ(result.actions[0].goal, GoalKind::rack_aware);
    EXPECT_EQ(result.actions[0].destination, 3);
    // The follower moves, the leader stays.
    EXPECT_EQ(result.actions[0].source, 2);
    EXPECT_EQ(result.actions[0].replicas_after, (std::vector<int32_t>{1, 3}));
}

/// RF 3 over three racks, one replica in each: the rack goal refuses every
/// move off a broker to another rack, and says so per pair of brokers
/// (refuses_every_move, so the searches skip the pair), never within a rack.
/// Once a move crowds a rack (applied by hand, past the goal), the brokers
/// holding that partition are open again; the undo closes them.
TEST(RackAwareGoal, RefusesEveryMoveToAnotherRackWhenEachRackHoldsOneOfEachPartition) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b", "c"});
    for (int id = 1; id <= 6; id++) builder.broker(id, static_cast<uint32_t>((id - 1) % 3));  // racks a b c a b c
    builder.topic("t");
    builder.partition({1, 2, 3}, mib, mib);
    builder.partition({4, 5, 6}, mib, mib);
    builder.partition({1, 5, 6}, mib, mib);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::rack_aware});
    PlanningState state(model, config, false);
    const std::unique_ptr<Goal> rack = make_goal(GoalKind::rack_aware);
    auto refused = [&](int32_t s, int32_t d) {
        return rack->refuses_every_move(state, state.broker_index(s), state.broker_index(d), Load{});
    };
    for (int32_t s = 1; s <= 6; s++) {
        EXPECT_EQ(state.rack_open(state.broker_index(s)), 0u) << "broker " << s;
        for (int32_t d = 1; d <= 6; d++) {
            if (d == s) continue;
            EXPECT_EQ(refused(s, d), (s - 1) % 3 != (d - 1) % 3) << s << " -> " << d;
        }
    }
    // t-0's replica on broker 2 (rack b) to broker 4 (rack a): rack a now
    // holds two of t-0 and rack b none.
    state.apply(state.move(0, state.broker_index(2), state.broker_index(4), false), GoalKind::rack_aware);
    for (int32_t holder : {1, 3, 4}) {
        EXPECT_GT(state.rack_open(state.broker_index(holder)), 0u) << "broker " << holder;
        EXPECT_FALSE(refused(holder, 5)) << holder << " -> 5";
    }
    EXPECT_EQ(state.rack_open(state.broker_index(2)), 0u);
    EXPECT_TRUE(refused(6, 4));
    state.undo_last();
    for (int32_t s = 1; s <= 6; s++) EXPECT_EQ(state.rack_open(state.broker_index(s)), 0u) << "broker " << s;
    // Four racks for RF 3: some rack lacks each partition, nothing is refused per pair.
    ModelBuilder four(now_ms);
    four.racks({"a", "b", "c", "d"});
    for (int id = 1; id <= 4; id++) four.broker(id, static_cast<uint32_t>(id - 1));
    four.topic("t");
    four.partition({1, 2, 3}, mib, mib);
    const ClusterModel model4 = four.build();
    PlanningState state4(model4, config, false);
    EXPECT_GT(state4.rack_open(state4.broker_index(1)), 0u);
    EXPECT_FALSE(rack->refuses_every_move(state4, state4.broker_index(1), state4.broker_index(4), Load{}));
}

TEST(RackAwareGoal, FewerRacksThanReplicasAsksOnlyForAnEvenSpread) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 0);
    builder.broker(3, 1);
    builder.broker(4, 1);
    builder.topic("t");
    builder.partition({1, 2, 3}, mib, mib);     // a, a, b: fine with 2 racks
    builder.partition({1, 2, 4}, mib, mib);
    const ClusterModel model = builder.build();
    const Plan result = plan(model, only({GoalKind::rack_aware}));
    EXPECT_EQ(result.status, Plan::Status::balanced);
    EXPECT_TRUE(result.actions.empty());
}

TEST(RackAwareGoal, ReportsWhatItCannotFix) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 0);
    builder.broker(3, 1);
    builder.model().brokers[2].capacity.replicas_max = 1;
    builder.topic("t");
    builder.partition({3}, mib, mib);
    builder.partition({1, 2}, mib, mib);  // rack b's only broker is full
    const ClusterModel model = builder.build();
    const Plan result = plan(model, only({GoalKind::rack_aware, GoalKind::replica_capacity}));
    EXPECT_EQ(result.status, Plan::Status::stuck);
    ASSERT_EQ(result.unfixable.size(), 1u);
    EXPECT_EQ(result.unfixable[0].partition, 1u);
    EXPECT_EQ(result.unfixable[0].goal, GoalKind::rack_aware);
}

// ---------------------------------------------------------------- capacity goals

TEST(ReplicaCapacityGoal, MovesReplicasOffABrokerOverItsMaximum) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id).capacity.replicas_max = 4;
    builder.topic("t");
    for (int i = 0; i < 6; i++) builder.partition({1}, 0, 0);
    builder.partition({2}, 0, 0);
    builder.partition({3}, 0, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::replica_capacity});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_EQ(result.actions.size(), 2u);
    const std::vector<int32_t> counts = replica_counts(apply(model, result, config.flavor));
    for (int32_t count : counts) EXPECT_LE(count, 4);
}

TEST(ReplicaCapacityGoal, FullClusterIsReportedUnfixable) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 2; id++) builder.broker(id).capacity.replicas_max = 2;
    builder.topic("t");
    for (int i = 0; i < 3; i++) builder.partition({1}, 0, 0);
    builder.partition({2}, 0, 0);
    builder.partition({2}, 0, 0);
    const Plan result = plan(builder.build(), only({GoalKind::replica_capacity}));
    EXPECT_EQ(result.status, Plan::Status::stuck);
    ASSERT_EQ(result.unfixable.size(), 1u);
    EXPECT_EQ(result.unfixable[0].broker_id, 1);
    EXPECT_EQ(result.unfixable[0].partition, UINT32_MAX);
}

/// Broker 1 carries 12 MiB/s in, out and disk against a limit of 8 (10 x 0.8).
ClusterModel over_capacity_model() {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) {
        Capacity& capacity = builder.broker(id).capacity;
        capacity.network_in_bytes_per_s = 10 * mib;
        capacity.network_out_bytes_per_s = 10 * mib;
        capacity.disk_bytes = 10 * mib;
    }
    builder.topic("t");
    for (int i = 0; i < 6; i++) builder.partition({1}, 2 * mib, 2 * mib, 2 * mib);
    builder.partition({2}, 2 * mib, 2 * mib, 2 * mib);
    builder.partition({3}, 2 * mib, 2 * mib, 2 * mib);
    return builder.build();
}

TEST(CapacityGoals, EachBringsTheOverloadedBrokerUnderItsLimit) {
    const ClusterModel model = over_capacity_model();
    for (GoalKind goal : {GoalKind::network_in_capacity, GoalKind::network_out_capacity, GoalKind::disk_capacity}) {
        SCOPED_TRACE(goal_name(goal));
        const PlannerConfig config = only({goal});
        const Plan result = plan(model, config);
        ASSERT_EQ(result.status, Plan::Status::actions_planned);
        EXPECT_EQ(result.violated_before, std::vector<GoalKind>{goal});
        EXPECT_TRUE(result.violated_after.empty());
        EXPECT_EQ(count_goal(result, goal), static_cast<int>(result.actions.size()));
        const std::vector<Load> loads = broker_loads(apply(model, result, config.flavor));
        for (const Load& load : loads) {
            EXPECT_LE(load.bytes_in_per_s, 8 * mib);
            EXPECT_LE(load.size_bytes, 8 * mib);
        }
    }
}

/// Broker 1 can shed only partitions whose moves are still running: this
/// round cannot relieve it, but that is "later", not "cannot" (the next
/// round, once they finished, does relieve it).
TEST(CapacityGoals, ABrokerWaitingOnItsRunningMovesIsNotReportedUnfixable) {
    ClusterModel model = over_capacity_model();
    for (Partition& p : model.partitions) p.in_flight = model.replicas_of(p)[0] == 1;
    for (GoalKind goal : {GoalKind::network_in_capacity, GoalKind::disk_capacity}) {
        SCOPED_TRACE(goal_name(goal));
        const Plan waiting = plan(model, only({goal}));
        EXPECT_TRUE(waiting.unfixable.empty()) << waiting.unfixable[0].reason;
        EXPECT_TRUE(waiting.actions.empty());
        ClusterModel done = model;
        for (Partition& p : done.partitions) p.in_flight = false;
        const Plan next = plan(done, only({goal}));
        EXPECT_TRUE(next.violated_after.empty());
        EXPECT_FALSE(next.actions.empty());
    }
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id).capacity.replicas_max = 4;
    builder.topic("t");
    for (int i = 0; i < 6; i++) builder.partition({1}, 0, 0);
    ClusterModel replicas = builder.build();
    for (Partition& p : replicas.partitions) p.in_flight = true;
    const Plan waiting = plan(replicas, only({GoalKind::replica_capacity}));
    EXPECT_TRUE(waiting.unfixable.empty()) << waiting.unfixable[0].reason;
}

TEST(CapacityGoals, StaleBrokersAreNotJudged) {
    ClusterModel model = over_capacity_model();
    model.brokers[0].metrics_time_ms = now_ms - 120'000;
    const Plan result = plan(model, only({GoalKind::network_in_capacity}));
    EXPECT_EQ(result.status, Plan::Status::balanced);
}

// ---------------------------------------------------------------- count goals

TEST(ReplicaCountDistributionGoal, EvensOutReplicaCounts) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 12; i++) builder.partition({1}, 0, 0);
    for (int i = 0; i < 3; i++) builder.partition({2}, 0, 0);
    for (int i = 0; i < 3; i++) builder.partition({3}, 0, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::replica_count_distribution});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(result.violated_after.empty());
    for (int32_t count : replica_counts(apply(model, result, config.flavor))) {
        EXPECT_GE(count, 5);  // mean 6: band [floor(5.4), ceil(6.6)]
        EXPECT_LE(count, 7);
    }
}

TEST(ReplicaCountDistributionGoal, TheBandsTopIsMeanTimesOnePointOneNotOneMore) {
    // Mean 50: the band is [45, 55]. 50 x 1.1 is 55.000000000000007 in
    // doubles, whose ceil would let a broker hold 56.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 56; i++) builder.partition({1}, 0, 0);
    for (int i = 0; i < 47; i++) builder.partition({2}, 0, 0);
    for (int i = 0; i < 47; i++) builder.partition({3}, 0, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::replica_count_distribution});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_LE(replica_counts(apply(model, result, config.flavor))[0], 55);
}

TEST(LeaderCountDistributionGoal, HandsLeadershipToFollowers) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 9; i++) builder.partition({1, 2 + i % 2}, 0, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::leader_count_distribution});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(result.violated_after.empty());
    std::map<int32_t, int> leaders;
    const ClusterModel after = apply(model, result, config.flavor);
    for (uint32_t p = 0; p < after.partitions.size(); p++) {
        leaders[after.partitions[p].leader]++;
        EXPECT_EQ(replicas_of(after, p).front(), after.partitions[p].leader) << "the leader is preferred";
    }
    for (const Action& action : result.actions) EXPECT_EQ(action.kind, ActionKind::leader);
    for (const auto& [broker, count] : leaders) {
        EXPECT_GE(count, 2) << "broker " << broker;
        EXPECT_LE(count, 4) << "broker " << broker;
    }
}

TEST(LeaderCountDistributionGoal, LeavesSingleReplicaPartitionsAlone) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 9; i++) builder.partition({1}, 0, 0);
    const Plan result = plan(builder.build(), only({GoalKind::leader_count_distribution}));
    EXPECT_TRUE(result.actions.empty());
    EXPECT_EQ(result.status, Plan::Status::stuck);
}

TEST(TopicSpreadGoal, SpreadsATopicAcrossBrokers) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("a");
    for (int i = 0; i < 6; i++) builder.partition({1}, 0, 0);
    builder.topic("b");
    for (int i = 0; i < 6; i++) builder.partition({2 + i % 2}, 0, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::topic_spread});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(result.violated_after.empty());
    const ClusterModel after = apply(model, result, config.flavor);
    std::map<int32_t, int> topic_a;
    for (uint32_t p = 0; p < 6; p++) topic_a[replicas_of(after, p).front()]++;
    for (int32_t id = 1; id <= 3; id++) {
        EXPECT_GE(topic_a[id], 1);
        EXPECT_LE(topic_a[id], 3);
    }
}

TEST(TopicSpreadGoal, BreaksUpAPileOnOneBroker) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("pile");
    for (int i = 0; i < 40; i++) builder.partition({1}, 0, 0);
    builder.topic("rest");
    for (int i = 0; i < 30; i++) builder.partition({2 + i % 3}, 0, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::topic_spread});
    const Plan result = plan(model, config);
    EXPECT_TRUE(result.violated_after.empty());
    const ClusterModel after = apply(model, result, config.flavor);
    std::map<int32_t, int> pile;
    for (uint32_t p = 0; p < 40; p++) pile[replicas_of(after, p).front()]++;
    for (int32_t id = 1; id <= 4; id++) {
        EXPECT_GE(pile[id], 5) << "broker " << id;  // mean 10: band [5, 15]
        EXPECT_LE(pile[id], 15) << "broker " << id;
    }
}

/// Broker 1 holds 10 of the topic's 15 replicas (band [2, 8]): two must go.
/// Its replicas carry the same traffic, but half keep ten times the bytes
/// (a longer retention): the counts come out even either way, so the goal
/// copies the small ones.
TEST(TopicSpreadGoal, CopiesTheSmallestReplicasOfAPile) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("pile");
    const double gib = 1024.0 * 1024 * 1024;
    for (int i = 0; i < 10; i++) builder.partition({1}, 1 << 20, 0, i % 2 == 0 ? 10 * gib : gib);
    for (int i = 0; i < 5; i++) builder.partition({2 + i % 2}, 1 << 20, 0, gib);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::topic_spread});
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(result.violated_after.empty());
    ASSERT_FALSE(result.actions.empty());
    for (const Action& action : result.actions) {
        EXPECT_EQ(model.partitions[action.partition].load.size_bytes, gib) << "partition " << action.partition;
    }
}

/// A topic with fewer replicas than brokers (4 on 8, mean 0.5): two on one
/// broker is within its band, three are not.
TEST(TopicSpreadGoal, ASmallTopicMayPutTwoReplicasOnOneBroker) {
    for (const int piled : {2, 3}) {
        SCOPED_TRACE(std::to_string(piled) + " on broker 1");
        ModelBuilder builder(now_ms);
        for (int32_t id = 1; id <= 8; id++) builder.broker(id);
        builder.topic("small");
        for (int i = 0; i < 4; i++) builder.partition({i < piled ? 1 : 2 + i}, 0, 0);
        const ClusterModel model = builder.build();
        const PlannerConfig config = only({GoalKind::topic_spread});
        const Plan result = plan(model, config);
        EXPECT_EQ(result.violated_before.empty(), piled == 2);
        EXPECT_EQ(result.actions.size(), piled == 2 ? 0u : 1u);
        EXPECT_TRUE(result.violated_after.empty());
    }
}

// ---------------------------------------------------------------- hard goals vs soft goals

/// Broker 3 is empty and light, but it shares rack a with broker 1 and has
/// room for two replicas only: the network goals may not break either rule.
TEST(HardGoals, SoftGoalsNeverBreakAHardGoalThatHeld) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 1);
    builder.broker(3, 0).capacity.replicas_max = 2;
    builder.topic("t");
    for (int i = 0; i < 12; i++) builder.partition({i % 2 == 0 ? 1 : 2, i % 2 == 0 ? 2 : 1}, 4 * mib, 4 * mib);
    const ClusterModel model = builder.build();
    const PlannerConfig config;
    const Plan result = plan(model, config);
    EXPECT_FALSE(contains(result.violated_before, GoalKind::rack_aware));
    EXPECT_FALSE(contains(result.violated_before, GoalKind::replica_capacity));
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    const ClusterModel after = apply(model, result, config.flavor);
    const std::vector<GoalKind> violated = violated_goals(after, config);
    EXPECT_FALSE(contains(violated, GoalKind::rack_aware));
    EXPECT_FALSE(contains(violated, GoalKind::replica_capacity));
    EXPECT_LE(replica_counts(after)[2], 2);
    for (const Action& action : result.actions) {
        if (action.destination == 3 && action.kind == ActionKind::move) {
            EXPECT_EQ(action.source, 1);
        }
    }
}

// ---------------------------------------------------------------- exclusions, staleness, cooldown

ClusterModel skewed_three_brokers() {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("hot");
    for (int i = 0; i < 12; i++) builder.partition({1}, 2 * mib, 2 * mib);
    builder.topic("warm");
    for (int i = 0; i < 4; i++) builder.partition({2}, 2 * mib, 2 * mib);
    return builder.build();
}

TEST(Exclusions, ExcludedBrokersAndTopicsAreNeverTouched) {
    ClusterModel model = skewed_three_brokers();
    model.brokers[2].excluded = true;
    const Plan excluded_broker = plan(model, PlannerConfig{});
    ASSERT_EQ(excluded_broker.status, Plan::Status::actions_planned);
    for (const Action& action : excluded_broker.actions) EXPECT_FALSE(touches_broker(action, 3));

    model.brokers[2].excluded = false;
    for (Partition& partition : model.partitions) partition.excluded = partition.topic == 0;
    const Plan excluded_topic = plan(model, PlannerConfig{});
    for (const Action& action : excluded_topic.actions) {
        EXPECT_NE(model.partitions[action.partition].topic, 0u);
        if (action.kind == ActionKind::swap) {
            EXPECT_NE(model.partitions[action.swap_partition].topic, 0u);
        }
    }
}

TEST(Cooldown, PartitionsInCooldownOrInFlightStayPut) {
    ClusterModel model = skewed_three_brokers();
    for (uint32_t p = 0; p < 12; p++) {
        if (p % 2 == 0) model.partitions[p].last_moved_ms = now_ms - 1'000;
        else model.partitions[p].in_flight = true;
    }
    const Plan result = plan(model, PlannerConfig{});
    for (const Action& action : result.actions) EXPECT_GE(action.partition, 12u);
}

TEST(Cooldown, EvacuationIgnoresCooldownButWaitsForActionsInFlight) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.model().brokers[0].liveness = Liveness::gone;
    builder.topic("t");
    builder.partition({1}, mib, mib).last_moved_ms = now_ms - 1'000;
    builder.partition({1}, mib, mib).in_flight = true;
    PlannerConfig config;
    config.flavor = Flavor::automq;
    const Plan result = plan(builder.build(), config);
    ASSERT_EQ(result.actions.size(), 1u);
    EXPECT_EQ(result.actions[0].partition, 0u);
    EXPECT_TRUE(result.actions[0].evacuation);
}

TEST(StaleBrokers, ReceiveEvacueesOnlyWhenNoFreshBrokerCan) {
    ModelBuilder builder(now_ms);
    builder.broker(1).liveness = Liveness::gone;
    builder.broker(2).metrics_time_ms = now_ms - 600'000;  // stale
    builder.broker(3).capacity.replicas_max = 2;           // fresh, room for one more
    builder.topic("t");
    builder.partition({1}, mib, mib);
    builder.partition({1}, mib, mib);
    builder.partition({1}, mib, mib);
    builder.partition({3}, mib, mib);
    PlannerConfig config;
    config.flavor = Flavor::automq;
    const Plan result = plan(builder.build(), config);
    std::map<int32_t, int> destinations;
    for (const Action& action : result.actions) {
        if (action.evacuation) {
            destinations[action.destination]++;
        }
    }
    EXPECT_EQ(destinations[3], 1);
    EXPECT_EQ(destinations[2], 2);
}

TEST(Draining, EveryReplicaIsPlannedAwayDeadBrokersFirst) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.model().brokers[0].draining = true;
    builder.model().brokers[3].liveness = Liveness::fenced;
    builder.topic("t");
    for (int i = 0; i < 4; i++) builder.partition({1}, mib, mib);
    for (int i = 0; i < 4; i++) builder.partition({4}, mib, mib);
    for (int i = 0; i < 4; i++) builder.partition({2 + i % 2}, mib, mib);
    const ClusterModel model = builder.build();
    PlannerConfig config;
    config.flavor = Flavor::automq;
    const Plan result = plan(model, config);
    ASSERT_GE(result.actions.size(), 8u);
    for (size_t i = 0; i < 8; i++) {
        EXPECT_TRUE(result.actions[i].evacuation);
        EXPECT_EQ(result.actions[i].source, i < 4 ? 4 : 1) << "dead before draining";
    }
    const std::vector<int32_t> counts = replica_counts(apply(model, result, config.flavor));
    EXPECT_EQ(counts[0], 0);
    EXPECT_EQ(counts[3], 0);
}

// ---------------------------------------------------------------- bounds and input

TEST(Planner, ActionsMaxBoundsThePlan) {
    const ClusterModel model = skewed_three_brokers();
    PlannerConfig config;
    config.actions_max = 2;
    EXPECT_EQ(plan(model, config).actions.size(), 2u);
    config.actions_max = 0;
    const Plan none = plan(model, config);
    EXPECT_TRUE(none.actions.empty());
    EXPECT_EQ(none.status, Plan::Status::stuck);
}

TEST(Planner, SameInputSamePlan) {
    const ClusterModel model = skewed_three_brokers();
    const ClusterModel copy = model;
    EXPECT_EQ(plan(model, PlannerConfig{}), plan(copy, PlannerConfig{}));
}

TEST(Planner, InvalidInputIsAnErrorValueNamingTheProblem) {
    ClusterModel model = skewed_three_brokers();
    model.replicas[0] = 42;
    Plan result = plan(model, PlannerConfig{});
    EXPECT_EQ(result.status, Plan::Status::invalid_input);
    EXPECT_NE(result.error.find("unknown broker 42"), std::string::npos) << result.error;
    EXPECT_TRUE(result.actions.empty());

    PlannerConfig twice;
    twice.goals = {GoalKind::rack_aware, GoalKind::rack_aware};
    result = plan(skewed_three_brokers(), twice);
    EXPECT_EQ(result.status, Plan::Status::invalid_input);
    EXPECT_NE(result.error.find("RackAwareGoal"), std::string::npos) << result.error;

    model = skewed_three_brokers();
    model.partitions[3].load.bytes_in_per_s = -1;
    EXPECT_EQ(plan(model, PlannerConfig{}).status, Plan::Status::invalid_input);
    model = skewed_three_brokers();
    std::swap(model.brokers[0], model.brokers[1]);
    EXPECT_NE(check_input(model, PlannerConfig{}).find("out of order"), std::string::npos);
}

TEST(Planner, BalancedClusterPlansNothing) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 9; i++) builder.partition({1 + i % 3, 1 + (i + 1) % 3}, 2 * mib, 2 * mib);
    const Plan result = plan(builder.build(), PlannerConfig{});
    EXPECT_EQ(result.status, Plan::Status::balanced);
    EXPECT_TRUE(result.violated_before.empty());
    EXPECT_TRUE(result.actions.empty());
}

TEST(Planner, EachActionRecordsItsBrokersBeforeAndAfter) {
    const ClusterModel model = skewed_three_brokers();
    const Plan result = plan(model, PlannerConfig{});
    ASSERT_FALSE(result.actions.empty());
    for (const Action& action : result.actions) {
        ASSERT_EQ(action.loads.size(), 2u);
        EXPECT_EQ(action.loads[0].broker_id, action.source);
        EXPECT_EQ(action.loads[1].broker_id, action.destination);
        const double moved = action.loads[0].before.load.bytes_in_per_s - action.loads[0].after.load.bytes_in_per_s;
        EXPECT_NEAR(moved, action.loads[1].after.load.bytes_in_per_s - action.loads[1].before.load.bytes_in_per_s, 1);
    }
}

// ---------------------------------------------------------------- names

TEST(GoalNames, RoundTripAndAcceptAutomqClassNames) {
    const std::vector<GoalKind> goals = default_goals();
    ASSERT_EQ(goals.size(), goal_kind_count);
    for (uint8_t i = 0; i < goal_kind_count; i++) {
        const GoalKind kind = static_cast<GoalKind>(i);
        EXPECT_EQ(goals[i], kind);
        EXPECT_EQ(goal_from_name(goal_name(kind)), kind);
        EXPECT_EQ(goal_from_name(std::string("kafka.autobalancer.goals.") + goal_name(kind)), kind);
        EXPECT_EQ(goal_is_hard(kind), i <= static_cast<uint8_t>(GoalKind::disk_capacity));
    }
    EXPECT_EQ(goal_from_name("NoSuchGoal"), std::nullopt);
    EXPECT_STREQ(goal_name(GoalKind::network_in_usage_distribution), "NetworkInUsageDistributionGoal");
    EXPECT_EQ(PlannerConfig{}.goals, goals);
}

TEST(HoldReasonNames, AreSnakeCase) {
    EXPECT_STREQ(hold_reason_name(HoldReason::cooldown), "cooldown");
    EXPECT_STREQ(hold_reason_name(HoldReason::execution_interval), "execution_interval");
    EXPECT_STREQ(hold_reason_name(HoldReason::paused), "paused");
}

}  // namespace
}  // namespace ballast::goals
