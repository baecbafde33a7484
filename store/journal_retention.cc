/// Retention: which events go (by time and by size), how they go, and how
/// their disk space comes back. The rule is at `apply_retention`; the way
/// the delete is written, and what it costs, just above it.

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <optional>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>

#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"

namespace ballast::store {

using events::make_error;

namespace {

/// Sorts after every key of both families (run keys are 16 bytes, snapshot
/// part keys 12).
const std::string& past_every_key() {
    static const std::string key(run_key_size + 1, '\xff');
    return key;
}

/// RocksDB's estimate of what the journal keeps from `events_from` and
/// `snapshots_from` on: the events' runs and the snapshots' records, in
/// table files and memtables. A run that starts before `events_from` and
/// ends after it is not counted (at most one, ~1 MiB). Table files are
/// counted compressed, memtables as written, so the estimate of a journal
/// not yet flushed is larger than its files will be.
Result<uint64_t> estimate_bytes(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* events_cf,
                                rocksdb::ColumnFamilyHandle* snapshots_cf, uint64_t events_from,
                                uint64_t snapshots_from, const std::string& path) {
    rocksdb::SizeApproximationOptions options;
    options.include_memtables = true;
    options.include_files = true;
    uint64_t total = 0;
    for (const auto& [family, from] : {std::pair{events_cf, events_from}, std::pair{snapshots_cf, snapshots_from}}) {
        const std::string start = key_string(from);
        const rocksdb::Range range(start, past_every_key());
        uint64_t bytes = 0;
        const rocksdb::Status status = db.GetApproximateSizes(options, family, &range, 1, &bytes);
        if (!status.ok()) {
            return rocks_error("journal " + path + ": retention: estimating the size from seq " + std::to_string(from),
                               status);
        }
        total += bytes;
    }
    return total;
}

/// Whether a memtable of `family` (the active one or one waiting for its
/// flush) holds a key or a tombstone below `end`. Exact for "any": the
/// estimate counts every entry it passes before `end`, and none before
/// key 0.
bool memtable_holds_keys_below(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* family, const std::string& end) {
    const std::string start = key_string(0);
    uint64_t count = 0;
    uint64_t bytes = 0;
    db.GetApproximateMemTableStats(family, rocksdb::Range(start, end), &count, &bytes);
    return count > 0;
}

/// One table file for `family` that deletes every key below `cut_key` and,
/// when given, puts `put` (a key at or after `cut_key`). Synced by Finish.
rocksdb::Status write_cut_file(const std::string& file, const JournalOptions& options,
                               rocksdb::ColumnFamilyHandle* family, const std::string& cut_key,
                               const std::optional<std::pair<std::string, std::string>>& put) {
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), db_options(options), family);
    rocksdb::Status status = writer.Open(file);
    if (status.ok()) status = writer.DeleteRange(key_string(0), cut_key);
    if (status.ok() && put) status = writer.Put(put->first, put->second);
    if (status.ok()) status = writer.Finish();
    return status;
}

/// Removes the files it names when it goes: ingested (moved in as links)
/// or not, they are not needed after the ingestion.
struct RemoveFiles {
    std::vector<std::string> files;
    ~RemoveFiles() {
        std::error_code ec;
        for (const std::string& file : files) std::filesystem::remove(file, ec);
    }
};

}  // namespace

