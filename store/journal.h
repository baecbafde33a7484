#pragma once

/// The journal: Ballast's source of truth. Every event is appended here, with
/// the next sequence number, before anyone acts on it; the engine's state can
/// always be rebuilt from the newest snapshot plus the events after it.
///
/// Layout in RocksDB (one database per journal directory):
///   column family "default":   key = a run's first and last seq, 8
///                              big-endian bytes each; value = the run's
///                              event records (journal_record.h: one key
///                              per append, not per event)
///   column family "snapshots": key = seq as 8 big-endian bytes, then the
///                              part's index as 4 (parts of ~1 MiB, each a
///                              record of its own; snapshots written before
///                              parts are one record under the 8 bytes)
///   column family "partition_index": for each partition, the seqs of the
///                              events about it, and for each action the
///                              seqs of its outcomes, written in the
///                              append's own WriteBatch (journal_index.h)
/// Big-endian keys sort in sequence order, so a range read is one iterator
/// walk and the newest snapshot is the last key of its family.
///
/// Invariants (checked on open, kept by every write):
///   - sequence numbers are dense: every seq in [first_seq, last_seq] exists;
///   - a journal that does not start at seq 1 has a snapshot at seq >= first_seq - 1,
///     so nothing that was deleted is needed to rebuild state;
///   - every record read passes its CRC32C, the flatbuffers verifier, and
///     carries the seq of its key.
///
/// One writer at a time (RocksDB's directory lock enforces it across
/// processes); any number of concurrent readers.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/result.h"
#include "store/append_tally.h"
#include "store/latency_histogram.h"
#include "store/round_latency.h"

namespace rocksdb {
class DB;
class Env;
class ColumnFamilyHandle;
class CompactionFilter;
class SstFileWriter;
class WriteBatch;
}  // namespace rocksdb

