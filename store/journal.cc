#include "store/journal.h"

#include <algorithm>
#include <cassert>
#include <filesystem>

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include "events/event_check.h"
#include "store/journal_index.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"
#include "store/journal_samples.h"
#include "store/journal_wal.h"

namespace ballast::store {

using events::make_error;

Error rocks_error(const std::string& what, const rocksdb::Status& status) {
    const ErrorCode code = status.IsCorruption() ? ErrorCode::corruption
                           : status.IsNotFound() ? ErrorCode::not_found
                                                 : ErrorCode::io_error;
    return make_error(code, what + ": " + status.ToString());
}

rocksdb::Options db_options(const JournalOptions& options) {
    rocksdb::Options o;
    o.create_if_missing = options.create_if_missing;
    o.create_missing_column_families = true;
    if (options.env) o.env = options.env;
    // A torn write at the end of the WAL (a crash mid-append) is dropped and
    // everything before it kept. Appends are atomic WriteBatches, so this
    // drops whole unacknowledged batches, never part of one.
    o.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
    o.max_background_jobs = 2;
    // Obsolete WAL files (64 MiB each) are deleted by a background job, not
    // on the write path: a delete takes 56-100 ms here.
    o.avoid_unnecessary_blocking_io = true;
    o.keep_log_file_num = 3;
    // No fallocate: RocksDB reserves WAL space ahead of the appends with it,
    // and on ext4 a reservation that reaches a block group not yet in memory
    // reads its bitmap from disk inside the append: 25-30 ms here, the
    // longest waits of a 500k events/s storm. Without it the appends go to
    // the page cache and blocks are allocated at writeback.
    o.allow_fallocate = false;
    o.max_log_file_size = 8 << 20;
    // Memtables of 64 MiB (RocksDB's default): a storm writes ~75 MB/s, and
    // each memtable switch (a new WAL file, a flush) is a moment the append
    // may wait; at 16 MiB that would be five times a second. Two of them are
    // 128 MiB of the engine's memory; at 1M partitions the engine's whole
    // RSS is ~0.7 GiB.
    o.write_buffer_size = 64 << 20;
    o.max_write_buffer_number = 2;
    // A log file goes once every memtable holding writes from it is flushed;
    // the partition index's fills slowly and would hold every log, all of
    // which an open replays (bench/README.md: explain's cold open). Past this
    // total RocksDB flushes what holds the oldest log: the index's and the
    // snapshots' small memtables, never the events' two, whose logs fit.
    o.max_total_wal_size = 192 << 20;
    // LZ4 rather than the default Snappy: a scan decompresses every block it
    // reads, and LZ4 does that faster for about the same size (~37 MB per
    // million ~150-byte events). 16 KiB blocks rather than 4 KiB: a quarter of
    // the per-block work (fetch, checksum, decompression, index step) for a
    // sequential reader, and slightly better compression.
    o.compression = rocksdb::kLZ4Compression;
    rocksdb::BlockBasedTableOptions table_options;
    table_options.block_size = 16 << 10;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
    return o;
}

Journal::Journal(std::string path, JournalOptions options)
    : _path(std::move(path)),
      _options(options),
      _index_filter(index_floor_filter(&_first_seq)),
      _run(std::make_unique<RunBuilder>()),
      _index(std::make_unique<IndexBuilder>()) {}

Journal::~Journal() {
    if (_db) {
        for (rocksdb::ColumnFamilyHandle* handle : _handles) {
            _db->DestroyColumnFamilyHandle(handle);
        }
        _db->Close();
    }
}

Result<std::unique_ptr<Journal>> Journal::open(const std::string& path,
                                               const JournalOptions& options) {
    if (path.empty()) return make_error(ErrorCode::invalid_argument, "journal path is empty");
    std::error_code ec;
    const bool exists = std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec);
    if (!exists && (options.read_only || !options.create_if_missing)) {
        return make_error(ErrorCode::not_found, "no journal at " + path);
    }
    if (!exists) {
        std::filesystem::create_directories(path, ec);
        if (ec) {
            return make_error(ErrorCode::io_error,
                              "cannot create journal directory " + path + ": " + ec.message());
        }
    }

