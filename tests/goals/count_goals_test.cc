// What the count goals (replica count, leader count, topic spread) aim for
// and which copies they leave to a later plan, on hand-built models.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "goals/goal.h"
#include "goals/planner_types.h"
#include "goals/planning_state.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::mib;
using test_support::ModelBuilder;
using test_support::only;

constexpr int64_t now_ms = 100'000;
constexpr double gib = 1024.0 * mib;

constexpr uint32_t broker_1 = 0;  // indices: brokers by id
constexpr uint32_t broker_2 = 1;
constexpr uint32_t broker_3 = 2;

/// Leaders per broker (by index) in `model`.
std::vector<int32_t> leader_counts(const ClusterModel& model) {
    std::vector<int32_t> counts(model.brokers.size(), 0);
    for (const Partition& p : model.partitions) {
        for (size_t b = 0; b < model.brokers.size(); b++) counts[b] += model.brokers[b].id == p.leader;
    }
    return counts;
}

/// Ten brokers, 1,000 RF2 partitions: broker 1 leads `first` of them, the
/// rest spread over brokers 2-10 as evenly as they go; every partition's
/// follower is another broker. Leader band [90, 110], target [93, 107].
ClusterModel leaders_skewed(int first) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 10; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 1000; i++) {
        const int32_t leader = i < first ? 1 : 2 + (i - first) % 9;
        const int32_t follower = leader == 1 ? 2 + i % 9 : (leader == 10 ? 1 : leader + 1);
        builder.partition({leader, follower}, 0.1 * mib, 0.1 * mib, 1 * gib);
    }
    return builder.build();
}