/// How the delete is written, and why not as a WriteBatch. A range
/// tombstone written to the memtable is flushed into one level-0 file with
/// the appends of the moment, so that file spans from key 0 to the newest
/// event, and RocksDB compacts a file together with every file below it
/// that its span meets: all of level 1, then, level by level, nearly the
/// whole journal, for each retention (measured: every cut rewrote the whole
/// ~160 MB of a journal bounded at 192 MiB). So the tombstone goes in as a
/// table file of its own, ingested (the same step as a large snapshot's),
/// in both families at once (one manifest write: atomic, and durable as a
/// synced write is): its span is [0, cut] (with the run the cut falls
/// inside, cut and written again from the cut on), it lands just above the
/// oldest data, and the compactions it causes stay among the oldest files.
/// A family whose memtable holds keys below the cut is flushed first (the
/// ingestion would otherwise flush it while holding the appends); the
/// snapshots' memtable always is: it is small (a snapshot of 4 MiB or more
/// is a table file), and left unflushed it keeps every write-ahead log file
/// since its last flush on disk (up to the journal's bound on the logs, `max_total_wal_size`).
///
/// Then the space comes back, which a delete alone does not give: RocksDB
/// drops deleted data only when a compaction rewrites the files holding it,
/// and the oldest files of an append-only key space are never compacted
/// again. So, in each family: table files wholly below the cut are dropped
/// (DeleteFilesInRange: a manifest write, no data read; the ingested file
/// ends at the cut, so it is never among them, and each cut's tombstone
/// starts at key 0, so dropping the file of an older one brings nothing
/// back), then the range below the cut is compacted (CompactRange): the
/// tombstone file with the file the cut falls inside at each level below
/// it, and the level-0 files a memtable holding the cut left. What that
/// costs: a flush of the snapshots' memtable, a manifest write while
/// appends wait (the ingestion's, as for a large snapshot), and a rewrite of
/// about one table file (up to 64 MiB) per level that holds the cut, rarely
/// more than one; whatever the journal's size, never the whole journal. It
/// runs on RocksDB's background threads (at their priority: idle in a
/// storm) while the caller waits, and appends go on beside it. Measured on a
/// journal of several memtables: `JournalRetentionCost` in
/// tests/unit/journal_retention_test.cc.
///
/// Retention keeps the journal replayable from its first event. Two bounds
/// each choose a snapshot, and the cut is the newer of the two:
///
///   time:  the newest snapshot X whose event (seq X) happened more than
///          `retention_ms` before `now_ms`;
///   bytes: when the journal holds more than `retention_bytes` (events from
///          first_seq on and every snapshot), the oldest snapshot X such
///          that what stays (events [X, last_seq] and snapshots >= X) is at
///          most `retention_bytes`; the newest snapshot when none is small
///          enough. A journal within the bound loses nothing to it.
///
///   delete events [first_seq, X) and snapshots older than X.
///
/// Event X itself and the snapshot at X stay, so afterwards the journal
/// starts at a snapshot, every event a kept snapshot needs is kept, and the
/// newest snapshot is never touched. Events are appended in time order, so
/// "event X is older than the window" stands for every event before it; and
/// what stays from X on shrinks as X grows. So both X are found by bisection
/// over the snapshots: a few reads and estimates, not one per snapshot (a
/// week of snapshots every few seconds is a hundred thousand).
/// `now_ms` comes from the caller (the engine passes its Tick time), never
/// from the wall clock, so replays retain the same way. Sizes are RocksDB's
/// estimates (GetApproximateSizes): cheap (index blocks and memtable counts,
/// no data read), and approximate.
Result<RetentionReport> Journal::apply_retention(int64_t now_ms, const RetentionPolicy& policy) {
    Result<RetentionReport> report = cut_before(now_ms, policy);
    if (!report) return report;
    if (policy.snapshot_spacing_ms > 0) {
        Result<uint64_t> thinned = thin_snapshots(policy.snapshot_spacing_ms);
        if (!thinned) return thinned.error();
        report->snapshots_thinned = *thinned;
    }
    // The snapshots' memtable (a snapshot under 4 MiB, a thinning's
    // tombstone) holds every write-ahead log file written since it was last
    // flushed, appends and all, up to the bound on the logs: flushed here,
    // after each snapshot, it holds only what came since. An empty one is
    // not flushed. The partition index's memtable (a marker each append)
    // holds them the same way and goes with it.
    const rocksdb::Status flushed = _db->Flush(rocksdb::FlushOptions(), {_snapshots_cf, _index_cf});
    if (!flushed.ok()) return rocks_error("journal " + _path + ": retention: flushing the snapshots", flushed);
    return report;
}