    std::unique_ptr<Journal> journal(new Journal(path, options));
    // Before RocksDB replays the logs: it would drop what follows damage.
    std::optional<WalDamage> cut;
    if (exists) {
        if (Status checked = journal->check_wal(&cut); !checked) return checked.error();
    }
    if (options.background_priority == BackgroundPriority::idle && !options.read_only) {
        // Taken by each pool thread before its next job (JournalOptions).
        rocksdb::Env* env = rocksdb::Env::Default();
        for (const rocksdb::Env::Priority pool : {rocksdb::Env::HIGH, rocksdb::Env::LOW}) {
            const rocksdb::Status lowered = env->LowerThreadPoolCPUPriority(pool, rocksdb::CpuPriority::kIdle);
            if (!lowered.ok()) {
                return rocks_error("journal " + path + ": cannot lower RocksDB's background threads", lowered);
            }
        }
    }
    // Every corruption the open finds names the repair that gets past it.
    auto with_remedy = [](const Error& error) {
        if (error.code != ErrorCode::corruption || error.message.find("ballast log repair") != std::string::npos) {
            return error;
        }
        return make_error(ErrorCode::corruption,
                          error.message +
                              " (nothing was changed; `ballast log repair` rebuilds the journal from what is "
                              "readable in its table files and logs, and names anything it cannot keep before "
                              "it changes anything)");
    };
    if (Status opened = journal->open_db(options.read_only); !opened) return with_remedy(opened.error());
    if (Status recovered = journal->recover(); !recovered) return with_remedy(recovered.error());
    if (cut) {
        // Said only when the cut write is not in the journal anyway (a log
        // already flushed to a table file, not yet deleted, is not replayed).
        const uint64_t last = journal->last_seq();
        const bool held = (cut->damaged_rocks_seq && cut->damaged_rocks_seq <= journal->_db->GetLatestSequenceNumber()) ||
                          (cut->damaged_claims.events_first && cut->damaged_claims.events_last <= last);
        if (!held) {
            std::string warning = "journal " + path + ": the last write in write-ahead log " + cut->file +
                                  ", at byte offset " + std::to_string(cut->offset_bytes) + " (" + cut->reason +
                                  "), was torn, as a crash while appending leaves it, and was cut";
            if (cut->damaged_claims.events_first == last + 1) {
                warning += ": it held " + cut->damaged_claims.describe() + " (as its unchecked header says)";
            }
            warning += "; the journal ends at seq " + std::to_string(last) +
                       " (with ballast.journal.sync on, a write is acknowledged only once it is whole)";
            // A reader beside a running writer sees its write in flight the
            // same way; the lock that would tell is the writer's to hold.
            if (options.read_only) warning += ", unless a process that has the journal open is writing it now";
            journal->_warnings.push_back(std::move(warning));
        }
    }
    if (!options.read_only) {
        // A crash while a large snapshot was written leaves its table file
        // behind, never ingested: the snapshot was never acknowledged.
        for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
            if (entry.path().filename().string().rfind(snapshot_file_prefix, 0) == 0) {
                std::filesystem::remove(entry.path(), ec);
            }
        }
    }
    return journal;
}

Status Journal::open_db(bool read_only) {
    const rocksdb::Options o = db_options(_options);
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(o)},
        {snapshots_cf_name, rocksdb::ColumnFamilyOptions(o)},
    };
    // A writable open creates the index's family when a journal written
    // before it has none (recovery then builds it); a read-only one cannot.
    std::vector<std::string> existing;
    (void)rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(o), _path, &existing);
    const bool has_index = std::find(existing.begin(), existing.end(), index_cf_name) != existing.end();
    if (has_index || !read_only) {
        rocksdb::ColumnFamilyOptions index_options(o);
        index_options.compaction_filter = _index_filter.get();
        families.emplace_back(index_cf_name, index_options);
    }
    rocksdb::DB* db = nullptr;
    const rocksdb::Status status =
        read_only ? rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(o), _path, families, &_handles, &db)
                  : rocksdb::DB::Open(rocksdb::DBOptions(o), _path, families, &_handles, &db);
    if (!status.ok()) return rocks_error("cannot open journal " + _path, status);
    _db.reset(db);
    _events_cf = _handles[0];
    _snapshots_cf = _handles[1];
    _index_cf = _handles.size() > 2 ? _handles[2] : nullptr;
    return {};
}

