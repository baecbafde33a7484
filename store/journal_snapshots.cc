/// Snapshots: opaque engine state as of a seq, in the "snapshots" column
/// family.
///
/// Layout. A snapshot is written in parts of up to 1 MiB, each a record of
/// its own (CRC32C, journal_record.h) under key = seq (8 bytes) + part index
/// (4 bytes), whose payload is one flag byte (1 on the last part) and then
/// the part's bytes. Snapshots written before parts existed are one record
/// under the 8-byte key alone, and are read as they are. The parts of seq
/// sort between key_string(seq) and key_string(seq + 1), so retention and
/// repair delete them by seq range like any other snapshot.
///
/// Why parts: at 1M partitions the engine's state is ~160 MB. Written as one
/// value it would be encoded into one string, framed into a second, and
/// become one 160 MB block of the table file (plus its compressed copy):
/// ~0.8 GB of memory faulted in beside a running stream, whose latency feels
/// it. In parts, the writer holds ~1 MiB at a time.
///
/// Atomicity. Every part becomes visible at once: a WriteBatch while the
/// snapshot is small, otherwise one table file ingested in one step (and a
/// large snapshot never holds RocksDB's write path, the WAL and memtable
/// that every append waits on). A crash before that leaves at most a table
/// file that was never ingested, which the next open deletes.

#include <cassert>
#include <filesystem>

#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>

#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"

namespace ballast::store {

using events::make_error;

namespace {

constexpr uint8_t last_part_flag = 1;

std::string_view as_view(std::span<const uint8_t> bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

// ---------------------------------------------------------------- writing

SnapshotWriter::SnapshotWriter(Journal& journal, uint64_t seq) : _journal(journal), _seq(seq) {}

SnapshotWriter::~SnapshotWriter() {
    if (_finished || _file.empty()) return;
    _writer.reset();
    std::error_code ec;
    std::filesystem::remove(_file, ec);  // never ingested: the snapshot was never written
}

Status SnapshotWriter::append(std::span<const uint8_t> bytes) {
    assert(!_finished);
    while (!bytes.empty()) {
        const size_t take = std::min(bytes.size(), part_bytes - _pending.size());
        _pending.append(as_view(bytes.first(take)));
        bytes = bytes.subspan(take);
        if (_pending.size() == part_bytes) {
            if (Status sealed = seal_part(false); !sealed) return sealed;
        }
    }
    return {};
}

Status SnapshotWriter::seal_part(bool last) {
    std::string payload;
    payload.reserve(1 + _pending.size());
    payload.push_back(static_cast<char>(last ? last_part_flag : 0));
    payload += _pending;
    _pending.clear();
    std::string record;
    encode_record({reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}, &record);
    std::string key = snapshot_part_key(_seq, _parts++);
    if (_writer) {
        const rocksdb::Status status = _writer->Put(key, record);
        if (!status.ok()) return rocks_error("snapshot seq " + std::to_string(_seq) + " (writing " + _file + ")", status);
        return {};
    }
    _held_bytes += record.size();
    _held.emplace_back(std::move(key), std::move(record));
    if (_held_bytes >= snapshot_ingest_min_bytes) return to_file();
    return {};
}

/// From here on the parts go to a table file of their own, the ones held so
/// far first (in key order, as the file needs).
Status SnapshotWriter::to_file() {
    _file = (std::filesystem::path(_journal._path) / (snapshot_file_prefix + std::to_string(_seq) + ".sst")).string();
    _writer = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), db_options(_journal._options),
                                                       _journal._snapshots_cf);
    rocksdb::Status status = _writer->Open(_file);
    for (size_t i = 0; status.ok() && i < _held.size(); i++) status = _writer->Put(_held[i].first, _held[i].second);
    _held.clear();
    _held_bytes = 0;
    if (!status.ok()) return rocks_error("snapshot seq " + std::to_string(_seq) + " (writing " + _file + ")", status);
    return {};
}

Status SnapshotWriter::finish() {
    assert(!_finished);
    const std::string what = "snapshot seq " + std::to_string(_seq);
    if (Status sealed = seal_part(true); !sealed) return sealed;
    if (_writer) {
        rocksdb::Status status = _writer->Finish();  // syncs the file
        if (status.ok()) {
            rocksdb::IngestExternalFileOptions ingest;
            ingest.move_files = true;
            // The file's keys are newer than any snapshot key in the
            // memtable (snapshots are written in seq order), so no flush.
            status = _journal._db->IngestExternalFile(_journal._snapshots_cf, {_file}, ingest);
        }
        _writer.reset();
        std::error_code ec;
        std::filesystem::remove(_file, ec);  // moved in (a link) or failed: not needed either way
        _file.clear();
        if (!status.ok()) return rocks_error(what + " (ingesting its table file)", status);
    } else {
        rocksdb::WriteBatch batch;
        for (const auto& [key, record] : _held) batch.Put(_journal._snapshots_cf, key, record);
        rocksdb::WriteOptions write_options;
        write_options.sync = _journal._options.sync;
        const rocksdb::Status status = _journal._db->Write(write_options, &batch);
        if (!status.ok()) return rocks_error(what, status);
    }
    _finished = true;
    return {};
}

Result<std::unique_ptr<SnapshotWriter>> Journal::begin_snapshot(uint64_t seq) {
    if (_options.read_only) {
        return make_error(ErrorCode::conflict, "journal " + _path + " is open read-only");
    }
    const uint64_t first = first_seq();
    const uint64_t last = last_seq();
    if (seq == 0 || seq > last || seq + 1 < first) {
        return make_error(ErrorCode::invalid_argument,
                          "snapshot seq " + std::to_string(seq) + " is outside the journal (" +
                              std::to_string(first) + ".." + std::to_string(last) + ")");
    }
    return std::unique_ptr<SnapshotWriter>(new SnapshotWriter(*this, seq));
}

Status Journal::write_snapshot(uint64_t seq, std::span<const uint8_t> bytes) {
    Result<std::unique_ptr<SnapshotWriter>> writer = begin_snapshot(seq);
    if (!writer) return writer.error();
    if (Status appended = (*writer)->append(bytes); !appended) return appended;
    return (*writer)->finish();
}

// ---------------------------------------------------------------- reading

/// Every record of the snapshot at `seq`, checked: one record, or parts
/// 0..n-1 in order with only the last flagged last.
Result<Snapshot> Journal::read_snapshot_records(uint64_t seq) const {
    const std::string what = "snapshot seq " + std::to_string(seq);
    const std::string prefix = key_string(seq);
    std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _snapshots_cf));
    Snapshot out{seq, {}};
    bool whole = false;
    uint32_t parts = 0;
    bool ended = false;
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
        uint64_t key_seq = 0;
        std::optional<uint32_t> part;
        if (!decode_snapshot_key(it->key().ToStringView(), &key_seq, &part)) {
            return make_error(ErrorCode::corruption, "journal " + _path + ": " + what + ": a key of " +
                                                         std::to_string(it->key().size()) + " bytes");
        }
        std::span<const uint8_t> payload;
        if (!part) {
            if (Status checked = check_record(what, it->value().ToStringView(), &payload); !checked) {
                return checked.error();
            }
            out.bytes.assign(as_view(payload));
            whole = true;
            continue;
        }
        const std::string part_name = what + " part " + std::to_string(*part);
        if (whole || ended) return make_error(ErrorCode::corruption, part_name + ": after the snapshot's end");
        if (*part != parts) {
            return make_error(ErrorCode::corruption, what + ": part " + std::to_string(parts) + " is missing");
        }
        if (Status checked = check_record(part_name, it->value().ToStringView(), &payload); !checked) {
            return checked.error();
        }
        if (payload.empty() || payload[0] > last_part_flag) {
            return make_error(ErrorCode::corruption, part_name + ": no valid flag byte");
        }
        ended = payload[0] == last_part_flag;
        out.bytes.append(as_view(payload.subspan(1)));
        parts++;
    }
    if (!it->status().ok()) return rocks_error("journal " + _path + " " + what, it->status());
    if (!whole && parts == 0) return make_error(ErrorCode::not_found, "no snapshot at seq " + std::to_string(seq));
    if (parts > 0 && !ended) {
        return make_error(ErrorCode::corruption,
                          what + ": ends at part " + std::to_string(parts - 1) + " without its last part");
    }
    return out;
}

