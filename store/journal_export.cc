/// The portable journal file of `ballast log export` / `import`.
///
///   file   = magic "BLSTJRNL" | version u32 (1) | reserved u32 (0) | frame*
///   frame  = length u32 | crc32c u32 | kind u8 | seq u64 | payload[length]
///
/// Integers are little-endian. The CRC32C covers kind, seq and payload, so a
/// frame read back is either exactly what was written or an error naming its
/// offset. Kind 1 is a snapshot (payload: the engine's opaque state), kind 2
/// an event (payload: the event's flatbuffer, exactly as the journal holds
/// it). All snapshots come first, oldest first, then the events in sequence
/// order. Payload bytes are copied verbatim both ways, which is what makes
/// export -> import -> export byte-identical.

#include <cstring>
#include <fstream>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "store/crc32c.h"
#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_samples.h"

namespace ballast::store {

using events::make_error;

namespace {

constexpr char magic[8] = {'B', 'L', 'S', 'T', 'J', 'R', 'N', 'L'};
constexpr uint32_t format_version = 1;
constexpr size_t file_header_size = 16;
constexpr size_t frame_header_size = 4 + 4 + 1 + 8;
constexpr uint8_t kind_snapshot = 1;
constexpr uint8_t kind_event = 2;
constexpr uint8_t kind_end = 3;
/// No event or snapshot is this large; a length above it means a damaged
/// file, and refusing it bounds the memory an import can be asked for.
constexpr uint32_t payload_size_max = 1u << 30;
/// Events per WriteBatch while importing.
constexpr size_t import_batch_events = 4096;

void put_u64_le(std::string* out, uint64_t v) {
    for (int i = 0; i < 8; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint32_t frame_crc(uint8_t kind, const char* seq_le, std::span<const uint8_t> payload) {
    uint32_t crc = crc32c(&kind, 1);
    crc = crc32c_extend(crc, reinterpret_cast<const uint8_t*>(seq_le), 8);
    return crc32c_extend(crc, payload.data(), payload.size());
}

class FrameWriter {
public:
    explicit FrameWriter(std::ofstream& out) : _out(out) {}

    void write(uint8_t kind, uint64_t seq, std::span<const uint8_t> payload) {
        std::string seq_le;
        put_u64_le(&seq_le, seq);
        _header.clear();
        put_u32_le(&_header, static_cast<uint32_t>(payload.size()));
        put_u32_le(&_header, frame_crc(kind, seq_le.data(), payload));
        _header.push_back(static_cast<char>(kind));
        _header += seq_le;
        _out.write(_header.data(), static_cast<std::streamsize>(_header.size()));
        _out.write(reinterpret_cast<const char*>(payload.data()),
                   static_cast<std::streamsize>(payload.size()));
        bytes += _header.size() + payload.size();
    }

    uint64_t bytes = file_header_size;

private:
    std::ofstream& _out;
    std::string _header;
};

struct Frame {
    uint64_t offset = 0;
    uint8_t kind = 0;
    uint64_t seq = 0;
    std::vector<uint64_t> payload_aligned;  // 8-byte aligned for flatbuffers
    std::span<const uint8_t> payload;
};

/// Reads frames one by one, checking framing and CRC.
class FrameReader {
public:
    FrameReader(std::ifstream& in, std::string file) : _in(in), _file(std::move(file)) {}

    Status read_file_header() {
        char header[file_header_size];
        _in.read(header, file_header_size);
        if (_in.gcount() != static_cast<std::streamsize>(file_header_size) ||
            std::memcmp(header, magic, sizeof magic) != 0) {
            return make_error(ErrorCode::corruption,
                              _file + ": not a Ballast journal export (no BLSTJRNL header)");
        }
        const uint32_t version = get_u32_le(header + 8);
        if (version != format_version) {
            return make_error(ErrorCode::unsupported,
                              _file + ": export format version " + std::to_string(version) +
                                  " (this build reads version " +
                                  std::to_string(format_version) + ")");
        }
        _offset = file_header_size;
        return {};
    }

    /// false at a clean end of file.
    Result<bool> next(Frame* frame) {
        char header[frame_header_size];
        _in.read(header, frame_header_size);
        const auto got = static_cast<size_t>(_in.gcount());
        if (got == 0) return false;
        frame->offset = _offset;
        if (got != frame_header_size) return error(*frame, "truncated frame header");
        const uint32_t length = get_u32_le(header);
        const uint32_t stored_crc = get_u32_le(header + 4);
        frame->kind = static_cast<uint8_t>(header[8]);
        frame->seq = get_u64_le(header + 9);
        if (length > payload_size_max) {
            return error(*frame, "payload length " + std::to_string(length) + " exceeds " +
                                     std::to_string(payload_size_max));
        }
        frame->payload_aligned.resize((length + 7) / 8);
        char* payload = reinterpret_cast<char*>(frame->payload_aligned.data());
        _in.read(payload, length);
        if (static_cast<uint32_t>(_in.gcount()) != length) {
            return error(*frame, "truncated payload (" + std::to_string(_in.gcount()) + " of " +
                                     std::to_string(length) + " bytes)");
        }
        frame->payload = {reinterpret_cast<const uint8_t*>(payload), length};
        if (frame_crc(frame->kind, header + 9, frame->payload) != stored_crc) {
            return error(*frame, "CRC32C mismatch");
        }
        _offset += frame_header_size + length;
        return true;
    }

    Error error(const Frame& frame, const std::string& what) const {
        return make_error(ErrorCode::corruption,
                          _file + ": frame at offset " + std::to_string(frame.offset) +
                              (frame.seq ? " (seq " + std::to_string(frame.seq) + ")" : "") +
                              ": " + what);
    }

    uint64_t offset() const { return _offset; }

private:
    std::ifstream& _in;
    std::string _file;
    uint64_t _offset = 0;
};

/// Walks a whole export file, checking every rule, and hands each good frame
/// to `on_frame`. Used twice by import: once to check, once to write.
template <class OnFrame>
Result<TransferReport> walk_export(const std::string& file_path, OnFrame on_frame) {
    std::ifstream in(file_path, std::ios::binary);
    if (!in) return make_error(ErrorCode::not_found, "cannot open " + file_path);
    FrameReader reader(in, file_path);
    if (Status status = reader.read_file_header(); !status) return status.error();

    TransferReport report;
    uint64_t last_snapshot = 0;
    bool ended = false;
    Frame frame;
    while (true) {
        Result<bool> more = reader.next(&frame);
        if (!more) return more.error();
        if (!*more) break;
        if (ended) return reader.error(frame, "frame after the end frame");
        if (frame.kind == kind_end) {
            if (frame.seq != report.snapshots + report.events || !frame.payload.empty()) {
                return reader.error(frame, "end frame counts " + std::to_string(frame.seq) +
                                               " frames, the file has " +
                                               std::to_string(report.snapshots + report.events));
            }
            ended = true;
            continue;
        }
        if (frame.kind == kind_snapshot) {
            if (report.events > 0) return reader.error(frame, "snapshot after events");
            if (frame.seq == 0 || frame.seq <= last_snapshot) {
                return reader.error(frame, "snapshot seq out of order");
            }
            last_snapshot = frame.seq;
            report.snapshots++;
        } else if (frame.kind == kind_event) {
            if (Status status = events::verify(frame.payload); !status) {
                return reader.error(frame, status.error().message);
            }
            if (events::header(events::view(frame.payload)).seq != frame.seq) {
                return reader.error(frame, "event carries seq " +
                                               std::to_string(events::header(events::view(frame.payload)).seq));
            }
            if (report.events == 0) {
                if (frame.seq > 1 && last_snapshot + 1 < frame.seq) {
                    return reader.error(frame, "events start at seq " +
                                                   std::to_string(frame.seq) +
                                                   " but no snapshot covers the events before");
                }
                report.first_seq = frame.seq;
            } else if (frame.seq != report.last_seq + 1) {
                return reader.error(frame, "expected seq " + std::to_string(report.last_seq + 1));
            }
            report.last_seq = frame.seq;
            report.events++;
        } else {
            return reader.error(frame, "unknown frame kind " + std::to_string(frame.kind));
        }
        if (Status status = on_frame(frame); !status) return status.error();
    }
    if (!ended) {
        return make_error(ErrorCode::corruption,
                          file_path + ": ends at offset " + std::to_string(reader.offset()) +
                              " without its end frame (the file is truncated)");
    }
    if (report.events > 0 && last_snapshot > report.last_seq) {
        return make_error(ErrorCode::corruption,
                          file_path + ": snapshot at seq " + std::to_string(last_snapshot) +
                              " is newer than the last event, seq " +
                              std::to_string(report.last_seq));
    }
    report.file_bytes = reader.offset();
    return report;
}

}  // namespace

Result<TransferReport> Journal::export_to(const std::string& file_path) const {
    std::ofstream out(file_path, std::ios::binary | std::ios::trunc);
    if (!out) return make_error(ErrorCode::io_error, "cannot write " + file_path);
    std::string header(magic, sizeof magic);
    put_u32_le(&header, format_version);
    put_u32_le(&header, 0);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));