Status Journal::check_wal(std::optional<WalDamage>* cut) {
    Result<std::optional<WalDamage>> scanned = scan_wal(_path);
    if (!scanned) return scanned.error();
    if (!*scanned) return {};
    WalDamage& damage = **scanned;
    if (!damage.writes_after) {
        *cut = std::move(damage);
        return {};
    }
    // Intact writes follow the damage. They are lost unless RocksDB holds
    // them already: a log whose writes all reached table files is not
    // replayed. A read-only open changes no file and tells.
    Journal probe(_path, _options);
    uint64_t last = damage.events_last_before;
    if (probe.open_db(/*read_only=*/true)) {
        if (probe._db->GetLatestSequenceNumber() >= damage.rocks_seq_after_max) return {};
        std::unique_ptr<rocksdb::Iterator> it(probe._db->NewIterator(rocksdb::ReadOptions(), probe._events_cf));
        it->SeekToLast();
        uint64_t first = 0;
        if (it->Valid()) decode_run_key(it->key().ToStringView(), &first, &last);
    }
    return make_error(ErrorCode::corruption, wal_damage_message(_path, damage, last));
}

std::string wal_damage_message(const std::string& path, const WalDamage& damage, uint64_t last_before) {
    WalSeqs lost = damage.seqs_after;
    if (lost.events_first) lost.add_events(last_before + 1, lost.events_last);
    std::string message = "journal " + path + ": write-ahead log " + damage.file + " is damaged at byte offset " +
                          std::to_string(damage.offset_bytes) + " (" + damage.reason + "), and " +
                          std::to_string(damage.writes_after_count) + " intact write(s) after it hold " +
                          damage.seqs_after.describe() +
                          "; RocksDB would stop replaying at the damage and drop them without a word, so the "
                          "journal was not opened and nothing was changed. `ballast log repair --truncate-after " +
                          std::to_string(last_before) + "` keeps the journal up to seq " +
                          std::to_string(last_before) + " and drops " + lost.describe() +
                          " (the damaged journal is kept beside it)";
    return message;
}

/// Recovery: find the bounds, check the invariants that span records, and
/// verify every record after the newest snapshot (the ones a restart replays).
/// Records before the snapshot are verified whenever they are read.
Status Journal::recover() {
    const std::string journal_name = "journal " + _path;
    uint64_t first = 0;
    uint64_t last = 0;
    {
        std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _events_cf));
        it->SeekToFirst();
        if (it->Valid()) {
            uint64_t unused = 0;
            if (!decode_run_key(it->key().ToStringView(), &first, &unused)) {
                return make_error(ErrorCode::corruption,
                                  journal_name + ": first key is not a run of sequence numbers");
            }
            it->SeekToLast();
            if (!it->Valid() || !decode_run_key(it->key().ToStringView(), &unused, &last)) {
                return make_error(ErrorCode::corruption,
                                  journal_name + ": last key is not a run of sequence numbers");
            }
        }
        if (!it->status().ok()) return rocks_error(journal_name, it->status());
    }

    Result<std::optional<Snapshot>> snapshot = newest_snapshot();
    if (!snapshot) {
        if (snapshot.error().code != ErrorCode::corruption) return snapshot.error();
        return make_error(ErrorCode::corruption,
                          journal_name + ": " + snapshot.error().message +
                              " (nothing was changed; `ballast log repair` rebuilds the journal without the damaged "
                              "snapshot, keeping the events it summarizes)");
    }
    const uint64_t snapshot_seq = snapshot.value() ? snapshot.value()->seq : 0;

    if (last == 0) {
        // No events: a fresh journal, or one whose events were all truncated
        // away. Numbering continues after the newest snapshot, so a seq is
        // never reused for different state.
        _first_seq.store(snapshot_seq + 1, std::memory_order_release);
        _last_seq.store(snapshot_seq, std::memory_order_release);
        return recover_index(snapshot_seq + 1, snapshot_seq);
    }
    if (first > 1 && snapshot_seq + 1 < first) {
        return make_error(ErrorCode::corruption,
                          journal_name + ": events start at seq " + std::to_string(first) +
                              " but no snapshot covers seq " + std::to_string(first - 1) +
                              " (newest snapshot: " +
                              (snapshot_seq ? std::to_string(snapshot_seq) : "none") + ")");
    }
    if (snapshot_seq > last) {
        return make_error(ErrorCode::corruption,
                          journal_name + ": snapshot at seq " + std::to_string(snapshot_seq) +
                              " is newer than the last event, seq " + std::to_string(last));
    }
    if (_options.verify_tail) {
        const uint64_t tail_from = std::max(first, snapshot_seq + 1);
        if (tail_from <= last) {
            uint64_t bad = tail_from;
            if (Status verified = walk(tail_from, last, nullptr, &bad); !verified) {
                return make_error(verified.error().code,
                                  verified.error().message + " (nothing from there on is used; " +
                                      truncate_remedy(first, bad, last) + ")");
            }
        }
    }
    _first_seq.store(first, std::memory_order_release);
    _last_seq.store(last, std::memory_order_release);
    return recover_index(first, last);
}