namespace ballast::store {

using events::Error;
using events::ErrorCode;
using events::Result;
using events::Status;

/// How background threads run beside the stream (the engine's planner and
/// snapshot writer, RocksDB's memtable flushes and compactions). On 2 cores
/// they share the cores the stream needs, and under a storm an operator
/// feels the stream's latency, not how long a flush or a round takes. But
/// a lowered priority yields to every other process too (a broker beside
/// it, another test): only `ballast storm` lowers it.
enum class BackgroundPriority : uint8_t {
    normal,  ///< the stream's priority
    low,     ///< the engine's threads at nice 10 (RocksDB's untouched)
    idle,    ///< SCHED_IDLE: only the CPU time nothing else wants
};

struct JournalOptions {
    /// true: an append returns after its WriteBatch is fsynced (the
    /// `ballast.journal.sync` setting). false: after the OS has the bytes; a
    /// process crash loses nothing; a machine crash loses what the OS had not
    /// yet written back: at worst every append since the last memtable flush
    /// (only a flush syncs; tests/crash/journal_power_cut_test.cc), never a
    /// part of a batch and never an older append than a lost one.
    bool sync = true;
    /// Create the directory and database when missing.
    bool create_if_missing = true;
    /// Open without taking the writer's lock, for inspection while another
    /// process writes (`ballast log show`): no appends, no recovery writes,
    /// and the view is the journal as of open.
    bool read_only = false;
    /// Verify the tail on open: every record after the newest snapshot (the
    /// ones recovery replays). A failure stops the open with an error that
    /// names the sequence number.
    bool verify_tail = true;
    /// `idle` runs RocksDB's flush and compaction threads at SCHED_IDLE.
    /// Process-wide and for good: the threads belong to RocksDB's default
    /// environment, which every journal of the process shares. A flush of a
    /// 64 MiB memtable takes ~60-90 ms of a core; at the stream's priority
    /// it takes a core from a 500k events/s storm for that long, and the
    /// stream behind it waits (1M partitions, 30 s, the planner already at
    /// SCHED_IDLE: p99 arrival-to-applied 2.7-28.7 ms at normal priority,
    /// 1.6-2.1 ms at SCHED_IDLE; bench/README.md).
    BackgroundPriority background_priority = BackgroundPriority::normal;
    /// The file system under the journal; null: the OS's. Crash tests give
    /// a PowerCutFileSystem's (power_cut_fs.h). Must outlive the journal.
    rocksdb::Env* env = nullptr;
};

struct Snapshot {
    uint64_t seq = 0;  // the state includes every event up to and including seq
    std::string bytes;
};

/// The bounds retention keeps the journal within
/// (`ballast.journal.retention.ms` and `.bytes`). Either bound only ever
/// cuts at a snapshot, and never past the newest one.
struct RetentionPolicy {
    /// Events before the newest snapshot whose own event is older than this
    /// (before `now_ms`) may go. 0: everything before the newest snapshot.
    int64_t retention_ms = 0;
    /// What stays (events from the cut on and the snapshots at or after it,
    /// as RocksDB estimates their size) is kept at most this big by deleting
    /// the oldest first; the newest snapshot and its tail stay even when they
    /// alone are bigger. 0: no size bound.
    uint64_t retention_bytes = 0;
    /// Snapshots between the journal's first and its newest are kept at
    /// least this far apart by their events' times: only the newest is
    /// needed to recover, and the first to replay; the ones between are where
    /// a later cut may fall, so this is how finely retention cuts. At 100,000
    /// partitions a snapshot is ~16 MB, and the samples interval writes one
    /// every few minutes. 0: every snapshot is kept.
    int64_t snapshot_spacing_ms = 0;
};

/// Which bound made retention's cut.
enum class RetentionBound : uint8_t {
    none,   ///< nothing was deleted
    time,   ///< the time window cut further than the size bound
    bytes,  ///< the size bound cut further than the time window
    both,   ///< both chose the same snapshot
};

inline const char* retention_bound_name(RetentionBound bound) {
    switch (bound) {
        case RetentionBound::none: return "none";
        case RetentionBound::time: return "time";
        case RetentionBound::bytes: return "bytes";
        case RetentionBound::both: return "time and bytes";
    }
    return "?";
}

/// What one call to `apply_retention` removed, and why.
struct RetentionReport {
    uint64_t events_deleted = 0;
    uint64_t snapshots_deleted = 0;  // before the cut
    uint64_t snapshots_thinned = 0;  // after it, closer to the one before than snapshot_spacing_ms
    uint64_t first_seq_after = 0;    // first retained seq (0 if the journal is empty)
    RetentionBound cut_by = RetentionBound::none;
    /// RocksDB's estimate of the events and snapshots the journal held before
    /// the cut and keeps after it (the files on disk also hold the
    /// write-ahead log, the manifest and RocksDB's own logs).
    uint64_t estimated_bytes_before = 0;
    uint64_t estimated_bytes_after = 0;
};

/// What an export or import moved.
struct TransferReport {
    uint64_t events = 0;
    uint64_t snapshots = 0;
    uint64_t first_seq = 0;  // of the events; 0 when there were none
    uint64_t last_seq = 0;
    uint64_t file_bytes = 0;
    /// What an export could not read and left out, each "seq A..B: why" or
    /// "snapshot seq S: why". Empty: the file is the whole journal.
    std::vector<std::string> skipped;
};

/// What `Journal::repair` did: the journal it left and what it could not
/// keep.
struct RepairReport {
    uint64_t first_seq = 0;  // the events kept (first > last: none)
    uint64_t last_seq = 0;
    uint64_t events_dropped = 0;  // events after last_seq that existed (as far as readable)
    std::vector<uint64_t> snapshots_kept;
    /// Each snapshot left out, with why (taken after the cut, or damaged).
    std::vector<std::string> snapshots_dropped;
    /// Where the journal as it was now lives (nothing in it was changed).
    std::string damaged_path;
    /// How the readable records were found: "the journal as it opens", or
    /// "rebuilt by RocksDB's repair from the table files and logs".
    std::string source;
};

/// Called for each record of a scan with its seq and verified event bytes
/// (valid only during the call). Return false to stop early.
using RecordVisitor = std::function<bool(uint64_t seq, std::span<const uint8_t> event_bytes)>;

/// `event` as `Journal::append` stores it and every read returns it: a
/// PartitionMetrics' sample values rounded to 11 significant bits (relative
/// error under 0.05%; why, and the record they go into: journal_samples.h);
/// any other event as it is. Rounding twice changes nothing.
events::Event as_journaled(events::Event event);

/// One run of journal records exactly as the journal stores it (key: its
/// first and last seq, 16 bytes; value: the records, journal_record.h),
/// shipped whole to a replica of the journal (high availability: the
/// leader's Kafka journal topic, or the simulator's shared log). The
/// receiver checks every record before it keeps or routes one.
struct ShippedRun {
    std::string key;
    std::string value;
    bool operator==(const ShippedRun&) const = default;
};

/// Called by `Journal::append` with the runs it is about to write, before
/// any of them is written: an error and nothing is appended.
using ShipRuns = std::function<Status(const std::vector<ShippedRun>& runs)>;

/// A run's first and last seq; an error naming the key when it is not a
/// run key.
Result<std::pair<uint64_t, uint64_t>> shipped_run_bounds(const ShippedRun& run);

/// A shipped run's events, every record checked (framing, CRC32C, verifier,
/// seq); an error names the run's seqs and what failed.
Result<std::vector<events::Event>> decode_shipped_run(const ShippedRun& run);

class Journal;
class RunBuilder;  // journal_record.h
class IndexBuilder;  // journal_index.h
struct WalDamage;  // journal_wal.h
struct Salvage;    // journal_repair.cc

/// One snapshot written as it is encoded (`Journal::begin_snapshot`): bytes
/// go in as they come and out in parts of `part_bytes`, so a 160 MB engine
/// state never sits in memory whole. Nothing is visible until `finish`,
/// which writes every part at once: a WriteBatch while the snapshot is
/// small, else a table file ingested in one step (from the moment it
/// reaches 4 MiB, the parts go straight to that file). Dropped unfinished,
/// it leaves nothing behind.
class SnapshotWriter {
public:
    static constexpr size_t part_bytes = 1u << 20;