/// Once a broker is outside the leader band, the goal brings every broker
/// inside the target, not to the band's edges (as the network goals do);
/// a broker inside the band but outside the target sets nothing off.
TEST(LeaderCountDistributionGoal, OnceABrokerIsOutsideTheBandEveryBrokerEndsInsideTheTarget) {
    const PlannerConfig config = only({GoalKind::leader_count_distribution});
    const ClusterModel skewed = leaders_skewed(200);
    const Plan result = plan(skewed, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    for (const Action& action : result.actions) EXPECT_EQ(action.kind, ActionKind::leader);
    const std::vector<int32_t> after = leader_counts(apply(skewed, result, config.flavor));
    for (size_t b = 0; b < after.size(); b++) {
        EXPECT_GE(after[b], 93) << "broker index " << b;
        EXPECT_LE(after[b], 107) << "broker index " << b;
    }
    // Broker 1 leads 109: inside the band, outside the target.
    const ClusterModel near = leaders_skewed(109);
    ASSERT_EQ(leader_counts(near)[0], 109);
    EXPECT_TRUE(plan(near, config).actions.empty());
}

/// What `kind`'s goal did, run alone on a model after a goal before it
/// touched one partition.
struct AfterTouch {
    std::vector<uint32_t> copied;  // the partitions whose replicas it copied, in order
    bool satisfied_before = false;
    bool satisfied_after = false;
};

/// Partition `p`, on brokers 2 and 1, is touched first: by a copy of its
/// replica on broker 2 to broker 3 (`copy`), or by a leadership change
/// from broker 2 to broker 1, which copies nothing.
AfterTouch run_after_touching(const ClusterModel& model, GoalKind kind, uint32_t p, bool copy) {
    const PlannerConfig config = only({kind});  // the state keeps a reference
    const std::unique_ptr<Goal> goal = make_goal(kind);
    PlanningState state(model, config, kind == GoalKind::topic_spread);
    Findings findings(16);
    GoalContext context(state, kind, {goal.get()}, findings);
    if (copy) {
        state.apply(state.move(p, broker_2, broker_3, false), GoalKind::network_in_usage_distribution);
    } else {
        state.apply(state.leader_change(p, broker_2, broker_1), GoalKind::leader_count_distribution);
    }
    AfterTouch result;
    result.satisfied_before = goal->satisfied(state);
    goal->optimize(context);
    result.satisfied_after = goal->satisfied(state);
    for (const Action& a : state.actions()) {
        if (a.goal == kind && a.kind != ActionKind::leader) result.copied.push_back(a.partition);
    }
    return result;
}

/// Broker 1 holds six of eight replicas: the replica count goal sheds
/// three, lightest in network first, and the lightest is a 60 GiB replica
/// (partition 0). Partition 6, on brokers 1 and 2, is touched by a goal
/// before it either way. When that was a leadership change, nothing was
/// copied: partition 0 moves. When it was a copy, partition 0 waits for a
/// later plan (60 GiB against a mean of 8.4) and small ones move instead.
TEST(ReplicaCountGoal, LeavesALargeCopyForALaterPlanOnlyOnceAGoalBeforeItCopied) {
    ModelBuilder builder(now_ms);
    for (int id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    builder.partition({1}, 0.1 * mib, 0, 60 * gib);  // 0: lightest, largest
    for (int i = 1; i <= 5; i++) builder.partition({1}, 1 * mib, 0, 1 * gib);  // 1-5
    builder.partition({2, 1}, 1 * mib, 0, 1 * gib);  // 6: touched before the goal runs
    const ClusterModel model = builder.build();
    for (const bool copied_before : {false, true}) {
        SCOPED_TRACE(copied_before ? "a copy before" : "a leadership change before");
        const AfterTouch run = run_after_touching(model, GoalKind::replica_count_distribution, 6, copied_before);
        EXPECT_FALSE(run.copied.empty());
        const bool large_copied = std::find(run.copied.begin(), run.copied.end(), 0u) != run.copied.end();
        EXPECT_EQ(large_copied, !copied_before);
        EXPECT_TRUE(run.satisfied_after) << "the small replicas even the counts";
    }
}

/// Topic t: broker 1 holds five of its seven replicas and sheds one, the
/// fewest bytes first; broker 3 holds none. Its small replica (partition
/// 0, also on broker 2) is touched by a goal before it. After a leadership
/// change the goal copies a 60 GiB replica; after a copy, those exceed
/// half the topic's mean partition size and wait for a later plan.
TEST(TopicSpreadGoal, LeavesLargeCopiesForALaterPlanOnlyOnceAGoalBeforeItCopied) {
    ModelBuilder builder(now_ms);
    for (int id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    builder.partition({2, 1}, 1 * mib, 0, 1 * gib);                            // 0
    for (int i = 1; i <= 4; i++) builder.partition({1}, 1 * mib, 0, 60 * gib);  // 1-4
    builder.partition({2}, 1 * mib, 0, 1 * gib);                               // 5
    const ClusterModel model = builder.build();
    for (const bool copied_before : {false, true}) {
        SCOPED_TRACE(copied_before ? "a copy before" : "a leadership change before");
        const AfterTouch run = run_after_touching(model, GoalKind::topic_spread, 0, copied_before);
        ASSERT_FALSE(run.satisfied_before);
        if (copied_before) {
            EXPECT_TRUE(run.copied.empty());
        } else {
            ASSERT_FALSE(run.copied.empty());
            EXPECT_GE(run.copied.front(), 1u);
            EXPECT_LE(run.copied.front(), 4u);
        }
    }
}

/// Three brokers in three racks, as a small Kafka cluster stands after a
/// broker came back: `internal` has RF 3 partitions, led by brokers 1, 2
/// and 3 as `leaders_on` says, whose replicas no move can take anywhere
/// (every broker holds one); `single`, twelve RF 1 partitions (each its own
/// leader), `on_1` of them on broker 1 and the rest on brokers 2 and 3.
ClusterModel restarted_cluster(std::vector<int32_t> leaders_on, int on_1) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b", "c"});
    for (int32_t id = 1; id <= 3; id++) builder.broker(id, static_cast<uint32_t>(id - 1));
    builder.topic("internal");
    for (int32_t leader = 1; leader <= 3; leader++) {
        for (int i = 0; i < leaders_on[leader - 1]; i++) {
            std::vector<int32_t> replicas{leader};
            for (int32_t other = 1; other <= 3; other++) {
                if (other != leader) replicas.push_back(other);
            }
            builder.partition(replicas, 0, 0, 1 * mib);  // lighter than every `single` one
        }
    }
    builder.topic("single");
    for (int i = 0; i < 12; i++) builder.partition({i < on_1 ? 1 : 2 + (i + 1) % 2}, 0.01 * mib, 0.01 * mib, 1 * mib);
    return builder.build();
}

/// Per broker index: the replicas of topic `t` (test_support::replica_counts
/// counts every topic's).
std::vector<int32_t> topic_replica_counts(const ClusterModel& model, uint32_t t) {
    std::vector<int32_t> counts(model.brokers.size(), 0);
    for (uint32_t p = 0; p < model.partitions.size(); p++) {
        if (model.partitions[p].topic != t) continue;
        for (const int32_t id : test_support::replicas_of(model, p)) {
            for (size_t b = 0; b < model.brokers.size(); b++) counts[b] += model.brokers[b].id == id;
        }
    }
    return counts;
}

/// Broker 1 holds 12 + 10 replicas against 12 + 1 on each other broker:
/// above the band [14, 18]. Its lightest replicas (the internal ones) are
/// held by every broker and can go nowhere: they do not end the walk as
/// replicas a partner's rack refuses would, and the single ones move.
TEST(ReplicaCountGoal, WalksPastReplicasThePartnerHoldsToTheOnesThatCanMove) {
    const PlannerConfig config = only({GoalKind::rack_aware, GoalKind::replica_count_distribution});
    const ClusterModel model = restarted_cluster({4, 4, 4}, 10);
    ASSERT_EQ(test_support::replica_counts(model), (std::vector<int32_t>{22, 13, 13}));
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    for (const Action& action : result.actions) EXPECT_EQ(model.partitions[action.partition].topic, 1u);
    const std::vector<int32_t> after = test_support::replica_counts(apply(model, result, config.flavor));
    for (size_t b = 0; b < after.size(); b++) {
        EXPECT_GE(after[b], 14) << "broker index " << b;
        EXPECT_LE(after[b], 18) << "broker index " << b;
    }
}

/// Broker 1 leads 9 single partitions and 1 internal one, brokers 2 and 3
/// twelve each: 10 is the bottom of the leader band [10, 13], so no single
/// partition may leave broker 1 alone (each is its own leader), and the
/// leader goal, satisfied, hands it nothing. The topic goal moves them
/// anyway, each together with a leadership broker 1 follows handed back to
/// it, and both goals end met.
TEST(TopicSpreadGoal, SpreadsLeadersOffABrokerAtTheBottomOfTheLeaderBandByHandingLeadershipBack) {
    const PlannerConfig config =
        only({GoalKind::rack_aware, GoalKind::leader_count_distribution, GoalKind::topic_spread});
    const ClusterModel model = restarted_cluster({1, 10, 11}, 9);
    ASSERT_EQ(leader_counts(model), (std::vector<int32_t>{10, 12, 12}));
    ASSERT_EQ(topic_replica_counts(model, 1), (std::vector<int32_t>{9, 2, 1}));
    const Plan result = plan(model, config);
    ASSERT_EQ(result.status, Plan::Status::actions_planned);
    EXPECT_TRUE(result.violated_after.empty());
    size_t handed_back = 0;
    for (const Action& action : result.actions) {
        handed_back += action.kind == ActionKind::leader && action.goal == GoalKind::topic_spread;
    }
    EXPECT_GT(handed_back, 0u);
    const ClusterModel after = apply(model, result, config.flavor);
    for (const int32_t count : topic_replica_counts(after, 1)) {
        EXPECT_GE(count, 2);
        EXPECT_LE(count, 6);
    }
    for (const int32_t count : leader_counts(after)) {
        EXPECT_GE(count, 10);
        EXPECT_LE(count, 13);
    }
}

}  // namespace
}  // namespace ballast::goals
