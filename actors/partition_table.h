#pragma once

/// The partition table: one fixed-size record per partition, written only by
/// the partition shard that owns its slot (partition_shard.h) and read by
/// the scheduler at a barrier.
///
/// Why shared slots instead of a reply message per partition: at 1,000,000
/// partitions a barrier that messages every partition actor and collects a
/// reply from each is 2,000,000 messages, measured at 1.2-1.8 s on this
/// machine, over the 1 s budget for barrier-to-plan. Here a shard writes a
/// slot whenever it applies an update, and a barrier only has to know that
/// every update the router sent has been applied: the router counts what it
/// sent, the shards count what they applied, and the shard whose batch
/// brings the two level tells the router. A barrier does not stop the
/// shards: the table keeps each slot's record as of the last barrier beside
/// the live one while its shard runs ahead (epochs, below), so routing goes
/// on while the scheduler reads. See actors/README.md for the numbers.

#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#include "actors/load_window.h"

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
    double bytes_in_per_s = 0;   // the load planned with: the window's aggregate (load_window.h)
    double bytes_out_per_s = 0;
    double messages_in_per_s = 0;  // these two: the newest sample's
    double size_bytes = 0;
    int64_t metrics_time_ms = -1;
    int64_t last_moved_ms = -1;  // when a move of it last completed
    int32_t left_broker = -1;    // the broker a metadata change last took a replica off
    int64_t left_ms = -1;        // ... and when
    int32_t left_leader = -1;    // the broker that last lost leadership of it
    int64_t left_leader_ms = -1; // ... and when
    uint64_t applied_seq = 0;    // the newest event applied
    LoadWindow window;           // the samples' rates over ballast.metrics.window.ms
};

/// Records in chunks of 65,536 so that a slot's address never changes as
/// the table grows. Growing is done by the router only, before it tells the
/// new actor its slot; the chunk list never reallocates (reserved for the
/// most slots a table can hold), so a reader indexing it while the router
/// adds a chunk reads only pointers that are already set.
///
/// Epochs: a barrier reads the table as of its event without stopping the
/// partition actors. The router numbers the stretches of the stream between
/// barriers (epochs) and tags every partition message with the current one.
/// A barrier closes epoch e: messages routed after it belong to e + 1. A
/// reader of epoch e waits until every message of epoch e is applied (a
/// counter per epoch, like the drain counter), then reads each slot with
/// `read(slot, e)`. The actor, on the first message of a newer epoch for
/// its slot, first copies the record aside (`frozen`) and then applies: so
/// a slot whose actor already ran ahead into e + 1 still shows the reader
/// its state as of e. Only one barrier reads at a time and the next one
/// starts only after the read (the router's barrier ends after the
/// scheduler's decision), so a slot is never more than one epoch ahead of
/// its reader. A per-slot spin lock, held for one copy or one update, keeps
/// reader and writer off the same record at the same moment. The copy is
/// made only while the barrier's read is still to finish (`mark_read`), and
/// a chunk's second array only when a copy first needs it: a barrier that
/// nothing runs ahead of costs no memory (engine_bench's 1M-partition RSS).
class PartitionTable {
public:
    static constexpr uint32_t chunk_size = 1u << 16;
    static constexpr uint32_t chunks_max = 1u << 14;  // 2^30 slots

    PartitionTable() { _chunks.reserve(chunks_max); }

    /// Appends a zeroed slot; returns its index. Router only.
    uint32_t add() {
        const uint32_t index = _size.load(std::memory_order_relaxed);
        if (index % chunk_size == 0) {
            assert(_chunks.size() < chunks_max);
            _chunks.push_back(std::make_unique<Chunk>());
        }
        _size.store(index + 1, std::memory_order_release);
        return index;
    }

    uint32_t size() const { return _size.load(std::memory_order_acquire); }

    /// The live record, unguarded: for the single-threaded moments (restore
    /// before any actor runs, tests once the actors are idle) and for the
    /// fields that never change after `add` (topic, partition).
    PartitionRecord& at(uint32_t index) { return chunk(index).live[index % chunk_size]; }
    const PartitionRecord& at(uint32_t index) const { return chunk(index).live[index % chunk_size]; }