    FrameWriter writer(out);
    TransferReport report;
    // Damage is skipped, not fatal: an export is how an operator gets what
    // is readable out of a damaged journal. What is skipped is named in the
    // report; an import refuses the gap.
    Result<std::vector<uint64_t>> seqs = snapshot_seqs();
    if (!seqs) report.skipped.push_back("snapshots: " + seqs.error().message);
    for (const uint64_t seq : seqs ? *seqs : std::vector<uint64_t>{}) {
        Result<Snapshot> snapshot = read_snapshot(seq);
        if (!snapshot) {
            report.skipped.push_back("snapshot seq " + std::to_string(seq) + ": " + snapshot.error().message);
            continue;
        }
        writer.write(kind_snapshot, seq,
                     {reinterpret_cast<const uint8_t*>(snapshot->bytes.data()),
                      snapshot->bytes.size()});
        report.snapshots++;
    }
    const RecordVisitor visit = [&](uint64_t seq, std::span<const uint8_t> bytes) {
        writer.write(kind_event, seq, bytes);
        if (report.events == 0) report.first_seq = seq;
        report.last_seq = seq;
        report.events++;
        return true;
    };
    const uint64_t last = last_seq();
    for (uint64_t from = first_seq(); from <= last;) {
        uint64_t bad = from;
        Status status = walk(from, last, &visit, &bad);
        if (status) break;
        const uint64_t resume = next_readable(bad, last);
        report.skipped.push_back("seq " + std::to_string(bad) + ".." + std::to_string(resume - 1) + ": " +
                                 status.error().message);
        from = resume;
    }
    writer.write(kind_end, report.snapshots + report.events, {});
    out.flush();
    if (!out) return make_error(ErrorCode::io_error, "write to " + file_path + " failed");
    report.file_bytes = writer.bytes;
    return report;
}

/// The first seq after `bad` (which does not read) from which a walk reads,
/// or last + 1. Galloping, then halving: a damaged block costs a few reads,
/// not one per event it held.
uint64_t Journal::next_readable(uint64_t bad, uint64_t last) const {
    auto reads = [&](uint64_t seq) { return static_cast<bool>(walk(seq, seq, nullptr)); };
    uint64_t low = bad;  // does not read
    uint64_t step = 1;
    uint64_t high = bad;
    while (true) {
        high = low + step > last ? last + 1 : low + step;
        if (high > last || reads(high)) break;
        low = high;
        step *= 2;
    }
    while (high - low > 1) {  // low does not read; high reads (or is past the end)
        const uint64_t middle = low + (high - low) / 2;
        if (reads(middle)) {
            high = middle;
        } else {
            low = middle;
        }
    }
    return high;
}

Result<TransferReport> Journal::import_from(const std::string& file_path,
                                            const std::string& journal_path,
                                            const JournalOptions& options) {
    // Pass 1: check the whole file before writing anything.
    Result<TransferReport> checked = walk_export(file_path, [](const Frame&) { return Status(); });
    if (!checked) return checked.error();

    Result<std::unique_ptr<Journal>> opened = open(journal_path, options);
    if (!opened) return opened.error();
    Journal& journal = **opened;
    Result<std::vector<uint64_t>> existing_snapshots = journal.snapshot_seqs();
    if (!existing_snapshots) return existing_snapshots.error();
    if (journal.event_count() > 0 || !existing_snapshots->empty()) {
        return make_error(ErrorCode::conflict,
                          "import needs an empty journal; " + journal_path + " holds events " +
                              std::to_string(journal.first_seq()) + ".." +
                              std::to_string(journal.last_seq()) + " and " +
                              std::to_string(existing_snapshots->size()) + " snapshot(s)");
    }

    // Pass 2: write, in batches; the final batch is synced.
    rocksdb::WriteBatch batch;
    std::string value;
    auto flush = [&](bool sync) -> Status {
        rocksdb::WriteOptions write_options;
        write_options.sync = sync;
        const rocksdb::Status status = journal._db->Write(write_options, &batch);
        batch.Clear();
        if (!status.ok()) {
            return make_error(ErrorCode::io_error,
                              "import into " + journal_path + ": " + status.ToString());
        }
        return {};
    };
    // Events go in as runs, as appends write them (journal_record.h); the
    // export's checks made sure they are dense and in order.
    RunBuilder run;
    std::string compact;
    uint64_t events_in_batch = 0;
    auto end_run = [&] {
        if (run.empty()) return;
        batch.Put(journal._events_cf, run.key(), run.value());
        run.clear();
    };
    Result<TransferReport> written = walk_export(file_path, [&](const Frame& frame) -> Status {
        if (frame.kind == kind_snapshot) {
            encode_record(frame.payload, &value);
            batch.Put(journal._snapshots_cf, key_string(frame.seq), value);
        } else {
            if (run.full() || (!run.empty() && frame.seq != run.last() + 1)) end_run();
            run.add(frame.seq, stored_payload(frame.payload, &compact));
            events_in_batch++;
        }
        if (events_in_batch >= import_batch_events) {
            end_run();
            events_in_batch = 0;
            return flush(false);
        }
        return {};
    });
    if (!written) return written.error();
    end_run();
    if (batch.Count() > 0) {
        if (Status status = flush(false); !status) return status.error();
    }
    if (const rocksdb::Status synced = journal._db->SyncWAL(); !synced.ok()) {
        return make_error(ErrorCode::io_error,
                          "import into " + journal_path + ": " + synced.ToString());
    }
    // Bounds and invariants exactly as a fresh open finds them.
    if (Status status = journal.recover(); !status) return status.error();
    return written;
}

}  // namespace ballast::store
