/// A reader of RocksDB's write-ahead log format, enough to find damage and
/// to say which journal seqs the writes around it hold.
///
/// A log is a sequence of 32 KiB blocks. A block holds physical records:
///
///   masked crc32c u32 | length u16 | type u8 | [log number u32] | payload
///
/// (little-endian; the log number only in the recyclable types 5-8, whose
/// header is 11 bytes, not 7). The CRC covers the type byte, the log number
/// if any, and the payload; RocksDB stores it masked: ((crc >> 15) |
/// (crc << 17)) + 0xa282ead8. A record never crosses a block: a write longer
/// than what is left of a block is split into FIRST, MIDDLE..., LAST (types
/// 2, 3, 4; FULL, 1, when it fits). Fewer than a header's bytes at the end of
/// a block are zero padding. Each write (a logical record) is a WriteBatch:
/// its first RocksDB sequence number (u64), its count (u32), then its
/// entries, each a tag byte: 1 = put in the default column family (key and
/// value, each behind a varint32 length), 5 = put in another (its id as a
/// varint32 first), others for deletes and the like.
///
/// After a damaged record this scan looks for intact writes further on,
/// byte by byte until one checks (a damaged length field says nothing about
/// where the next record starts), then record by record again. A false
/// match needs a 32-bit CRC to agree by chance; the search runs only past
/// damage, to the end of that log file.

#include "store/journal_wal.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "store/crc32c.h"
#include "store/journal_record.h"

