#include "store/journal.h"

#include <cassert>
#include <filesystem>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include "events/event_check.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"

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
    : _path(std::move(path)), _options(options), _run(std::make_unique<RunBuilder>()) {}

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
    const rocksdb::Options o = db_options(options);
    const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(o)},
        {snapshots_cf_name, rocksdb::ColumnFamilyOptions(o)},
    };
    rocksdb::DB* db = nullptr;
    const rocksdb::Status status =
        options.read_only
            ? rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(o), path, families,
                                           &journal->_handles, &db)
            : rocksdb::DB::Open(rocksdb::DBOptions(o), path, families, &journal->_handles, &db);
    if (!status.ok()) return rocks_error("cannot open journal " + path, status);
    journal->_db.reset(db);
    journal->_events_cf = journal->_handles[0];
    journal->_snapshots_cf = journal->_handles[1];

    if (Status recovered = journal->recover(); !recovered) return recovered.error();
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
    if (!snapshot) return snapshot.error();
    const uint64_t snapshot_seq = snapshot.value() ? snapshot.value()->seq : 0;

    if (last == 0) {
        // No events: a fresh journal, or one whose events were all truncated
        // away. Numbering continues after the newest snapshot, so a seq is
        // never reused for different state.
        _first_seq.store(snapshot_seq + 1, std::memory_order_release);
        _last_seq.store(snapshot_seq, std::memory_order_release);
        return {};
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
            if (Status verified = verify_range(tail_from, last); !verified) {
                const std::string hint =
                    " (nothing from there on is used; `ballast log repair --truncate-after SEQ`"
                    " with SEQ before the bad record drops it and everything after)";
                return make_error(verified.error().code, verified.error().message + hint);
            }
        }
    }
    _first_seq.store(first, std::memory_order_release);
    _last_seq.store(last, std::memory_order_release);
    return {};
}

Status Journal::verify_range(uint64_t from, uint64_t to) const {
    assert(from <= to);
    // scan() clamps to [_first_seq, _last_seq], which recover() has not set
    // yet, so walk directly here.
    return walk(from, to, nullptr);
}

/// Visits every event in [from, to], checked, in order. Runs are found by
/// key: the one holding `from` is the last whose first seq is at most
/// `from` (SeekForPrev), and each next one must start where the last
/// ended, or a seq is missing.
Status Journal::walk(uint64_t from, uint64_t to, const RecordVisitor* visit) const {
    assert(from <= to);
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
    uint64_t expected = from;
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
    if (!it->status().ok()) {
        return rocks_error("journal record seq " + std::to_string(expected), it->status());
    }
    if (expected <= to) {
        return make_error(ErrorCode::corruption,
                          "journal record seq " + std::to_string(expected) + ": missing");
    }
    return {};
}