/// Visits every event in [from, to], checked, in order. Runs are found by
/// key: the one holding `from` is the last whose first seq is at most
/// `from` (SeekForPrev), and each next one must start where the last
/// ended, or a seq is missing.
Status Journal::walk(uint64_t from, uint64_t to, const RecordVisitor* visit, uint64_t* stopped_at) const {
    assert(from <= to);
    uint64_t expected = from;
    Status walked = walk_from(from, to, visit, &expected);
    if (!walked && stopped_at) *stopped_at = expected;
    return walked;
}

Status Journal::walk_from(uint64_t from, uint64_t to, const RecordVisitor* visit, uint64_t* expected_out) const {
    uint64_t& expected = *expected_out;
    rocksdb::ReadOptions read_options;
    read_options.fill_cache = false;  // a scan reads each record once
    read_options.readahead_size = 2 << 20;
    // Every key of a run that starts after `to` sorts at or after this one
    // (8-byte keys of older journals included).
    const std::string upper = key_string(to + 1);
    const rocksdb::Slice upper_slice(upper);
    if (to != UINT64_MAX) read_options.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(read_options, _events_cf));
    it->SeekForPrev(run_key(from, UINT64_MAX));
    if (!it->Valid()) it->Seek(key_string(from));  // no run starts at or before `from`

    std::vector<uint64_t> aligned;
    for (; it->Valid() && expected <= to; it->Next()) {
        uint64_t first = 0;
        uint64_t last = 0;
        if (!decode_run_key(it->key().ToStringView(), &first, &last)) {
            return make_error(ErrorCode::corruption, "journal record seq " + std::to_string(expected) +
                                                         ": its run's key is not a run of sequence numbers");
        }
        const bool before_from = expected == from && last < from;
        if (before_from) continue;  // SeekForPrev's run ends before `from`
        if (expected > from && first < expected) {
            return make_error(ErrorCode::corruption, "journal run seq " + std::to_string(first) + ".." +
                                                         std::to_string(last) + " overlaps seq " +
                                                         std::to_string(expected - 1));
        }
        if (first > expected) {
            return make_error(ErrorCode::corruption, "journal record seq " + std::to_string(expected) +
                                                         ": missing (next present is seq " +
                                                         std::to_string(first) + ")");
        }
        RunCursor cursor(first, last, it->key().size() == key_size, it->value().ToStringView());
        while (!cursor.done() && cursor.next_seq() <= to) {
            uint64_t seq = 0;
            std::string_view record;
            if (Status framed = cursor.next(&seq, &record); !framed) return framed;
            if (seq < expected) continue;
            std::span<const uint8_t> bytes;
            if (Status status = check_event_record(seq, record, &aligned, &bytes); !status) return status;
            if (visit && !(*visit)(seq, bytes)) return {};
            expected = seq + 1;
        }
        if (cursor.done()) {
            if (Status status = cursor.finish(); !status) return status;
        }
    }
    // Past `to` the iterator may have read on into a block that fails;
    // nothing wanted was in it.
    if (!it->status().ok() && expected <= to) {
        return rocks_error("journal record seq " + std::to_string(expected), it->status());
    }
    if (expected <= to) {
        return make_error(ErrorCode::corruption,
                          "journal record seq " + std::to_string(expected) + ": missing");
    }
    return {};
}

Result<uint64_t> Journal::append(std::span<events::Event> batch) { return append(batch, ShipRuns()); }

