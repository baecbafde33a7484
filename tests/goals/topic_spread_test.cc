/// A topic's spread and the bytes it costs: where the topic goal sends the
/// replica it sheds and which one it copies, and where the network goals
/// send a replica they shed when the same copy could land on several
/// light brokers.

#include <gtest/gtest.h>

#include <vector>

#include "goals/planner_types.h"
#include "goals/planning_state.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::mib;
using test_support::ModelBuilder;
using test_support::only;

constexpr int64_t now_ms = 100'000;
constexpr double gib = 1024.0 * 1024 * 1024;

/// Adds `count` partitions of the current topic on broker `id` (RF1), each
/// `in_per_s` in and `size_bytes` on disk.
void partitions_on(ModelBuilder& builder, int32_t id, int count, double in_per_s, double size_bytes) {
    for (int i = 0; i < count; i++) builder.partition({id}, in_per_s, 0, size_bytes);
}

/// Topic "pile": 6 of its 12 replicas on broker 1 (band [1, 5]): one must
/// go. Broker 1's smallest (1 GiB) carries 4 MiB/s in, its five others 10
/// GiB and 0.5 MiB/s each. Network in 104 / 104 / 98 / 94 MiB/s (mean 100,
/// target [93, 107]); broker 2 holds the fewest replicas overall, but the
/// small replica would take it to 108, past the target. Broker 3 takes it.
TEST(TopicSpreadGoal, CopiesTheSmallestReplicaThatAnyBrokerWithRoomMayTake) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("pile");
    builder.partition({1}, 4 * mib, 0, gib);
    partitions_on(builder, 1, 5, 0.5 * mib, 10 * gib);
    for (int32_t id = 2; id <= 4; id++) partitions_on(builder, id, 2, 0, gib);
    builder.topic("rest");  // 4 / 3 / 4 / 5 replicas: within its band
    partitions_on(builder, 1, 4, 97.5 / 4 * mib, gib);
    partitions_on(builder, 2, 3, 104.0 / 3 * mib, gib);
    partitions_on(builder, 3, 4, 98.0 / 4 * mib, gib);
    partitions_on(builder, 4, 5, 94.0 / 5 * mib, gib);
    const ClusterModel model = builder.build();
    const Plan result = plan(model, only({GoalKind::network_in_usage_distribution, GoalKind::topic_spread}));
    EXPECT_TRUE(result.violated_after.empty());
    ASSERT_EQ(result.actions.size(), 1u);
    const Action& action = result.actions.front();
    EXPECT_EQ(action.partition, 0u) << "copied " << model.partitions[action.partition].load.size_bytes / gib
                                    << " GiB instead of the 1 GiB replica";
    EXPECT_EQ(action.source, 1);
    EXPECT_NE(action.destination, 2);
}

/// Topic "pile": 5 / 2 / 2 / 0 replicas (mean 2.25, band [1, 4]): broker 1
/// sheds one and broker 4, below the band, needs one. Broker 2 holds the
/// fewest replicas overall, but the shed replica goes to broker 4: one move
/// mends both ends, where a move to broker 2 leaves broker 4 to be filled
/// by a second copy.
TEST(TopicSpreadGoal, ShedsToABrokerBelowTheTopicsBandFirst) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("pile");
    partitions_on(builder, 1, 5, 0, gib);
    partitions_on(builder, 2, 2, 0, gib);
    partitions_on(builder, 3, 2, 0, gib);
    builder.topic("rest");  // 3 / 2 / 3 / 5 (band [1, 5]): 8 / 4 / 5 / 5 replicas overall
    const int rest[] = {3, 2, 3, 5};
    for (int32_t id = 1; id <= 4; id++) partitions_on(builder, id, rest[id - 1], 0, gib);
    const Plan result = plan(builder.build(), only({GoalKind::topic_spread}));
    EXPECT_TRUE(result.violated_after.empty());
    ASSERT_EQ(result.actions.size(), 1u);
    EXPECT_EQ(result.actions.front().source, 1);
    EXPECT_EQ(result.actions.front().destination, 4);
}

/// Network in 130 / 84 / 86 / 100 MiB/s (mean 100): broker 1 must shed, and
/// only its 20 MiB/s replica of "hot" fits (its other two carry 55 MiB/s
/// each). Broker 2 is the lightest, but it already holds 3 of hot's 7
/// replicas, the top of hot's band; broker 3 holds 1. The copy is the same
/// either way: it goes to broker 3, and the topic goal has nothing to mend.
TEST(NetworkDistributionGoal, ShedsAReplicaToALightBrokerWhereItsTopicStaysInItsBand) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("base");
    partitions_on(builder, 1, 2, 55 * mib, gib);
    partitions_on(builder, 2, 1, 84 * mib, gib);
    partitions_on(builder, 3, 1, 86 * mib, gib);
    partitions_on(builder, 4, 1, 100 * mib, gib);
    builder.topic("hot");
    partitions_on(builder, 1, 1, 20 * mib, gib);
    partitions_on(builder, 2, 3, 0, gib);
    partitions_on(builder, 3, 1, 0, gib);
    partitions_on(builder, 4, 2, 0, gib);
    const ClusterModel model = builder.build();
    const Plan result = plan(model, only({GoalKind::network_in_usage_distribution, GoalKind::topic_spread}));
    ASSERT_EQ(result.actions.size(), 1u);
    const Action& action = result.actions.front();
    EXPECT_EQ(model.topics[model.partitions[action.partition].topic], "hot");
    EXPECT_EQ(action.goal, GoalKind::network_in_usage_distribution);
    EXPECT_EQ(action.source, 1);
    EXPECT_EQ(action.destination, 3);
}

