#pragma once

/// The cluster as the planner sees it: flat, immutable arrays taken as of one
/// journal sequence number. The scheduler builds it from the broker and
/// partition actors' answers to a barrier; the planner only reads it.
///
/// Sizes (back of the envelope, 1,000,000 partitions RF3): `Partition` is 104
/// bytes -> 104 MB; `replicas` 3 x 4 bytes -> 12 MB; brokers are noise. The
/// scheduler keeps one copy and patches it, so a plan never copies it whole.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ballast::goals {

/// Rates in bytes per second, sizes in bytes.
struct Load {
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
    double size_bytes = 0;
    bool operator==(const Load&) const = default;
};

/// What a broker can carry. Zero means "unknown": the capacity goals ignore
/// a resource whose capacity is zero.
struct Capacity {
    double network_in_bytes_per_s = 0;
    double network_out_bytes_per_s = 0;
    double disk_bytes = 0;
    int32_t replicas_max = 0;
    bool operator==(const Capacity&) const = default;
};

enum class Liveness : uint8_t {
    alive = 0,  // registered and unfenced
    fenced,     // registered, fenced by the controller (or missing from metadata)
    gone,       // unregistered
};

struct Broker {
    int32_t id = -1;
    uint32_t rack = 0;               // index into ClusterModel::racks
    Liveness liveness = Liveness::alive;
    int64_t liveness_changed_ms = 0; // when liveness last changed
    int64_t metrics_time_ms = -1;    // sample time of the newest metrics from it; -1: never
    bool excluded = false;           // config or operator: no action touches it
    bool draining = false;           // operator drain: plan every replica away
    Capacity capacity;
    /// When it was last fenced, newest first (-1: not that often): repeated
    /// fencing raises its grace and makes it unstable (broker_stability.h).
    static constexpr size_t fence_history = 8;
    std::array<int64_t, fence_history> fenced_ms = {-1, -1, -1, -1, -1, -1, -1, -1};
    bool operator==(const Broker&) const = default;
};

struct Partition {
    uint32_t topic = 0;              // index into ClusterModel::topics
    int32_t partition = -1;
    uint32_t replica_begin = 0;      // into ClusterModel::replicas
    uint16_t replica_count = 0;      // the replication factor
    /// Bit i: replica i of its slice is out of the ISR (catching up, or on a
    /// broker that failed), so it cannot be elected leader: Kafka refuses a
    /// preferred election to it. Slices longer than 8: the rest count as in sync.
    uint8_t out_of_sync_slots = 0;
    int32_t leader = -1;             // broker id; -1: offline
    /// Whole-partition rates: bytes_in = what producers write, bytes_out =
    /// what consumers read; size of one replica. How that lands on brokers
    /// is `broker_load` below.
    Load load;
    int64_t last_moved_ms = -1;      // when a move of it last completed or started; -1: never
    /// The broker its last move took a replica off, and when (-1: none): a
    /// balancing move does not put it back there for a while (see
    /// PlannerConfig::return_block_ms).
    int32_t left_broker = -1;
    int64_t left_ms = -1;
    /// The broker that last lost its leadership, and when (-1: none): a
    /// balancing leader change does not hand it back for a while either.
    int32_t left_leader = -1;
    int64_t left_leader_ms = -1;
    /// Its moves keep ending unfinished: no action at all (not even an
    /// evacuation) until then; -1: not held. See the scheduler's backoff.
    int64_t held_until_ms = -1;
    bool in_flight = false;          // an action on it is running
    bool excluded = false;           // its topic is excluded
    bool operator==(const Partition&) const = default;
};

struct ClusterModel {
    uint64_t as_of_seq = 0;          // the journal seq the model reflects
    int64_t now_ms = 0;              // the engine's time (from Tick events)
    std::vector<std::string> topics; // sorted by name
    std::vector<std::string> racks;  // sorted; "" is the rack of brokers without one
    std::vector<Broker> brokers;     // sorted by id
    std::vector<Partition> partitions;  // sorted by (topic name, partition)
    std::vector<int32_t> replicas;   // broker ids; each partition's slice in preference order

    const int32_t* replicas_of(const Partition& p) const { return replicas.data() + p.replica_begin; }
    bool operator==(const ClusterModel&) const = default;
};

/// How one replica of `p` loads its broker (Cruise Control's model, which is
/// AutoMQ's when RF is 1): every replica takes the produce traffic in (the
/// leader from producers, followers by replication); the leader also sends
/// the consume traffic out plus one copy of the produce traffic per follower;
/// every replica holds the partition's size.
inline Load replica_load(const Partition& p, bool is_leader) {
    Load load;
    load.bytes_in_per_s = p.load.bytes_in_per_s;
    load.size_bytes = p.load.size_bytes;
    if (is_leader) {
        const double followers = p.replica_count > 0 ? p.replica_count - 1 : 0;
        load.bytes_out_per_s = p.load.bytes_out_per_s + followers * p.load.bytes_in_per_s;
    }
    return load;
}

}  // namespace ballast::goals