    ~SnapshotWriter();
    SnapshotWriter(const SnapshotWriter&) = delete;
    SnapshotWriter& operator=(const SnapshotWriter&) = delete;

    Status append(std::span<const uint8_t> bytes);
    /// Writes the last part and makes the snapshot visible.
    Status finish();

private:
    friend class Journal;
    SnapshotWriter(Journal& journal, uint64_t seq);
    /// The pending bytes as the next part; `last` marks the end.
    Status seal_part(bool last);
    Status to_file();

    Journal& _journal;
    uint64_t _seq;
    std::string _pending;  // bytes of the part being filled
    uint32_t _parts = 0;   // parts sealed so far
    std::vector<std::pair<std::string, std::string>> _held;  // sealed parts (key, record) not yet in a file
    size_t _held_bytes = 0;
    std::string _file;  // the table file, once the snapshot is large
    std::unique_ptr<rocksdb::SstFileWriter> _writer;
    bool _finished = false;
};

class Journal {
public:
    /// Opens (or creates) the journal at `path`, finds first and last seq and
    /// the newest snapshot, and verifies the tail (see JournalOptions).
    static Result<std::unique_ptr<Journal>> open(const std::string& path,
                                                 const JournalOptions& options);

    /// `ballast log repair [--truncate-after SEQ]`: rebuilds the journal at
    /// `path` from everything readable in it (it works when the journal does
    /// not open: a damaged table file, log or manifest), into a new
    /// directory beside it, checked by a normal open, then swapped in; the
    /// journal as it was is kept at `<path>.damaged-<time>`. Every record
    /// copied is checked. Events after `truncate_after_seq` and snapshots
    /// taken after it are left out. Nothing is dropped that the caller did
    /// not name: when a record at or before `truncate_after_seq` (or, without
    /// one, any event) is unreadable, the repair changes nothing and its
    /// error names the damage and the `--truncate-after` that keeps
    /// everything before it. A damaged snapshot is left out (named in the
    /// report) when the events it summarizes are kept.
    static Result<RepairReport> repair(const std::string& path, std::optional<uint64_t> truncate_after_seq);
    /// repair(path, seq); returns how many events went.
    static Result<uint64_t> truncate_after(const std::string& path, uint64_t seq);

