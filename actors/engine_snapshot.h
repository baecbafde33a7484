#pragma once

/// A snapshot of the engine's state as of one sequence number: enough to
/// start a fresh engine there and replay only the events after it. The
/// journal stores it as opaque bytes (with its own CRC32C); the layout is
/// below, versioned, little-endian, and every read is bounds-checked so a
/// damaged snapshot is an error naming what could not be read, never a crash.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "actors/messages.h"
#include "actors/partition_table.h"
#include "events/result.h"

namespace ballast::actors {

/// The router's clock and planning triggers.
struct RouterMemory {
    int64_t now_ms = 0;                  // engine time: the newest Tick
    int64_t last_plan_ms = -1;           // -1: never planned
    bool brokers_changed = false;        // plan at the next Tick
    int64_t replan_at_ms = INT64_MAX;    // a fenced broker's grace ends: plan then
    uint64_t last_seq = 0;               // the newest event routed
    uint64_t last_snapshot_seq = 0;
    /// The last round's gate held actions back: plan again as soon as the
    /// execution interval allows, not a whole detect interval later.
    bool more_to_do = false;
    /// The last round held actions back; a finished action frees room for them.
    bool held_last_round = false;
};

/// The scheduler's own state.
struct SchedulerMemory {
    uint64_t round = 0;           // planning rounds so far
    uint64_t next_action_id = 1;  // action ids are unique across the journal's life
    bool paused = false;
    std::set<int32_t> operator_excluded_brokers;
    std::set<std::string> operator_excluded_topics;
    std::set<int32_t> draining_brokers;
    /// What no action could fix, as last journaled: a change is journaled.
    std::vector<std::string> unfixable;
    /// The brokers the last plan treated differently than their liveness
    /// says ("ID: reason", goals::Plan::broker_notes), to say so on change.
    std::vector<std::string> broker_notes;
};

struct EngineSnapshot {
    uint64_t seq = 0;                         // the state includes every event up to this
    RouterMemory router;
    std::string config_properties;            // the effective configuration
    std::vector<std::string> topics;          // router topic index -> name
    std::vector<PartitionRecord> partitions;  // by slot
    std::vector<BrokerRecord> brokers;        // sorted by id
    ExecutorView executor;
    SchedulerMemory scheduler;
};

/// What the router hands over to be written: its capture, shared and immutable.
using SnapshotPtr = std::shared_ptr<const EngineSnapshot>;
/// The router's part of a capture, which the scheduler completes (and no
/// one else holds meanwhile).
using SnapshotDraftPtr = std::shared_ptr<EngineSnapshot>;

std::string encode_snapshot(const EngineSnapshot& snapshot);
/// The same bytes, handed to `sink` in pieces of about
/// `snapshot_piece_bytes` as they are made (the journal writes them as they
/// come: store::SnapshotWriter), so the encoding never sits in memory whole
/// (~160 MB at 1M partitions). Returns the first error the sink gave.
using SnapshotSink = std::function<events::Status(std::string_view)>;
inline constexpr size_t snapshot_piece_bytes = 1u << 20;
events::Status encode_snapshot(const EngineSnapshot& snapshot, const SnapshotSink& sink);
events::Result<EngineSnapshot> decode_snapshot(std::string_view bytes);

}  // namespace ballast::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::SchedulerMemory)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::SnapshotPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::SnapshotDraftPtr)
