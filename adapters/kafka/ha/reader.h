#pragma once

/// A standby's side of the replicated journal on Kafka: the committed runs
/// of the journal topic from a seq on, whether they are all read, the first
/// seq the topic holds, and the newest snapshot of the snapshots topic.
/// Reads `read_committed` only: a fenced writer's open transaction is
/// aborted, its messages stay in the log, and their seqs come again in the
/// next writer's runs; only committed ones may be read.
///
/// - `seek_after(seq)` finds the first committed run whose last seq is after
///   `seq` by bisection over offsets [log start, last stable offset): each
///   probe reads the first committed message at or after an offset
///   (committed runs are in seq order; an aborted message is never seen, so
///   a seq that an aborted transaction held and a later one holds again
///   cannot mislead it). About log2(offsets) probes of one small fetch each:
///   ~10-30 ms on 1,000 runs on loopback.
/// - `caught_up()`: the last stable offset (LSO) is asked of the leader
///   (ListOffsets with read_committed answers the LSO, not the high
///   watermark). The position after the last message read may stay short
///   of it for good: a trailing commit marker, an aborted transaction's
///   messages, are never handed out. So it is caught up when the position
///   reached the LSO, or when librdkafka's fetcher reported the end of the
///   partition at or past the LSO with no message waiting (the fetcher
///   steps over markers and aborted messages). A question it cannot settle
///   within `caught_up_wait_ms` answers false. Not a heuristic such as
///   "nothing came within a short poll", which could answer true while a
///   committed message was still on its way. The cost: after a commit's
///   marker the fetcher reports the end one fetch later, so a caught_up
///   right after reading a commit takes about fetch.wait.max.ms (50 ms).
/// - A commit is visible to readers once the transaction coordinator has
///   written its markers, a few ms after the writer's commit returned (more
///   under load): caught_up is true until then. Becoming the writer waits
///   for every earlier transaction to be complete, so after become_writer a
///   reader sees everything committed before.
/// - `newest_snapshot()` reads the snapshots topic backwards from its LSO in
///   windows of 16, 64, 256, ... offsets until it holds a complete snapshot
///   (snapshot_chunk.h); a part that fails its checks is skipped with a
///   warning naming its offset.
///
/// Not thread-safe: one thread (the node's) calls it.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "events/result.h"
#include "store/journal.h"

namespace ballast::kafka::ha {

namespace detail {
class CommittedReader;
}

/// How far a standby is behind the log, as `lag` measures it.
struct JournalLag {
    /// Everything committed has been read.
    bool caught_up = true;
    /// The last seq of the newest committed run, when not caught up.
    uint64_t newest_seq = 0;
    /// Events the newest committed run holds beyond the ones applied.
    uint64_t records = 0;
    /// The writer's time between the newest committed run and the last one
    /// read (both timestamps from the writer's clock, so no clock skew
    /// between machines enters it); -1 when a message had no timestamp.
    int64_t ms = 0;
};

struct KafkaJournalReaderOptions {
    std::string bootstrap_servers;
    /// librdkafka settings every connection gets on top of its own: how to
    /// reach a secured cluster (adapters/kafka/rdkafka_security.h makes them).
    std::vector<std::pair<std::string, std::string>> client_settings;
    std::string instance_id;  // client.id
    std::string journal_topic;
    std::string snapshots_topic;
    /// A group name librdkafka wants for an assigned consumer; never joined.
    std::string reader_group;
    /// The longest a probe or a request waits for the brokers.
    int64_t call_timeout_ms = 10'000;
    /// How long caught_up waits for the fetcher to show the end.
    int64_t caught_up_wait_ms = 500;
    /// Bounds on one read: runs and bytes (at least one run is returned).
    size_t read_runs_max = 64;
    size_t read_bytes_max = size_t{16} << 20;
};

class KafkaJournalReader {
public:
    static events::Result<std::unique_ptr<KafkaJournalReader>> create(KafkaJournalReaderOptions options);
    ~KafkaJournalReader();
    KafkaJournalReader(const KafkaJournalReader&) = delete;
    KafkaJournalReader& operator=(const KafkaJournalReader&) = delete;

    /// The next read returns committed runs holding seqs after `seq` (the
    /// first may begin at or before it).
    events::Status seek_after(uint64_t seq);
    /// Committed runs from the position on, waiting up to `timeout_ms` for
    /// the first; empty when none came.
    events::Result<std::vector<store::ShippedRun>> read(int64_t timeout_ms);
    /// Whether read has returned everything committed so far (see above).
    events::Result<bool> caught_up();
    /// The first seq of the first committed run the journal topic holds; 0
    /// when it holds none.
    events::Result<uint64_t> first_seq();
    /// The newest complete snapshot on the snapshots topic, if any.
    events::Result<std::optional<store::Snapshot>> newest_snapshot();

    /// How far behind the log the reader is, with `applied_seq` the last seq
    /// the standby's journal holds: caught_up, then (when behind) one
    /// ListOffsets and a read of the log's last few offsets for the newest
    /// committed run. For the status line, every few seconds, on the
    /// reader's thread.
    events::Result<JournalLag> lag(uint64_t applied_seq);

    /// The offset the next run is read from (for status and tests).
    int64_t position() const { return _next; }

private:
    struct Committed {
        int64_t offset = -1;
        int64_t timestamp_ms = -1;
        store::ShippedRun run;
    };
    explicit KafkaJournalReader(KafkaJournalReaderOptions options);
    /// The first committed message of the journal topic at or after `from`;
    /// none if there is none before `before` (a later one, or the end, came
    /// first).
    events::Result<std::optional<Committed>> first_committed(int64_t from, int64_t before);
    /// The next committed message from the reader, or none within `timeout_ms`.
    events::Result<std::optional<Committed>> next_run(int64_t timeout_ms);
    /// A message of the journal topic must be a run: the error names where.
    events::Status check_run(const Committed& message) const;

    KafkaJournalReaderOptions _options;
    std::unique_ptr<detail::CommittedReader> _reader;     // follows the position
    std::unique_ptr<detail::CommittedReader> _probe;      // seek_after's and first_seq's probes
    std::unique_ptr<detail::CommittedReader> _snapshots;  // newest_snapshot's
    bool _positioned = false;
    /// The offset after the last message read returned (or the position
    /// seek_after chose).
    int64_t _next = -1;
    /// The timestamp of the last message read returned; -1 before one.
    int64_t _read_timestamp_ms = -1;
    /// The highest end of partition the reader reported since the position
    /// was set: every committed message before it has arrived.
    int64_t _end_seen = -1;
    /// Messages that arrived but were not returned yet (a read's bound, or
    /// caught_up looking ahead).
    std::deque<Committed> _held;
};

}  // namespace ballast::kafka::ha