    /// What the open found and worked around, for the caller to print: a
    /// torn last write in the write-ahead log that was cut (a crash mid-append
    /// leaves one), with the range it held.
    const std::vector<std::string>& warnings() const { return _warnings; }

    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    /// Appends `batch` as one atomic WriteBatch (group commit): assigns each
    /// event the next sequence number and rounds its samples (`as_journaled`;
    /// both written back into the event, so the caller acts on what is
    /// stored), and
    /// returns the last one once the batch is durable per the sync mode.
    /// A batch with an event that fails `events::check` is refused whole
    /// (invalid_argument), nothing written and no number handed out: the
    /// journal never holds what its reader would refuse.
    /// An empty batch is a no-op that returns last_seq().
    Result<uint64_t> append(std::span<events::Event> batch);
    /// The same, and the runs go to `ship` first (a leader's replica): only
    /// once it accepts them are they written here, so this journal never
    /// holds what the replica does not. A refusal appends nothing, hands out
    /// no number, and comes back as the error.
    Result<uint64_t> append(std::span<events::Event> batch, const ShipRuns& ship);

    /// A standby's append: runs a leader shipped, written as they are after
    /// every record is checked (framing, CRC32C, verifier, its seq). They
    /// must continue this journal: a run (or its part) at or before
    /// last_seq() is skipped, so reading a replica again from an earlier
    /// place is harmless; a gap is refused with both seqs named. Returns the
    /// events appended, decoded, in order. Nothing is written when any run
    /// is refused.
    Result<std::vector<events::Event>> append_shipped(std::span<const ShippedRun> runs);

    /// A standby that joins with an empty journal starts from a leader's
    /// snapshot: stores it and numbers on after `seq`. Refused unless the
    /// journal holds no events and no snapshot at or after `seq`.
    Status seed_snapshot(uint64_t seq, std::span<const uint8_t> bytes);

    /// The journal holds [first_seq, last_seq]; it is empty when
    /// first_seq == last_seq + 1 (a fresh journal: 1 and 0). The next append
    /// gets last_seq + 1.
    uint64_t first_seq() const { return _first_seq.load(std::memory_order_acquire); }
    uint64_t last_seq() const { return _last_seq.load(std::memory_order_acquire); }
    uint64_t event_count() const { return last_seq() + 1 - first_seq(); }

    /// Walks [from, to] (clamped to what exists) in order; every record is
    /// checked (CRC32C, verifier, seq, density) before the visitor sees it.
    /// The first bad record stops the walk with an error naming its seq.
    Status scan(uint64_t from, uint64_t to, const RecordVisitor& visit) const;

    /// scan + decode into typed events.
    Result<std::vector<events::Event>> read(uint64_t from, uint64_t to) const;
    Result<events::Event> read_one(uint64_t seq) const;