namespace ballast::store {

using events::ErrorCode;
using events::make_error;

namespace {

constexpr size_t block_size_bytes = 32 * 1024;
constexpr size_t header_size_bytes = 7;
constexpr size_t recyclable_header_size_bytes = 11;
constexpr uint32_t crc_mask_delta = 0xa282ead8u;
constexpr size_t batch_header_size_bytes = 12;  // sequence number u64, count u32

enum RecordType : uint8_t {
    zero_type = 0,
    full_type = 1,
    first_type = 2,
    middle_type = 3,
    last_type = 4,
    recyclable_full_type = 5,
    recyclable_last_type = 8,
};

uint32_t unmask_crc(uint32_t masked) {
    const uint32_t rotated = masked - crc_mask_delta;
    return (rotated >> 17) | (rotated << 15);
}

/// One physical record, or why there is none at an offset.
struct Physical {
    uint8_t type = 0;  // 1-4: the recyclable types are folded onto these
    std::string_view payload;
    size_t size_bytes = 0;  // header and payload
};

/// Reads the physical record at `offset` of `log` (`number`: the log's file
/// number, which recyclable records carry). An error string when there is
/// none that checks.
std::optional<std::string> read_physical(std::string_view log, uint64_t number, size_t offset, Physical* out) {
    const size_t block_end = std::min(log.size(), (offset / block_size_bytes + 1) * block_size_bytes);
    const size_t room = block_end - offset;
    if (room < header_size_bytes) return "a record header cut short by the end of the file";
    const char* header = log.data() + offset;
    const uint32_t stored = get_u32_le(header);
    const size_t length = static_cast<uint8_t>(header[4]) | (static_cast<size_t>(static_cast<uint8_t>(header[5])) << 8);
    const uint8_t type = static_cast<uint8_t>(header[6]);
    if (type == zero_type || type > recyclable_last_type) return "a record of unknown type " + std::to_string(type);
    const bool recyclable = type >= recyclable_full_type;
    const size_t header_size = recyclable ? recyclable_header_size_bytes : header_size_bytes;
    if (header_size + length > room) {
        return "a record of " + std::to_string(length) + " bytes that runs past " +
               (offset + header_size + length > log.size() ? "the end of the file" : "its 32 KiB block");
    }
    const auto* covered = reinterpret_cast<const uint8_t*>(header + 6);
    const uint32_t computed = crc32c(covered, header_size - 6 + length);
    if (unmask_crc(stored) != computed) return "a record of " + std::to_string(length) + " bytes whose CRC32C does not match";
    if (recyclable && get_u32_le(header + 7) != static_cast<uint32_t>(number)) {
        return "a record left from an earlier use of the file";
    }
    out->type = recyclable ? static_cast<uint8_t>(type - recyclable_full_type + full_type) : type;
    out->payload = log.substr(offset + header_size, length);
    out->size_bytes = header_size + length;
    return std::nullopt;
}

bool read_varint32(std::string_view* in, uint32_t* value) {
    uint32_t result = 0;
    for (int shift = 0; shift <= 28 && !in->empty(); shift += 7) {
        const auto byte = static_cast<uint8_t>(in->front());
        in->remove_prefix(1);
        result |= static_cast<uint32_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *value = result;
            return true;
        }
    }
    return false;
}

bool read_slice(std::string_view* in, std::string_view* slice) {
    uint32_t length = 0;
    if (!read_varint32(in, &length) || in->size() < length) return false;
    *slice = in->substr(0, length);
    in->remove_prefix(length);
    return true;
}

/// The journal seqs a WriteBatch puts (as far as its bytes can be read:
/// a damaged batch is read up to where it stops making sense) and its
/// RocksDB sequence numbers, first and last.
void read_batch(std::string_view batch, WalSeqs* seqs, uint64_t* rocks_first, uint64_t* rocks_last) {
    if (batch.size() < batch_header_size_bytes) return;
    *rocks_first = get_u64_le(batch.data());
    const uint32_t count = get_u32_le(batch.data() + 8);
    *rocks_last = *rocks_first + (count ? count - 1 : 0);
    std::string_view in = batch.substr(batch_header_size_bytes);
    constexpr uint8_t put_default = 1;
    constexpr uint8_t put_in_family = 5;
    constexpr uint32_t snapshots_family_id = 1;  // created second, after "default"
    for (uint32_t i = 0; i < count && !in.empty(); i++) {
        const auto tag = static_cast<uint8_t>(in.front());
        in.remove_prefix(1);
        uint32_t family = 0;
        if (tag == put_in_family && !read_varint32(&in, &family)) return;
        if (tag != put_default && tag != put_in_family) return;  // deletes: no seq is written
        std::string_view key;
        if (!read_slice(&in, &key)) return;
        if (family == 0) {
            uint64_t first = 0;
            uint64_t last = 0;
            if (decode_run_key(key, &first, &last)) seqs->add_events(first, last);
        } else if (family == snapshots_family_id) {
            uint64_t seq = 0;
            std::optional<uint32_t> part;
            if (decode_snapshot_key(key, &seq, &part)) seqs->add_snapshot(seq);
        }
        std::string_view value;
        if (!read_slice(&in, &value)) return;  // a torn write's key still tells
    }
}

/// Walks a log's writes record by record from `offset`. Calls `on_write`
/// for each intact write (false from it ends the walk); returns the offset
/// and reason of the first damage, or nullopt when the walk reaches the end
/// of the file or is ended.
template <class OnWrite>
std::optional<std::pair<size_t, std::string>> walk_log(std::string_view log, uint64_t number, size_t offset,
                                                       OnWrite on_write) {
    std::string pending;
    size_t pending_start = 0;
    bool in_write = false;
    while (offset < log.size()) {
        const size_t block_left = block_size_bytes - offset % block_size_bytes;
        if (block_left < header_size_bytes) {  // a block's zero padding
            offset += block_left;
            continue;
        }
        if (log.size() - offset >= header_size_bytes && log[offset + 4] == 0 && log[offset + 5] == 0 &&
            log[offset + 6] == 0) {
            // A zero header: space never written (or padding); RocksDB skips
            // the rest of the block too.
            offset += block_left;
            continue;
        }
        Physical record;
        if (std::optional<std::string> bad = read_physical(log, number, offset, &record)) {
            return std::pair{in_write ? pending_start : offset, *bad};
        }
        switch (record.type) {
            case full_type:
                if (in_write) return std::pair{pending_start, std::string("a write whose last part is missing")};
                if (!on_write(record.payload)) return std::nullopt;
                break;
            case first_type:
                if (in_write) return std::pair{pending_start, std::string("a write whose last part is missing")};
                in_write = true;
                pending_start = offset;
                pending.assign(record.payload);
                break;
            case middle_type:
            case last_type:
                if (!in_write) return std::pair{offset, std::string("the rest of a write whose start is missing")};
                pending.append(record.payload);
                if (record.type == last_type) {
                    in_write = false;
                    if (!on_write(std::string_view(pending))) return std::nullopt;
                    pending.clear();
                }
                break;
        }
        offset += record.size_bytes;
    }
    if (in_write) return std::pair{pending_start, std::string("a write cut short by the end of the file")};
    return std::nullopt;
}

/// Whether a write starts at `offset` (a FULL record, or a FIRST whose
/// parts all follow intact).
bool write_starts_at(std::string_view log, uint64_t number, size_t offset) {
    Physical record;
    if (read_physical(log, number, offset, &record)) return false;
    if (record.type == full_type) return true;
    if (record.type != first_type) return false;
    // From a FIRST record the first write the walk completes is the one
    // starting here.
    bool complete = false;
    walk_log(log, number, offset, [&](std::string_view) {
        complete = true;
        return false;
    });
    return complete;
}

uint64_t log_number(const std::filesystem::path& path) {
    const std::string stem = path.stem().string();
    uint64_t number = 0;
    for (const char c : stem) number = number * 10 + static_cast<uint64_t>(c - '0');
    return number;
}

}  // namespace