/// Network in 96 / 60 / 60 / 60 MiB/s (mean 69, target [64.17, 73.83]):
/// broker 1 must shed at least 22.2 MiB/s. It holds all 8 replicas of
/// "crowd" (6 MiB/s and 10 GiB each; band [1, 3]) and 4 of "cheap" (12
/// MiB/s and 1 GiB each, the cheapest copies). Before the load goals the
/// topic goal moves five "crowd" replicas off it (30 MiB/s): one copy each
/// serves both goals, and the load goal has nothing left to move. Left to
/// the end, the load goal would copy two "cheap" replicas, and the five
/// "crowd" ones would still have to go.
TEST(TopicSpreadGoal, AnOverloadedBrokerShedsItsCrowdedTopicBeforeTheLoadGoalsMoveAnything) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("crowd");
    partitions_on(builder, 1, 8, 6 * mib, 10 * gib);
    builder.topic("cheap");
    partitions_on(builder, 1, 4, 12 * mib, gib);
    for (int32_t id = 2; id <= 4; id++) partitions_on(builder, id, 3, 20 * mib, gib);
    const ClusterModel model = builder.build();
    const Plan result = plan(model, only({GoalKind::network_in_usage_distribution, GoalKind::topic_spread}));
    EXPECT_TRUE(result.violated_after.empty());
    ASSERT_EQ(result.actions.size(), 5u);
    for (const Action& action : result.actions) {
        EXPECT_EQ(model.topics[model.partitions[action.partition].topic], "crowd");
        EXPECT_EQ(action.goal, GoalKind::topic_spread);
        EXPECT_EQ(action.source, 1);
    }
}

/// A topic's count on a broker, as topic_count_on answers it (from a dense
/// table when topics x brokers is small enough, else by a search of the
/// topic's holders), matches the holders list through moves and undos: on a
/// model small enough for the table and on one too large for it (4,300
/// one-partition topics on 1,000 brokers).
TEST(PlanningState, TopicCountsAgreeWithTheHoldersThroughMovesAndUndos) {
    for (const auto& [brokers, topics] : {std::pair{5, 3}, std::pair{1000, 4300}}) {
        ModelBuilder builder(now_ms);
        for (int id = 1; id <= brokers; id++) builder.broker(id);
        for (int t = 0; t < topics; t++) {
            builder.topic("t" + std::to_string(t));
            const int32_t first = 1 + t % brokers;
            builder.partition({first}, mib, 0, gib);
            builder.partition({first, 1 + (t + 1) % brokers}, mib, 0, gib);
        }
        const ClusterModel model = builder.build();
        const PlannerConfig config = only({GoalKind::topic_spread});
        PlanningState state(model, config, true);
        auto agree = [&] {
            for (uint32_t t = 0; t < state.topic_count(); t += state.topic_count() > 100 ? 97 : 1) {
                std::vector<int32_t> held(state.broker_count(), 0);
                for (const TopicBrokerCount& entry : state.topic_counts(t)) held[entry.broker] = entry.count;
                for (uint32_t b = 0; b < state.broker_count(); b++) {
                    if (state.topic_count_on(t, b) != held[b]) return false;
                }
            }
            return true;
        };
        ASSERT_TRUE(agree()) << brokers << " brokers";
        // Each topic's first partition goes to the next broker, then back.
        const uint32_t moved = std::min<uint32_t>(state.topic_count(), 50);
        for (uint32_t t = 0; t < moved; t++) {
            const uint32_t p = state.topic_partitions(t).first;
            const uint32_t from = state.replicas(p)[0];
            const uint32_t to = (from + 1) % state.broker_count();
            const int32_t on_from = state.topic_count_on(t, from);
            const int32_t on_to = state.topic_count_on(t, to);
            state.apply(state.move(p, from, to, false), GoalKind::topic_spread);
            ASSERT_EQ(state.topic_count_on(t, from), on_from - 1);
            ASSERT_EQ(state.topic_count_on(t, to), on_to + 1);
        }
        EXPECT_TRUE(agree()) << brokers << " brokers, after the moves";
        for (uint32_t t = 0; t < moved; t++) state.undo_last();
        EXPECT_TRUE(agree()) << brokers << " brokers, after the undos";
    }
}

}  // namespace
}  // namespace ballast::goals