    /// Stores opaque engine state as of `seq` (first_seq - 1 <= seq <= last_seq).
    /// Safe to call from another thread than the appender's (the engine
    /// writes snapshots beside the appends), never two at once, and not
    /// while apply_retention runs.
    Status write_snapshot(uint64_t seq, std::span<const uint8_t> bytes);
    /// The same, written as it is made (see SnapshotWriter); the same rules.
    Result<std::unique_ptr<SnapshotWriter>> begin_snapshot(uint64_t seq);
    /// The newest snapshot, checked; nullopt when there is none.
    Result<std::optional<Snapshot>> newest_snapshot() const;
    /// Sequence numbers of all stored snapshots, oldest first.
    Result<std::vector<uint64_t>> snapshot_seqs() const;
    /// One snapshot by seq, checked.
    Result<Snapshot> read_snapshot(uint64_t seq) const;

    /// Deletes the events before a snapshot that is either older than
    /// `policy.retention_ms` before `now_ms` or needed to bring the journal
    /// within `policy.retention_bytes`, and the snapshots before it; then
    /// gives their disk space back (a compaction: it waits for RocksDB's
    /// threads, so the engine calls it beside the appends, not on their
    /// thread). Safe beside the appender, as write_snapshot is, and never
    /// while a snapshot is written. See the rule and its cost in
    /// journal_retention.cc.
    Result<RetentionReport> apply_retention(int64_t now_ms, const RetentionPolicy& policy);

    /// `ballast log export FILE`: every snapshot, then every event, as
    /// checked frames in a portable file (format in journal_export.cc).
    /// Exporting the same journal twice gives the same bytes. A record or
    /// block that does not read is left out and named in the report's
    /// `skipped` (the file then has a gap, which an import refuses).
    Result<TransferReport> export_to(const std::string& file_path) const;

    /// `ballast log import FILE`: checks every frame of the file first, then
    /// writes it into the journal at `journal_path`, which must hold nothing.
    /// export -> import -> export gives a byte-identical file.
    static Result<TransferReport> import_from(const std::string& file_path,
                                              const std::string& journal_path,
                                              const JournalOptions& options);

    /// Bytes the journal's files take on disk.
    uint64_t disk_size_bytes() const;
    /// The wall-clock time of each append (a leader's, shipping included,
    /// and a standby's), from any thread.
    LatencyHistogram::Figures append_latency() const { return _append_latency.figures(); }
    /// The wall-clock time from the append of a round's barrier to the
    /// append of its decision (round_latency.h), from any thread.
    LatencyHistogram::Figures round_latency() const { return _round_latency.figures(); }
    /// What this open of the journal appended through `append`, by type
    /// and source, and the actions among it (append_tally.h), from any thread.
    TallyFigures append_tally() const { return _append_tally.figures(); }

    // ------------------------------------------------ the partition index
    // What `ballast replay --explain` reads instead of the whole journal
    // (journal_index.cc). A writable open brings the index up to the
    // journal (catching up a tail, or rebuilding it when it is missing,
    // damaged or past the journal's end) and says so in warnings(); a
    // read-only open leaves it as it is, and it answers only when whole.

    /// Whether the index answers; when not, an error (not_found) saying why.
    Status index_status() const;
    /// Seqs in [from, to] of the events about one partition: its
    /// PartitionChanged events and every ActionsPlanned that names it (an
    /// action, either side of a swap, a held action, an unfixable one).
    /// Ascending; entries retention orphaned are left out.
    Result<std::vector<uint64_t>> partition_seqs(const std::string& topic, int32_t partition, uint64_t from,
                                                 uint64_t to) const;
    /// Seqs in [from, to] of one action's outcomes (submitted, completed,
    /// failed, timed out, cancelled), ascending.
    Result<std::vector<uint64_t>> action_seqs(uint64_t action_id, uint64_t from, uint64_t to) const;
    /// The events at `seqs` (ascending), every record checked as a scan
    /// checks it.
    Result<std::vector<events::Event>> read_seqs(std::span<const uint64_t> seqs) const;
    /// A reader found the index wrong (an entry that does not read, or one
    /// that names an event not about its key): from now on it does not
    /// answer, and on a writable journal the next open rebuilds it.
    void index_damaged(const std::string& why) const;

