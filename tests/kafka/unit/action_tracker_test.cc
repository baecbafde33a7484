// The admin port's state machine for one action, walked path by path with
// hand-made answers from Kafka (ListPartitionReassignments) and reports
// from the poller.

#include <gtest/gtest.h>

#include "adapters/kafka/action_tracker.h"

namespace ballast::kafka {
namespace {

metadata::PartitionState part(std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    metadata::PartitionState p;
    p.replicas = std::move(replicas);
    p.leader = leader;
    p.isr = std::move(isr);
    return p;
}

events::Action move(std::vector<int32_t> before, std::vector<int32_t> after) {
    events::Action a;
    a.action_id = 7;
    a.kind = events::ActionKind::move;
    a.topic = "orders";
    a.partition = 3;
    a.replicas_before = std::move(before);
    a.replicas_after = std::move(after);
    return a;
}

metadata::ClusterState reported(std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    metadata::ClusterState s;
    s.topics["orders"].partitions[3] = part(std::move(replicas), leader, std::move(isr));
    s.topics["orders"].partitions[4] = part({2, 3}, 2, {2, 3});
    return s;
}

wire::messages::ListPartitionReassignmentsResponse listing(std::vector<int32_t> partitions) {
    wire::messages::ListPartitionReassignmentsResponse r;
    wire::messages::OngoingTopicReassignment t{"orders", {}};
    for (int32_t p : partitions) t.partitions.push_back({p, {}, {}, {}});
    if (!partitions.empty()) r.topics.push_back(t);
    return r;
}

constexpr int64_t abandon_ms = 30'000;

TEST(ActionTracker, AMoveCompletesOnlyWhenNotListedAndReportedAtTheTargetInSync) {
    TrackedAction t = track(move({1, 2}, {3, 2}), 1);
    std::string why;
    EXPECT_EQ(next_step(t, listing({3}), reported({1, 2}, 1, {1, 2}), 0, abandon_ms, &why), TrackStep::wait);
    // Kafka is done but the poller has not reported it yet: wait, the engine must see it first.
    EXPECT_EQ(next_step(t, listing({}), reported({1, 2}, 1, {1, 2}), 1000, abandon_ms, &why), TrackStep::wait);
    // Reported at the target but a replica out of sync: still waiting.
    EXPECT_EQ(next_step(t, listing({}), reported({3, 2}, 2, {2}), 2000, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({2, 3}, 2, {2, 3}), 3000, abandon_ms, &why), TrackStep::complete)
        << "the set counts for a move";
}

TEST(ActionTracker, AReassignmentThatEndsElsewhereIsAbandonedAfterTheGrace) {
    TrackedAction t = track(move({1, 2}, {3, 2}), 2);
    std::string why;
    EXPECT_EQ(next_step(t, listing({3}), reported({1, 2}, 1, {1, 2}), 0, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({1, 2}, 1, {1, 2}), 10'000, abandon_ms, &why), TrackStep::wait);
    // Listed again (someone restarted it): the grace starts over.
    EXPECT_EQ(next_step(t, listing({3}), reported({1, 2}, 1, {1, 2}), 20'000, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({1, 2}, 1, {1, 2}), 30'000, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({1, 2}, 1, {1, 2}), 59'999, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({1, 2}, 1, {1, 2}), 60'000, abandon_ms, &why),
              TrackStep::abandoned);
    EXPECT_EQ(why,
              "orders-3: no reassignment runs, yet the replicas are [1,2] (in sync [1,2]), not the target [3,2], "
              "after 30000 ms: cancelled or replaced outside Ballast, or a target replica is out of sync");
}

TEST(ActionTracker, ASwapCompletesWhenBothHalvesDo) {
    events::Action a = move({1, 2}, {3, 2});
    a.kind = events::ActionKind::swap;
    a.swap_topic = "orders";
    a.swap_partition = 4;
    a.swap_replicas_before = {2, 3};
    a.swap_replicas_after = {2, 1};
    TrackedAction t = track(a, 1);
    ASSERT_EQ(t.parts.size(), 2u);
    std::string why;
    metadata::ClusterState s = reported({3, 2}, 3, {3, 2});
    EXPECT_EQ(next_step(t, listing({4}), s, 0, abandon_ms, &why), TrackStep::wait);
    EXPECT_TRUE(t.parts[0].done);
    EXPECT_FALSE(t.parts[1].done);
    s.topics["orders"].partitions[4] = part({2, 1}, 2, {2, 1});
    EXPECT_EQ(next_step(t, listing({}), s, 1000, abandon_ms, &why), TrackStep::complete);
}

TEST(ActionTracker, ALeaderChangeReordersThenElectsThenWaitsForTheNewLeader) {
    events::Action a = move({1, 2}, {2, 1});
    a.kind = events::ActionKind::leader;
    TrackedAction t = track(a, 1);
    EXPECT_EQ(t.phase, TrackPhase::reordering);
    std::string why;
    // Same set, old order: not yet.
    EXPECT_EQ(next_step(t, listing({}), reported({1, 2}, 1, {1, 2}), 0, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({2, 1}, 1, {1, 2}), 500, abandon_ms, &why), TrackStep::elect);
    EXPECT_EQ(t.phase, TrackPhase::electing);
    EXPECT_EQ(next_step(t, listing({}), reported({2, 1}, 1, {1, 2}), 1000, abandon_ms, &why), TrackStep::wait);
    EXPECT_EQ(next_step(t, listing({}), reported({2, 1}, 2, {1, 2}), 1500, abandon_ms, &why), TrackStep::complete);
}

TEST(ActionTracker, AnElectionThatNeverShowsIsAbandoned) {
    events::Action a = move({1, 2}, {2, 1});
    a.kind = events::ActionKind::leader;
    TrackedAction t = track(a, 1);
    std::string why;
    ASSERT_EQ(next_step(t, listing({}), reported({2, 1}, 1, {1, 2}), 0, abandon_ms, &why), TrackStep::elect);
    EXPECT_EQ(next_step(t, listing({}), reported({2, 1}, 1, {1, 2}), 30'000, abandon_ms, &why), TrackStep::abandoned);
    EXPECT_EQ(why, "orders-3: broker 2 was elected but broker 1 still leads after 30000 ms");
}

}  // namespace
}  // namespace ballast::kafka
