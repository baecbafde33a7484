#pragma once

/// The partition table: one fixed-size record per partition, written only by
/// that partition's actor and read by the scheduler at a barrier.
///
/// Why shared slots instead of a reply message per partition: at 1,000,000
/// partitions a barrier that messages every partition actor and collects a
/// reply from each is 2,000,000 messages, measured at 1.2-1.8 s on this
/// machine, over the 1 s budget for barrier-to-plan. Here a partition actor
/// writes its slot whenever it applies an event, and a barrier only has to
/// know that every message the router sent has been applied: the router
/// counts what it sent, the actors count what they applied, and the last
/// actor to bring the two level tells the router. The memory ordering is
/// release (actor: slot write, then counter increment) / acquire (router and
/// scheduler: counter read, then slot reads), so the scheduler sees every
/// slot as of the barrier. Between barriers the scheduler reads nothing;
/// during a barrier the router holds later events, so no slot changes under
/// the reader. See actors/README.md for the numbers.

#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <vector>

namespace ballast::actors {

/// The most replicas a partition may have; Kafka's practical limit is far
/// lower (RF 3-5). A PartitionChanged with more is refused with an error.
inline constexpr uint32_t replicas_max = 8;

struct PartitionRecord {
    uint32_t topic = 0;          // index into the router's topic list
    int32_t partition = -1;
    int32_t leader = -1;
    uint8_t replica_count = 0;
    uint8_t isr_count = 0;
    bool exists = false;         // false once the topic is deleted
    std::array<int32_t, replicas_max> replicas{};
    std::array<int32_t, replicas_max> isr{};
    int32_t reporting_broker = -1;  // broker of the newest metrics sample
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
    double messages_in_per_s = 0;
    double size_bytes = 0;
    int64_t metrics_time_ms = -1;
    int64_t last_moved_ms = -1;  // when a move of it last completed
    int32_t left_broker = -1;    // the broker a metadata change last took a replica off
    int64_t left_ms = -1;        // ... and when
    int32_t left_leader = -1;    // the broker that last lost leadership of it
    int64_t left_leader_ms = -1; // ... and when
    uint64_t applied_seq = 0;    // the newest event applied
};

/// Records in chunks of 65,536 so that a slot's address never changes as
/// the table grows. Growing is done by the router only, before it tells the
/// new actor its slot, so readers never see a chunk being added.
class PartitionTable {
public:
    static constexpr uint32_t chunk_size = 1u << 16;

    /// Appends a zeroed slot; returns its index. Router only.
    uint32_t add() {
        const uint32_t index = _size;
        if (index % chunk_size == 0) _chunks.push_back(std::make_unique<Chunk>());
        _size++;
        return index;
    }

    uint32_t size() const { return _size; }

    PartitionRecord& at(uint32_t index) {
        assert(index < _size);
        return (*_chunks[index / chunk_size])[index % chunk_size];
    }
    const PartitionRecord& at(uint32_t index) const {
        assert(index < _size);
        return (*_chunks[index / chunk_size])[index % chunk_size];
    }

    /// Partition actors call this after each message they apply; returns
    /// the new count. Sequentially consistent with `set_drain_target`, so
    /// that of an actor levelling the count and the router setting the
    /// target, at least one sees the other (and both may: the router
    /// ignores a second notice).
    uint64_t applied_one() { return _applied.fetch_add(1, std::memory_order_seq_cst) + 1; }
    uint64_t applied() const { return _applied.load(std::memory_order_seq_cst); }

    /// The router: "tell me when `applied()` reaches `target`".
    void set_drain_target(uint64_t target) { _drain_target.store(target, std::memory_order_seq_cst); }
    uint64_t drain_target() const { return _drain_target.load(std::memory_order_seq_cst); }

private:
    using Chunk = std::array<PartitionRecord, chunk_size>;
    std::vector<std::unique_ptr<Chunk>> _chunks;
    uint32_t _size = 0;
    std::atomic<uint64_t> _applied{0};
    std::atomic<uint64_t> _drain_target{UINT64_MAX};
};

}  // namespace ballast::actors