/// Thinning keeps the snapshots between the journal's first and its newest
/// at least `spacing_ms` apart by their events' times, looking at one
/// snapshot per call: the one before the newest (P), against the one before
/// it (Q). P goes when it is closer to Q than `spacing_ms`; Q always stays,
/// so the journal's first snapshot (where a replay starts) is never the one
/// that goes, nor is the newest (where a recovery starts). Called after each
/// snapshot, that keeps every snapshot but the newest spaced (by induction:
/// P is the only one not yet judged), at two event reads a call; the ones
/// kept are the first of each spacing after the one kept before. When Q's
/// event is no longer in the journal (retention cut just after it), nothing
/// is judged.
Result<uint64_t> Journal::thin_snapshots(int64_t spacing_ms) {
    Result<std::vector<uint64_t>> seqs = snapshot_seqs();
    if (!seqs) return seqs.error();
    if (seqs->size() < 3) return uint64_t{0};
    const uint64_t p = (*seqs)[seqs->size() - 2];
    const uint64_t q = (*seqs)[seqs->size() - 3];
    if (q < first_seq() || p > last_seq()) return uint64_t{0};
    Result<events::Event> p_event = read_one(p);
    if (!p_event) return p_event.error();
    Result<events::Event> q_event = read_one(q);
    if (!q_event) return q_event.error();
    if (p_event->time_ms - q_event->time_ms >= spacing_ms) return uint64_t{0};

    const std::string what = "journal " + _path + ": thinning snapshot " + std::to_string(p) + ": ";
    const std::string from = key_string(p);
    const std::string to = key_string(p + 1);
    // A narrow tombstone in the snapshots' family, whose memtable holds only
    // snapshots: the file it is flushed into spans a few snapshots, not the
    // journal (see above for the wide one a cut would make).
    rocksdb::WriteBatch batch;
    batch.DeleteRange(_snapshots_cf, from, to);
    rocksdb::WriteOptions write_options;
    write_options.sync = _options.sync;
    rocksdb::Status status = _db->Write(write_options, &batch);
    if (!status.ok()) return rocks_error(what + "deleting it", status);
    // A snapshot of 4 MiB or more is a table file of its own: dropped whole.
    const rocksdb::Slice begin(from);
    const rocksdb::Slice end(to);
    status = rocksdb::DeleteFilesInRange(_db.get(), _snapshots_cf, &begin, &end, /*include_end=*/false);
    if (!status.ok()) return rocks_error(what + "dropping its table file", status);
    return uint64_t{1};
}