    /// The slot's actor: applies `update` to the live record as a message of
    /// `epoch`, setting the record as of the older epoch aside first.
    template <typename Apply>
    void write(uint32_t index, uint32_t epoch, Apply&& apply) {
        Chunk& c = chunk(index);
        const uint32_t i = index % chunk_size;
        Guard guard(c.lock[i]);
        // Per slot, messages arrive in routing order: epochs never go back.
        assert(epoch >= c.epoch[i]);
        if (epoch > c.epoch[i]) {
            // The one reader the old state may still have is the barrier
            // that closed epoch - 1.
            if (epoch > _read_through.load(std::memory_order_acquire)) {
                std::construct_at(frozen_of(c) + i, c.live[i]);
            }
            c.epoch[i] = epoch;
        }
        apply(c.live[i]);
    }

    /// A reader of epoch `epoch` (after every message of it was applied):
    /// calls `f` with the record as of the end of that epoch, under the
    /// slot's lock (keep `f` short: the slot's actor waits).
    template <typename F>
    void visit(uint32_t index, uint32_t epoch, F&& f) const {
        const Chunk& c = chunk(index);
        const uint32_t i = index % chunk_size;
        Guard guard(c.lock[i]);
        if (c.epoch[i] <= epoch) {
            f(c.live[i]);
        } else {
            // The actor ran ahead, at most into the next epoch, and set the
            // record aside: this read had not finished (see above).
            assert(c.epoch[i] == epoch + 1);
            const PartitionRecord* frozen = c.frozen.load(std::memory_order_acquire);
            assert(frozen != nullptr);
            f(frozen[i]);
        }
    }
    PartitionRecord read(uint32_t index, uint32_t epoch) const {
        PartitionRecord out;
        visit(index, epoch, [&](const PartitionRecord& r) { out = r; });
        return out;
    }

    /// The reader: every slot it needs as of `epoch` is read; actors stop
    /// setting records aside for it.
    void mark_read(uint32_t epoch) const { _read_through.store(epoch + 1, std::memory_order_release); }

    // ------------------------------------------------------------ counters

    /// Partition shards call this after each batch of `count` updates they
    /// apply; returns the drain target when the batch brought the count to
    /// it (the shard then tells the router), else 0 (no target is 0).
    /// Sequentially consistent with `set_drain_target`, so that of a shard
    /// reaching the target and the router setting it, at least one sees the
    /// other (and both may: the router ignores a second notice). Used for
    /// flow control and idle.
    uint64_t applied_add(uint64_t count) {
        const uint64_t after = _applied.fetch_add(count, std::memory_order_seq_cst) + count;
        const uint64_t target = _drain_target.load(std::memory_order_seq_cst);
        return after - count < target && target <= after ? target : 0;
    }
    uint64_t applied() const { return _applied.load(std::memory_order_seq_cst); }

    /// The router: "tell me when `applied()` reaches `target`".
    void set_drain_target(uint64_t target) { _drain_target.store(target, std::memory_order_seq_cst); }
    uint64_t drain_target() const { return _drain_target.load(std::memory_order_seq_cst); }

    /// The router's current epoch: the one its messages are tagged with.
    uint32_t epoch() const { return _epoch; }

    /// The router, at a barrier: epoch `epoch()` ends after `sent` messages;
    /// later messages belong to the next one. Returns the closed epoch.
    /// The next epoch's counter is the one of the epoch before the closed
    /// one, whose messages were all applied (its barrier waited for them).
    uint32_t close_epoch(uint64_t sent) {
        const uint32_t closed = _epoch;
        Epoch& next = _epochs[(closed + 1) % 2];
        next.applied.store(0, std::memory_order_seq_cst);
        next.target.store(UINT64_MAX, std::memory_order_seq_cst);
        _epochs[closed % 2].target.store(sent, std::memory_order_seq_cst);
        _epoch = closed + 1;
        return closed;
    }

