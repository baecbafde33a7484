#include <cassert>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"

namespace ballast::store {

using events::make_error;

/// Retention keeps the journal replayable from its first event:
///
///   cut = the newest snapshot X whose event (seq X) happened more than
///         `retention_ms` before `now_ms`;
///   delete events [first_seq, X) and snapshots older than X.
///
/// Event X itself and the snapshot at X stay, so afterwards the journal
/// starts at a snapshot, every event a kept snapshot needs is kept, and the
/// newest snapshot is never touched. Events are appended in time order, so
/// "event X is older than the window" stands for every event before it.
/// `now_ms` comes from the caller (the engine passes its Tick time), never
/// from the wall clock, so replays retain the same way.
Result<RetentionReport> Journal::apply_retention(int64_t now_ms, int64_t retention_ms) {
    assert(retention_ms >= 0);
    if (_options.read_only) {
        return make_error(ErrorCode::conflict, "journal " + _path + " is open read-only");
    }
    RetentionReport report;
    const uint64_t first = first_seq();
    report.first_seq_after = first;
    const int64_t cutoff_ms = now_ms - retention_ms;

    Result<std::vector<uint64_t>> seqs = snapshot_seqs();
    if (!seqs) return seqs.error();
    uint64_t cut = 0;
    for (auto it = seqs->rbegin(); it != seqs->rend(); ++it) {
        if (*it < first || *it > last_seq()) continue;
        Result<events::Event> event = read_one(*it);
        if (!event) return event.error();
        if (event->time_ms < cutoff_ms) {
            cut = *it;
            break;
        }
    }
    if (cut == 0) return report;

    uint64_t snapshots_before_cut = 0;
    for (const uint64_t seq : *seqs) snapshots_before_cut += seq < cut ? 1 : 0;
    if (cut == first && snapshots_before_cut == 0) return report;

    rocksdb::WriteBatch batch;
    // Runs that start before the cut go; the one that holds the cut and
    // events before it is written again from the cut on.
    batch.DeleteRange(_events_cf, key_string(first), key_string(cut));
    {
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _events_cf));
        it->SeekForPrev(run_key(cut, UINT64_MAX));
        if (!it->status().ok()) return rocks_error("journal " + _path + ": retention", it->status());
        uint64_t run_first = 0;
        uint64_t run_last = 0;
        if (it->Valid() && decode_run_key(it->key().ToStringView(), &run_first, &run_last) && run_first < cut) {
            assert(run_last >= cut);  // seq `cut` exists
            Result<std::string> kept = slice_run(it->key().ToStringView(), it->value().ToStringView(), cut, run_last);
            if (!kept) return kept.error();
            batch.Put(_events_cf, run_key(cut, run_last), *kept);
        }
    }
    batch.DeleteRange(_snapshots_cf, key_string(0), key_string(cut));
    rocksdb::WriteOptions write_options;
    write_options.sync = _options.sync;
    const rocksdb::Status status = _db->Write(write_options, &batch);
    if (!status.ok()) {
        return make_error(ErrorCode::io_error,
                          "journal " + _path + ": retention up to seq " + std::to_string(cut) +
                              ": " + status.ToString());
    }
    _first_seq.store(cut, std::memory_order_release);
    report.events_deleted = cut - first;
    report.snapshots_deleted = snapshots_before_cut;
    report.first_seq_after = cut;
    return report;
}

}  // namespace ballast::store
