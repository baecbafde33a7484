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

}  // namespace
}  // namespace ballast::goals
