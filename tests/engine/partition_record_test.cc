/// A partition record's history as metadata changes arrive
/// (apply_partition_update): which broker a change took a replica or the
/// leadership from, which the goals' return block reads.

#include <gtest/gtest.h>

#include <vector>

#include "actors/partition_shard.h"

namespace ballast::actors {
namespace {

PartitionUpdate changed(uint64_t seq, int64_t time_ms, std::vector<int32_t> replicas, int32_t leader,
                        std::vector<int32_t> isr) {
    PartitionUpdate u;
    u.kind = PartitionUpdate::Kind::changed;
    u.seq = seq;
    u.time_ms = time_ms;
    u.leader = leader;
    u.replica_count = static_cast<uint8_t>(replicas.size());
    u.isr_count = static_cast<uint8_t>(isr.size());
    std::copy(replicas.begin(), replicas.end(), u.replicas.begin());
    std::copy(isr.begin(), isr.end(), u.isr.begin());
    return u;
}

TEST(PartitionRecord, AHandedOverLeadershipIsRememberedForTheReturnBlock) {
    PartitionRecord r;
    apply_partition_update(r, changed(1, 1'000, {1, 2, 3}, 1, {1, 2, 3}));
    // A preferred election: broker 1 stays in sync and loses leadership.
    apply_partition_update(r, changed(2, 2'000, {2, 1, 3}, 2, {1, 2, 3}));
    EXPECT_EQ(r.left_leader, 1);
    EXPECT_EQ(r.left_leader_ms, 2'000);
}

TEST(PartitionRecord, AMoveThatTakesTheLeadersReplicaAwayIsRemembered) {
    PartitionRecord r;
    apply_partition_update(r, changed(1, 1'000, {1, 2, 3}, 1, {1, 2, 3}));
    // A reassignment replaces broker 1 with broker 4; broker 2 leads.
    apply_partition_update(r, changed(2, 2'000, {2, 3, 4}, 2, {2, 3, 4}));
    EXPECT_EQ(r.left_leader, 1);
    EXPECT_EQ(r.left_broker, 1);
}

TEST(PartitionRecord, LeadershipLostToAFailureDoesNotBlockItsReturn) {
    PartitionRecord r;
    apply_partition_update(r, changed(1, 1'000, {1, 2, 3}, 1, {1, 2, 3}));
    // Broker 1 is fenced: it leaves the ISR and broker 2 is elected.
    apply_partition_update(r, changed(2, 2'000, {1, 2, 3}, 2, {2, 3}));
    EXPECT_EQ(r.left_leader, -1);
    // Broker 2 then fails too, as the last in sync: the partition goes offline.
    apply_partition_update(r, changed(3, 3'000, {1, 2, 3}, -1, {2}));
    EXPECT_EQ(r.left_leader, -1);
    // A handover after a failure is remembered as before.
    apply_partition_update(r, changed(4, 4'000, {1, 2, 3}, 2, {1, 2, 3}));
    apply_partition_update(r, changed(5, 5'000, {3, 1, 2}, 3, {1, 2, 3}));
    EXPECT_EQ(r.left_leader, 2);
    EXPECT_EQ(r.left_leader_ms, 5'000);
}

}  // namespace
}  // namespace ballast::actors
