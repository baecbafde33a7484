#pragma once

/// One actor per partition. It applies the updates the router cuts out of
/// events (replicas, leader and ISR changes; load samples; completed moves;
/// deletion), in sequence order, into its record in the partition table,
/// and counts each one as applied, in its epoch, so a barrier knows when
/// the partitions are caught up with it.

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/messages.h"
#include "actors/partition_table.h"

namespace ballast::actors {

struct PartitionActorState {
    static inline const char* name = "partition";
    PartitionTable* table = nullptr;
    uint32_t slot = 0;
};

caf::behavior partition_actor(caf::stateful_actor<PartitionActorState>* self,
                              PartitionTable* table, uint32_t slot, caf::actor router);

/// Applies one update to a record. Pure, so tests and recovery can use it.
void apply_partition_update(PartitionRecord& record, const PartitionUpdate& update);

}  // namespace ballast::actors