Result<uint64_t> Journal::append(std::span<events::Event> batch) {
    if (_options.read_only) {
        return make_error(ErrorCode::conflict, "journal " + _path + " is open read-only");
    }
    const uint64_t last = last_seq();
    if (batch.empty()) return last;
    // What is refused here never reaches the disk: one bad event written
    // would stop every later open of the journal at its seq.
    if (Status valid = events::check_batch(batch); !valid) {
        return make_error(ErrorCode::invalid_argument, "journal " + _path + ": append after seq " +
                                                           std::to_string(last) + " refused (nothing appended): " +
                                                           valid.error().message);
    }

    // One run per batch (split when long): one key, not one per event.
    rocksdb::WriteBatch write_batch;
    uint64_t seq = last;
    _run->clear();
    for (events::Event& event : batch) {
        seq++;
        event.seq = seq;
        if (_run->full()) {
            write_batch.Put(_events_cf, _run->key(), _run->value());
            _run->clear();
        }
        _run->add(seq, _encoder.encode(event));
    }
    write_batch.Put(_events_cf, _run->key(), _run->value());
    rocksdb::WriteOptions write_options;
    write_options.sync = _options.sync;
    const rocksdb::Status status = _db->Write(write_options, &write_batch);
    if (!status.ok()) {
        // The batch is atomic: nothing of it was written, and the numbers
        // given out above are handed out again by the next append.
        for (events::Event& event : batch) event.seq = 0;
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
    return walk(from, to, &visit);
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

Result<uint64_t> Journal::truncate_after(const std::string& path, uint64_t seq) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) {
        return make_error(ErrorCode::not_found, "no journal at " + path);
    }
    // Open without recovery checks: the journal may be failing them, and
    // this is the way out. Nothing here reads a record.
    JournalOptions options;
    options.verify_tail = false;
    options.create_if_missing = false;
    std::unique_ptr<Journal> journal(new Journal(path, options));
    const rocksdb::Options o = db_options(options);
    const std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(o)},
        {snapshots_cf_name, rocksdb::ColumnFamilyOptions(o)},
    };
    rocksdb::DB* db = nullptr;
    rocksdb::Status status =
        rocksdb::DB::Open(rocksdb::DBOptions(o), path, families, &journal->_handles, &db);
    if (!status.ok()) return rocks_error("cannot open journal " + path, status);
    journal->_db.reset(db);
    journal->_events_cf = journal->_handles[0];
    journal->_snapshots_cf = journal->_handles[1];

    // Count what goes by the runs' keys. The one run that holds `seq` and
    // more is cut: its records up to `seq` are kept as they are, unchecked
    // (the journal may be failing its checks; only the lengths that frame
    // them are read).
    if (seq == UINT64_MAX) return uint64_t{0};
    uint64_t deleted = 0;
    rocksdb::WriteBatch batch;
    {
        std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(),
                                                              journal->_events_cf));
        it->SeekForPrev(run_key(seq, UINT64_MAX));
        if (!it->Valid()) it->SeekToFirst();
        for (; it->Valid(); it->Next()) {
            uint64_t first = 0;
            uint64_t last = 0;
            if (!decode_run_key(it->key().ToStringView(), &first, &last)) {
                return make_error(ErrorCode::corruption,
                                  "truncate journal " + path + ": a key after seq " + std::to_string(seq) +
                                      " is not a run of sequence numbers");
            }
            if (last <= seq) continue;
            if (first > seq) {
                deleted += last - first + 1;
                continue;
            }
            Result<std::string> kept = slice_run(it->key().ToStringView(), it->value().ToStringView(), first, seq);
            if (!kept) {
                return make_error(kept.error().code,
                                  "truncate journal " + path + " after seq " + std::to_string(seq) + ": " +
                                      kept.error().message + " (truncate after seq " + std::to_string(first - 1) +
                                      " instead, before its run)");
            }
            batch.Delete(journal->_events_cf, it->key());
            batch.Put(journal->_events_cf, run_key(first, seq), *kept);
            deleted += last - seq;
        }
        if (!it->status().ok()) return rocks_error("truncate journal " + path, it->status());
    }
    const std::string begin = key_string(seq + 1);
    const std::string end(run_key_size, '\xff');
    batch.DeleteRange(journal->_events_cf, begin, end);
    batch.Delete(journal->_events_cf, end);  // DeleteRange's end is exclusive
    // Snapshot keys are 8 bytes, or 12 for the parts of one (journal_record.h).
    const std::string snapshots_end(snapshot_part_key_size, '\xff');
    batch.DeleteRange(journal->_snapshots_cf, begin, snapshots_end);
    batch.Delete(journal->_snapshots_cf, snapshots_end);
    rocksdb::WriteOptions write_options;
    write_options.sync = true;
    status = db->Write(write_options, &batch);
    if (!status.ok()) return rocks_error("truncate journal " + path, status);
    return deleted;
}

uint64_t Journal::disk_size_bytes() const {
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(_path, ec)) {
        if (entry.is_regular_file(ec)) total += entry.file_size(ec);
    }
    return total;
}

}  // namespace ballast::store