Result<RetentionReport> Journal::cut_before(int64_t now_ms, const RetentionPolicy& policy) {
    assert(policy.retention_ms >= 0);
    if (_options.read_only) {
        return make_error(ErrorCode::conflict, "journal " + _path + " is open read-only");
    }
    RetentionReport report;
    const uint64_t first = first_seq();
    const uint64_t last = last_seq();
    report.first_seq_after = first;

    Result<std::vector<uint64_t>> seqs = snapshot_seqs();
    if (!seqs) return seqs.error();
    // Snapshots a cut may fall on: those whose event is in the journal.
    std::vector<uint64_t> candidates;
    for (const uint64_t seq : *seqs) {
        if (seq >= first && seq <= last) candidates.push_back(seq);
    }

    // RocksDB estimates a memtable's share of a range by sampling its skip
    // list: off by a third and more on a memtable of a few thousand events,
    // while table files are estimated from their index blocks. So under a
    // size bound the events' memtable is flushed once it exceeds an eighth
    // of the bound, which keeps what the estimate can miss to that eighth.
    // With the 64 MiB memtable that is only ever done under bounds below
    // 512 MiB.
    if (policy.retention_bytes > 0) {
        uint64_t memtable_bytes = 0;
        if (_db->GetIntProperty(_events_cf, rocksdb::DB::Properties::kCurSizeAllMemTables, &memtable_bytes) &&
            memtable_bytes > policy.retention_bytes / 8) {
            const rocksdb::Status flushed = _db->Flush(rocksdb::FlushOptions(), _events_cf);
            if (!flushed.ok()) {
                return rocks_error("journal " + _path + ": retention: flushing the events before estimating", flushed);
            }
        }
    }
    Result<uint64_t> before = estimate_bytes(*_db, _events_cf, _snapshots_cf, first, 0, _path);
    if (!before) return before.error();
    report.estimated_bytes_before = *before;
    report.estimated_bytes_after = *before;

    uint64_t time_cut = 0;
    {
        // Candidates [0, lo) are older than the window.
        const int64_t cutoff_ms = now_ms - policy.retention_ms;
        size_t lo = 0;
        size_t hi = candidates.size();
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            Result<events::Event> event = read_one(candidates[mid]);
            if (!event) return event.error();
            if (event->time_ms < cutoff_ms) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo > 0) time_cut = candidates[lo - 1];
    }

    uint64_t size_cut = 0;
    if (policy.retention_bytes > 0 && *before > policy.retention_bytes && !candidates.empty()) {
        // The oldest candidate whose remainder fits; the newest if none does.
        size_t lo = 0;
        size_t hi = candidates.size() - 1;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            Result<uint64_t> rest =
                estimate_bytes(*_db, _events_cf, _snapshots_cf, candidates[mid], candidates[mid], _path);
            if (!rest) return rest.error();
            if (*rest <= policy.retention_bytes) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        size_cut = candidates[lo];
    }

    const uint64_t cut = std::max(time_cut, size_cut);
    if (cut == 0) return report;
    uint64_t snapshots_before_cut = 0;
    for (const uint64_t seq : *seqs) snapshots_before_cut += seq < cut ? 1 : 0;
    if (cut == first && snapshots_before_cut == 0) return report;
    // Estimated as the cut was chosen: the compaction below writes what
    // stays compressed, so an estimate after it is smaller, and another
    // measure than the bound was held to.
    Result<uint64_t> after = estimate_bytes(*_db, _events_cf, _snapshots_cf, cut, cut, _path);
    if (!after) return after.error();

    const std::string what = "journal " + _path + ": retention up to seq " + std::to_string(cut) + ": ";
    const std::string cut_key = key_string(cut);
    // The run that holds the cut and events before it, from the cut on.
    std::optional<std::pair<std::string, std::string>> cut_run;
    {
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _events_cf));
        it->SeekForPrev(run_key(cut, UINT64_MAX));
        if (!it->status().ok()) return rocks_error(what + "finding the run that holds the cut", it->status());
        uint64_t run_first = 0;
        uint64_t run_last = 0;
        if (it->Valid() && decode_run_key(it->key().ToStringView(), &run_first, &run_last) && run_first < cut) {
            assert(run_last >= cut);  // seq `cut` exists
            Result<std::string> kept = slice_run(it->key().ToStringView(), it->value().ToStringView(), cut, run_last);
            if (!kept) return kept.error();
            cut_run.emplace(run_key(cut, run_last), std::move(*kept));
        }
    }

    std::vector<rocksdb::ColumnFamilyHandle*> flush{_snapshots_cf};
    if (memtable_holds_keys_below(*_db, _events_cf, key_string(cut + 1))) flush.push_back(_events_cf);
    rocksdb::Status status = _db->Flush(rocksdb::FlushOptions(), flush);
    if (!status.ok()) return rocks_error(what + "flushing the memtables", status);

    RemoveFiles files;
    const std::string prefix = (std::filesystem::path(_path) / retention_file_prefix).string() + std::to_string(cut);
    files.files = {prefix + "-events.sst", prefix + "-snapshots.sst"};
    status = write_cut_file(files.files[0], _options, _events_cf, cut_key, cut_run);
    if (!status.ok()) return rocks_error(what + "writing " + files.files[0], status);
    status = write_cut_file(files.files[1], _options, _snapshots_cf, cut_key, std::nullopt);
    if (!status.ok()) return rocks_error(what + "writing " + files.files[1], status);
    std::vector<rocksdb::IngestExternalFileArg> ingest(2);
    ingest[0].column_family = _events_cf;
    ingest[1].column_family = _snapshots_cf;
    for (size_t i = 0; i < ingest.size(); i++) {
        ingest[i].external_files = {files.files[i]};
        ingest[i].options.move_files = true;
    }
    status = _db->IngestExternalFiles(ingest);
    if (!status.ok()) return rocks_error(what + "ingesting the delete", status);

    _first_seq.store(cut, std::memory_order_release);
    report.events_deleted = cut - first;
    report.snapshots_deleted = snapshots_before_cut;
    report.first_seq_after = cut;
    report.estimated_bytes_after = *after;
    report.cut_by = time_cut == size_cut ? RetentionBound::both
                    : time_cut > size_cut ? RetentionBound::time
                                          : RetentionBound::bytes;

    // The space back (see above), once the delete is durable: a crash in
    // between leaves deleted data on disk, never a journal with a hole.
    const std::string zero_key = key_string(0);
    const rocksdb::Slice begin(zero_key);
    const rocksdb::Slice end(cut_key);
    for (const auto& [family, name] : {std::pair{_events_cf, "events"}, std::pair{_snapshots_cf, "snapshots"}}) {
        status = rocksdb::DeleteFilesInRange(_db.get(), family, &begin, &end, /*include_end=*/false);
        if (!status.ok()) return rocks_error(what + "dropping the " + name + " table files below the cut", status);
        rocksdb::CompactRangeOptions compact;
        // The last level too: the file the cut falls inside is there, and
        // only a rewrite drops the deleted part of it. Optimized: a file
        // this compaction just wrote is not rewritten again.
        compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
        status = _db->CompactRange(compact, family, &begin, &end);
        if (!status.ok()) return rocks_error(what + "compacting the " + name + " below the cut", status);
    }
    return report;
}

}  // namespace ballast::store