Result<std::optional<Snapshot>> Journal::newest_snapshot() const {
    std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _snapshots_cf));
    it->SeekToLast();
    if (!it->status().ok()) return rocks_error("journal " + _path + " snapshots", it->status());
    if (!it->Valid()) return std::optional<Snapshot>();
    uint64_t seq = 0;
    std::optional<uint32_t> part;
    if (!decode_snapshot_key(it->key().ToStringView(), &seq, &part)) {
        return make_error(ErrorCode::corruption,
                          "journal " + _path + ": a snapshot key is not a sequence number (8 bytes, or 12 for a part)");
    }
    Result<Snapshot> snapshot = read_snapshot_records(seq);
    if (!snapshot) return snapshot.error();
    return std::optional<Snapshot>(std::move(*snapshot));
}

Result<std::vector<uint64_t>> Journal::snapshot_seqs() const {
    std::vector<uint64_t> seqs;
    std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _snapshots_cf));
    it->SeekToFirst();
    while (it->Valid()) {
        uint64_t seq = 0;
        std::optional<uint32_t> part;
        if (!decode_snapshot_key(it->key().ToStringView(), &seq, &part)) {
            return make_error(ErrorCode::corruption, "journal " + _path +
                                                         ": a snapshot key is not a sequence number "
                                                         "(8 bytes, or 12 for a part)");
        }
        seqs.push_back(seq);
        if (seq == UINT64_MAX) break;
        it->Seek(key_string(seq + 1));  // past its parts, without reading them
    }
    if (!it->status().ok()) return rocks_error("journal " + _path + " snapshots", it->status());
    return seqs;
}

Result<Snapshot> Journal::read_snapshot(uint64_t seq) const { return read_snapshot_records(seq); }

}  // namespace ballast::store
