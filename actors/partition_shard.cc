#include "actors/partition_shard.h"

#include <algorithm>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "actors/supervision.h"

namespace ballast::actors {

void apply_partition_update(PartitionRecord& record, const PartitionUpdate& update) {
    // The router delivers one sender's messages in order, so seqs only grow.
    assert(update.seq >= record.applied_seq);
    switch (update.kind) {
        case PartitionUpdate::Kind::changed: {
            // The router refuses replica lists longer than replicas_max.
            assert(update.replica_count <= replicas_max && update.isr_count <= replicas_max);
            // A broker that drops out of the replicas is one the partition left.
            if (record.exists) {
                for (uint8_t i = 0; i < record.replica_count; i++) {
                    const int32_t id = record.replicas[i];
                    if (std::find(update.replicas.begin(), update.replicas.begin() + update.replica_count, id) ==
                        update.replicas.begin() + update.replica_count) {
                        record.left_broker = id;
                        record.left_ms = update.time_ms;
                        break;
                    }
                }
            }
            // A leader that lost leadership because it failed (the change keeps
            // it a replica but drops it from the ISR, or leaves the partition
            // offline) is not what the return block is for: the block stops
            // goals trading leadership A -> B -> A, while a broker back from a
            // restart is the cheapest home for the leadership it lost; blocked,
            // it got it back only after the block while the others carried its
            // network out. A move that takes the leader's replica away is a
            // goal's doing, and is remembered.
            auto lists = [](const auto& ids, uint8_t count, int32_t id) {
                return std::find(ids.begin(), ids.begin() + count, id) != ids.begin() + count;
            };
            const bool leader_failed = update.leader < 0 || (lists(update.replicas, update.replica_count, record.leader) &&
                                                             !lists(update.isr, update.isr_count, record.leader));
            if (record.exists && record.leader >= 0 && update.leader != record.leader && !leader_failed) {
                record.left_leader = record.leader;
                record.left_leader_ms = update.time_ms;
            }
            record.exists = true;
            record.leader = update.leader;
            record.replica_count = update.replica_count;
            record.replicas = update.replicas;
            record.isr_count = update.isr_count;
            record.isr = update.isr;
            break;
        }
        case PartitionUpdate::Kind::sample:
            // Samples can arrive late: an older sample never replaces a newer one.
            if (update.sample_time_ms < record.metrics_time_ms) break;
            record.window.take(update.window_bucket_ms, update.window_percentile, update.sample_time_ms,
                               update.sample.bytes_in_per_s, update.sample.bytes_out_per_s,
                               &record.bytes_in_per_s, &record.bytes_out_per_s);
            record.messages_in_per_s = update.sample.messages_in_per_s;
            record.size_bytes = static_cast<double>(update.sample.size_bytes);
            record.metrics_time_ms = update.sample_time_ms;
            record.reporting_broker = update.reporting_broker;
            break;
        case PartitionUpdate::Kind::moved: record.last_moved_ms = update.time_ms; break;
        case PartitionUpdate::Kind::deleted: record.exists = false; break;
    }
    record.applied_seq = update.seq;
}

caf::behavior partition_shard_actor(caf::stateful_actor<PartitionShardState>* self,
                                    PartitionTable* table, caf::actor router) {
    end_with_exception_text(self);
    self->state.table = table;
    return {
        [=](apply_atom, const PartitionBatch& updates) {
            assert(!updates.empty());
            PartitionTable& table = *self->state.table;
            const uint32_t epoch = updates.front().epoch;
            for (const PartitionUpdate& update : updates) {
                // The router sends a batch per epoch, to the shard of each slot.
                assert(update.epoch == epoch && shard_of(update.slot) == shard_of(updates.front().slot));
                table.write(update.slot, epoch,
                            [&](PartitionRecord& record) { apply_partition_update(record, update); });
            }
            // The shard whose batch reaches a counter's target tells the
            // router (see partition_table.h): the total for flow control and
            // idle, the epoch's for a barrier.
            const uint64_t count = updates.size();
            if (const uint64_t target = table.applied_add(count)) self->send(router, drained_atom::value, target);
            if (table.applied_in_epoch(epoch, count)) self->send(router, epoch_atom::value, epoch);
        },
    };
}

}  // namespace ballast::actors