    /// Partition shards, after each batch: counts its `count` updates in
    /// their epoch and returns whether they were the epoch's last (then the
    /// shard tells the router). Like `applied_add`, the router may hear twice.
    bool applied_in_epoch(uint32_t epoch, uint64_t count) {
        Epoch& e = _epochs[epoch % 2];
        const uint64_t after = e.applied.fetch_add(count, std::memory_order_seq_cst) + count;
        const uint64_t target = e.target.load(std::memory_order_seq_cst);
        return after - count < target && target <= after;
    }
    /// The router, after `close_epoch`: are all of the closed epoch's
    /// messages applied already?
    bool epoch_drained(uint32_t epoch) const {
        const Epoch& e = _epochs[epoch % 2];
        return e.applied.load(std::memory_order_seq_cst) >= e.target.load(std::memory_order_seq_cst);
    }

private:
    /// A spin lock held for one record copy or one update: the reader is one
    /// actor visiting each slot once per barrier, so waits are rare and short.
    struct Guard {
        explicit Guard(std::atomic<uint8_t>& flag) : _flag(flag) {
            while (_flag.exchange(1, std::memory_order_acquire)) {
                while (_flag.load(std::memory_order_relaxed)) std::this_thread::yield();
            }
        }
        ~Guard() { _flag.store(0, std::memory_order_release); }
        std::atomic<uint8_t>& _flag;
    };
    // The second array is raw storage: a record is copied in
    // (std::construct_at) before a reader can look at it, so nothing is
    // constructed or zeroed up front, and its pages are faulted in one at a
    // time as records are first set aside. Constructed whole, each chunk's
    // array (~19 MB) would be faulted in at once by the shard that first
    // needs it: at 1M partitions the first round after start would fault in
    // ~300 MB in one go, a stall of the stream of tens of ms.
    static_assert(std::is_trivially_copyable_v<PartitionRecord>);
    static_assert(std::is_trivially_destructible_v<PartitionRecord>);
    struct Chunk {
        std::array<PartitionRecord, chunk_size> live;
        std::atomic<PartitionRecord*> frozen{nullptr};  // as of the epoch before `epoch`; on first need
        std::array<uint32_t, chunk_size> epoch{};       // of the newest message applied
        mutable std::array<std::atomic<uint8_t>, chunk_size> lock{};
        ~Chunk() { ::operator delete(frozen.load()); }
    };
    /// The chunk's second array, made by the first actor that needs it (two
    /// may race: one wins, the other frees its copy).
    static PartitionRecord* frozen_of(Chunk& c) {
        PartitionRecord* frozen = c.frozen.load(std::memory_order_acquire);
        if (frozen != nullptr) return frozen;
        auto* fresh = static_cast<PartitionRecord*>(::operator new(sizeof(PartitionRecord) * chunk_size));
        if (c.frozen.compare_exchange_strong(frozen, fresh, std::memory_order_acq_rel)) return fresh;
        ::operator delete(fresh);
        return frozen;
    }
    struct Epoch {
        std::atomic<uint64_t> applied{0};  // on the counters' line
        std::atomic<uint64_t> target{UINT64_MAX};
    };

    Chunk& chunk(uint32_t index) {
        assert(index < size());
        return *_chunks[index / chunk_size];
    }
    const Chunk& chunk(uint32_t index) const {
        assert(index < size());
        return *_chunks[index / chunk_size];
    }

    // The router's fields, the actors' counters and the targets on cache
    // lines of their own: every apply writes the counters.
    std::vector<std::unique_ptr<Chunk>> _chunks;
    std::atomic<uint32_t> _size{0};
    uint32_t _epoch = 0;  // router only
    mutable std::atomic<uint32_t> _read_through{0};  // epochs below it are read
    alignas(64) std::atomic<uint64_t> _applied{0};
    std::array<Epoch, 2> _epochs;
    alignas(64) std::atomic<uint64_t> _drain_target{UINT64_MAX};
};

}  // namespace ballast::actors
