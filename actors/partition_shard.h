#pragma once

/// The partitions' actors. Each partition's state is one record in the
/// partition table, written by exactly one actor: the partition shard that
/// owns its slot (slot % shard count). A shard applies the updates the
/// router cuts out of events (replicas, leader and ISR changes; load
/// samples; completed moves; deletion) to its partitions' records in
/// sequence order, and counts them as applied, in their epoch, so a barrier
/// knows when the partitions are caught up with it.
///
/// Why shards and not one CAF actor per partition: on this 2-core machine
/// CAF delivers at most 0.71-0.83 M messages a second to 1M actors using
/// both cores for nothing else (one activation, a scheduler queue push and
/// pop, a mailbox round per message), so a metrics flood of 500,000
/// events/s would spend most of the machine on delivery before any work. So
/// the router sends each shard one message per routed batch with all of
/// that batch's updates for its partitions; per partition the rules are
/// those of an actor per partition: one writer, updates in routing order.
/// actors/README.md has the numbers.

#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/messages.h"
#include "actors/partition_table.h"

namespace ballast::actors {

/// Shards per engine. Two CAF workers apply them side by side; more shards
/// only split each routed batch into more, smaller messages. Changes no
/// decision: a partition's updates arrive in order in any shard.
inline constexpr uint32_t partition_shard_count = 4;

inline uint32_t shard_of(uint32_t slot) { return slot % partition_shard_count; }

struct PartitionShardState {
    static inline const char* name = "partition_shard";
    PartitionTable* table = nullptr;
};

/// Applies each batch (one epoch's updates for slots of this shard, in
/// routing order) and tells the router when a counter it waits for is
/// reached.
caf::behavior partition_shard_actor(caf::stateful_actor<PartitionShardState>* self,
                                    PartitionTable* table, caf::actor router);

/// Applies one update to a record. Pure, so tests and recovery can use it.
void apply_partition_update(PartitionRecord& record, const PartitionUpdate& update);

}  // namespace ballast::actors