    const std::string& path() const { return _path; }
    const JournalOptions& options() const { return _options; }

private:
    friend class SnapshotWriter;
    Journal(std::string path, JournalOptions options);

    Status recover();
    /// The index's part of recovery and its (re)build (journal_index.cc).
    Status recover_index(uint64_t first, uint64_t last);
    Status build_index(uint64_t from, uint64_t to, bool whole);
    Result<std::vector<uint64_t>> index_seqs(const std::string& prefix, uint64_t from, uint64_t to) const;
    /// apply_retention's two steps (journal_retention.cc).
    Result<RetentionReport> cut_before(int64_t now_ms, const RetentionPolicy& policy);
    /// Writes an append's batch and makes seq last; on failure un-numbers
    /// `numbered`.
    Result<uint64_t> write(rocksdb::WriteBatch& write_batch, uint64_t last, uint64_t seq,
                           std::span<events::Event> numbered);
    /// Adds the postings `_index` collected and the marker through `seq`.
    void put_index(rocksdb::WriteBatch& write_batch, uint64_t seq);
    Result<uint64_t> thin_snapshots(int64_t spacing_ms);
    /// The snapshot at `seq` in whichever layout it was written.
    Result<Snapshot> read_snapshot_records(uint64_t seq) const;
    /// The checked walk behind scan and recovery; `visit` may be null. On an
    /// error `*stopped_at` (when given) is the seq that could not be read.
    Status walk(uint64_t from, uint64_t to, const RecordVisitor* visit, uint64_t* stopped_at = nullptr) const;
    /// The first seq after `bad` from which a walk reads (last + 1: none).
    uint64_t next_readable(uint64_t bad, uint64_t last) const;
    Status walk_from(uint64_t from, uint64_t to, const RecordVisitor* visit, uint64_t* expected) const;
    /// Opens the RocksDB database behind the journal (read-only: without the
    /// lock, and changing no file), nothing checked.
    Status open_db(bool read_only);
    /// Refuses the open when the write-ahead log is damaged before its tail
    /// (journal_wal.h); notes a torn tail in `*cut`.
    Status check_wal(std::optional<WalDamage>* cut);

    /// The events and snapshots one view of a damaged journal can give
    /// (journal_repair.cc), and the new journal written from it.
    friend struct Salvage;
    static Status write_salvage(const Salvage& salvage, const std::string& path, const std::string& rebuilt,
                                const RepairReport& report, const std::vector<Snapshot>& snapshots);

    std::string _path;
    JournalOptions _options;
    std::unique_ptr<rocksdb::DB> _db;
    rocksdb::ColumnFamilyHandle* _events_cf = nullptr;    // owned by _db
    rocksdb::ColumnFamilyHandle* _snapshots_cf = nullptr;  // owned by _db
    rocksdb::ColumnFamilyHandle* _index_cf = nullptr;      // owned by _db; null: a read-only journal without one
    std::unique_ptr<rocksdb::CompactionFilter> _index_filter;  // drops what retention orphaned; reads _first_seq
    std::vector<rocksdb::ColumnFamilyHandle*> _handles;
    std::atomic<uint64_t> _first_seq{1};
    std::atomic<uint64_t> _last_seq{0};
    events::Encoder _encoder;  // the writer's; reused across appends
    std::unique_ptr<RunBuilder> _run;  // the writer's; its buffer reused across appends
    std::string _compact;  // the writer's: a compact samples record (journal_samples.h)
    std::unique_ptr<IndexBuilder> _index;  // the writer's: an append's postings
    mutable std::atomic<bool> _index_ok{false};
    mutable std::mutex _index_mutex;
    mutable std::string _index_problem;  // why the index does not answer; under _index_mutex
    std::vector<std::string> _warnings;
    LatencyHistogram _append_latency;
    RoundLatency _round_latency;  // the writer's
    AppendTally _append_tally;    // the writer's; figures from any thread
};

}  // namespace ballast::store