Result<uint64_t> Journal::append(std::span<events::Event> batch, const ShipRuns& ship) {
    if (_options.read_only) {
        return make_error(ErrorCode::conflict, "journal " + _path + " is open read-only");
    }
    const uint64_t last = last_seq();
    if (batch.empty()) return last;
    const LatencyHistogram::Timer timer(_append_latency);
    // What is refused here never reaches the disk: one bad event written
    // would stop every later open of the journal at its seq.
    if (Status valid = events::check_batch(batch); !valid) {
        return make_error(ErrorCode::invalid_argument, "journal " + _path + ": append after seq " +
                                                           std::to_string(last) + " refused (nothing appended): " +
                                                           valid.error().message);
    }

    // One run per batch (split when long): one key, not one per event.
    rocksdb::WriteBatch write_batch;
    std::vector<ShippedRun> shipped;
    auto put_run = [&] {
        if (ship) shipped.push_back({_run->key(), _run->value()});
        write_batch.Put(_events_cf, _run->key(), _run->value());
        _run->clear();
    };
    uint64_t seq = last;
    _run->clear();
    _index->clear();
    for (events::Event& event : batch) {
        seq++;
        event.seq = seq;
        _index->add(seq, event);
        if (_run->full()) put_run();
        if (auto* metrics = std::get_if<events::PartitionMetrics>(&event.body)) {
            // In place: the caller routes this event, and a replay must see
            // what the live run acted on (journal_samples.h).
            round_samples(*metrics);
            if (encode_compact_samples(event, &_compact)) {
                _run->add(seq, {reinterpret_cast<const uint8_t*>(_compact.data()), _compact.size()});
                continue;
            }
        }
        _run->add(seq, _encoder.encode(event));
    }
    put_run();
    if (ship) {
        if (Status shipped_ok = ship(shipped); !shipped_ok) {
            for (events::Event& event : batch) event.seq = 0;
            return make_error(shipped_ok.error().code, "journal " + _path + ": seq " + std::to_string(last + 1) + ".." +
                                                           std::to_string(seq) +
                                                           " not appended: the replica refused them: " +
                                                           shipped_ok.error().message);
        }
    }
    Result<uint64_t> written = write(write_batch, last, seq, batch);
    if (written) {
        _round_latency.appended(batch, last + 1, seq, timer.started());
        _append_tally.appended(batch);
    }
    return written;
}


Result<uint64_t> Journal::write(rocksdb::WriteBatch& write_batch, uint64_t last, uint64_t seq,
                                std::span<events::Event> numbered) {
    put_index(write_batch, seq);  // the events' postings, in the same atomic write
    rocksdb::WriteOptions write_options;
    write_options.sync = _options.sync;
    const rocksdb::Status status = _db->Write(write_options, &write_batch);
    if (!status.ok()) {
        // The batch is atomic: nothing of it was written, and the numbers
        // given out above are handed out again by the next append.
        for (events::Event& event : numbered) event.seq = 0;
        return rocks_error("journal " + _path + ": append of seq " + std::to_string(last + 1) +
                               ".." + std::to_string(seq),
                           status);
    }
    _last_seq.store(seq, std::memory_order_release);
    return seq;
}

Status Journal::scan(uint64_t from, uint64_t to, const RecordVisitor& visit) const {
    from = std::max(from, first_seq());
    to = std::min(to, last_seq());
    if (from > to) return {};
    uint64_t bad = from;
    Status walked = walk(from, to, &visit, &bad);
    if (walked || walked.error().code != ErrorCode::corruption) return walked;
    return make_error(ErrorCode::corruption,
                      walked.error().message + " (" + truncate_remedy(first_seq(), bad, last_seq()) + ")");
}

std::string truncate_remedy(uint64_t first, uint64_t bad, uint64_t last) {
    const std::string kept = bad > first ? "seq " + std::to_string(first) + ".." + std::to_string(bad - 1)
                                         : std::string("no event");
    return "`ballast log repair --truncate-after " + std::to_string(bad - 1) + "` keeps " + kept + " and drops seq " +
           std::to_string(bad) + ".." + std::to_string(last) + "; the damaged journal is kept beside it";
}

Result<std::vector<events::Event>> Journal::read(uint64_t from, uint64_t to) const {
    std::vector<events::Event> out;
    // The range is dense, so its size is known: one allocation instead of
    // regrowth that moves every event decoded so far, again and again.
    const uint64_t lo = std::max(from, first_seq());
    const uint64_t hi = std::min(to, last_seq());
    if (lo <= hi) out.reserve(hi - lo + 1);
    Status status = scan(from, to, [&](uint64_t, std::span<const uint8_t> bytes) {
        out.push_back(events::from_flatbuffer(events::view(bytes)));
        return true;
    });
    if (!status) return status.error();
    return out;
}

Result<events::Event> Journal::read_one(uint64_t seq) const {
    Result<std::vector<events::Event>> events = read(seq, seq);
    if (!events) return events.error();
    if (events->empty()) {
        return make_error(ErrorCode::not_found, "journal " + _path + " has no seq " +
                                                    std::to_string(seq) + " (it holds " +
                                                    std::to_string(first_seq()) + ".." +
                                                    std::to_string(last_seq()) + ")");
    }
    return std::move(events->front());
}

// ---------------------------------------------------------------- maintenance

uint64_t Journal::disk_size_bytes() const {
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(_path, ec)) {
        if (entry.is_regular_file(ec)) total += entry.file_size(ec);
    }
    return total;
}

}  // namespace ballast::store
