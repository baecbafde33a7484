#pragma once

/// The ports of high availability: what an instance needs of the log that
/// replicates the journal and of the election that picks the leader. Kafka
/// implements them (adapters/kafka/ha/journal_topic.h: a consumer group
/// elects, a one-partition topic written by a transactional producer holds
/// the journal), and so does the simulator (a shared log with Kafka's
/// fencing, for the deterministic tests); `HaNode` (ha_node.h) runs an
/// instance on them.
///
/// The rule that makes one leader safe: an event is published to the log,
/// and the publication committed, before the leader's own journal holds it
/// and before anything acts on it (store::Journal::append with a ShipRuns).
/// Becoming the writer fences every earlier writer, so a deposed leader's
/// next publication fails, and since an admin call waits for its intent's
/// publication, a deposed leader makes no admin call after its next one
/// fails. The lease (`may_act`) covers the call already on its way when a
/// process was paused: a leader that cannot show a publication committed
/// recently enough makes no admin call at all.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "events/result.h"
#include "store/journal.h"

namespace ballast::actors {

/// The leader's side of the replicated journal.
class JournalReplica {
public:
    virtual ~JournalReplica() = default;

    /// Publishes runs (in seq order, continuing what was published) and
    /// commits them: OK only once a reader of the log would see them. An
    /// error (fenced by a newer writer, the log unreachable within its
    /// timeout) means they may not be committed; the caller appends nothing
    /// and stops acting. Called by the journal actor.
    virtual events::Status publish(const std::vector<store::ShippedRun>& runs) = 0;

    /// Publishes the engine's snapshot at `seq` (every event up to seq is
    /// published already), so that an instance joining late starts from it.
    /// Called from the snapshot writer's thread, beside `publish`.
    virtual events::Status publish_snapshot(uint64_t seq, std::span<const uint8_t> bytes) = 0;

    /// Whether an admin call may be made now: the newest publication was
    /// committed within the lease, which is shorter than the time the
    /// election takes to give leadership to another instance (its session
    /// timeout less a heartbeat and a margin). A process paused past it
    /// (SIGSTOP, a long stall) finds it expired when it resumes.
    virtual bool may_act() const = 0;
};

/// The shared log and the election, as one instance sees them.
class HaLog {
public:
    virtual ~HaLog() = default;

    /// Whether the election names this instance the leader now (Kafka: the
    /// group assigned it the journal topic's partition).
    virtual bool elected() = 0;

    /// Makes this instance the log's only writer: every earlier writer is
    /// fenced (Kafka: InitProducerId with the group's transactional id,
    /// which also aborts a transaction the old leader left open). After it
    /// returns, `read` sees everything any earlier writer committed.
    virtual events::Status become_writer() = 0;
    /// The writer, once become_writer succeeded; null before.
    virtual JournalReplica* writer() = 0;
    /// Gives up writing (deposed, or stopping).
    virtual void drop_writer() = 0;

    /// Reading: the next `read` returns committed runs that hold seqs after
    /// `seq` (a run that begins at or before it may come back too).
    virtual events::Status seek_after(uint64_t seq) = 0;
    /// Committed runs from the read position on, in order, waiting up to
    /// `timeout_ms` for the first; empty when none came.
    virtual events::Result<std::vector<store::ShippedRun>> read(int64_t timeout_ms) = 0;
    /// Whether `read` has returned everything committed so far.
    virtual events::Result<bool> caught_up() = 0;

    /// The newest complete snapshot published to the log, if any.
    virtual events::Result<std::optional<store::Snapshot>> newest_snapshot() = 0;
    /// The first seq the log still holds (its retention cut what came
    /// before); 1 when it holds everything, and 0 when it holds nothing yet.
    virtual events::Result<uint64_t> first_seq() = 0;
};

}  // namespace ballast::actors