void WalSeqs::add_events(uint64_t first, uint64_t last) {
    if (events_first == 0 || first < events_first) events_first = first;
    events_last = std::max(events_last, last);
}

void WalSeqs::add_snapshot(uint64_t seq) {
    if (std::find(snapshots.begin(), snapshots.end(), seq) == snapshots.end()) snapshots.push_back(seq);
}

std::string WalSeqs::describe() const {
    std::string text;
    if (events_first) text = "seq " + std::to_string(events_first) + ".." + std::to_string(events_last);
    if (!snapshots.empty()) {
        if (!text.empty()) text += " and ";
        text += snapshots.size() == 1 ? "the snapshot at seq " : "the snapshots at seq ";
        for (size_t i = 0; i < snapshots.size(); i++) text += (i ? ", " : "") + std::to_string(snapshots[i]);
    }
    return text.empty() ? "no journal seq" : text;
}

events::Result<std::optional<WalDamage>> scan_wal(const std::string& dir) {
    std::vector<std::filesystem::path> logs;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::filesystem::path& path = entry.path();
        const std::string stem = path.stem().string();
        if (path.extension() == ".log" && !stem.empty() &&
            std::all_of(stem.begin(), stem.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            logs.push_back(path);
        }
    }
    if (ec) return make_error(ErrorCode::io_error, "cannot list journal directory " + dir + ": " + ec.message());
    std::sort(logs.begin(), logs.end(), [](const auto& a, const auto& b) { return log_number(a) < log_number(b); });

    std::optional<WalDamage> damage;
    uint64_t events_last_before = 0;
    for (const std::filesystem::path& path : logs) {
        std::ifstream in(path, std::ios::binary);
        const uintmax_t size_bytes = std::filesystem::file_size(path, ec);
        if (!in || ec) {
            // A writer beside a read-only open deletes a log once its writes
            // are in a table file: gone is not damaged.
            if (!std::filesystem::exists(path)) {
                ec.clear();
                continue;
            }
            return make_error(ErrorCode::io_error, "cannot read write-ahead log " + path.string() +
                                                       (ec ? ": " + ec.message() : std::string()));
        }
        std::string bytes(size_bytes, '\0');
        in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!in) return make_error(ErrorCode::io_error, "cannot read write-ahead log " + path.string());
        const std::string_view log(bytes);
        const uint64_t number = log_number(path);
        auto on_write = [&](std::string_view payload) {
            WalSeqs seqs;
            uint64_t rocks_first = 0;
            uint64_t rocks_last = 0;
            read_batch(payload, &seqs, &rocks_first, &rocks_last);
            if (!damage) {
                events_last_before = std::max(events_last_before, seqs.events_last);
                return true;
            }
            damage->writes_after = true;
            damage->writes_after_count++;
            damage->rocks_seq_after_max = std::max(damage->rocks_seq_after_max, rocks_last);
            if (seqs.events_first) damage->seqs_after.add_events(seqs.events_first, seqs.events_last);
            for (const uint64_t seq : seqs.snapshots) damage->seqs_after.add_snapshot(seq);
            return true;
        };
        size_t offset = 0;
        while (true) {
            std::optional<std::pair<size_t, std::string>> bad = walk_log(log, number, offset, on_write);
            if (!bad) break;
            if (!damage) {
                damage = WalDamage{};
                damage->file = path.string();
                damage->offset_bytes = bad->first;
                damage->reason = bad->second;
                damage->events_last_before = events_last_before;
                // What the damaged write says it holds, read past its checksum.
                const size_t at = bad->first;
                const size_t header = at + header_size_bytes <= log.size() && static_cast<uint8_t>(log[at + 6]) >= recyclable_full_type
                                          ? recyclable_header_size_bytes
                                          : header_size_bytes;
                if (at + header < log.size()) {
                    const size_t block_end = std::min(log.size(), (at / block_size_bytes + 1) * block_size_bytes);
                    const std::string_view claimed = log.substr(at + header, block_end - std::min(block_end, at + header));
                    uint64_t rocks_last = 0;
                    read_batch(claimed, &damage->damaged_claims, &damage->damaged_rocks_seq, &rocks_last);
                }
            }
            // Look for the next write that starts intact, byte by byte.
            size_t next = bad->first + 1;
            while (next + header_size_bytes <= log.size() && !write_starts_at(log, number, next)) next++;
            if (next + header_size_bytes > log.size()) break;
            offset = next;
        }
    }
    return damage;
}

}  // namespace ballast::store
