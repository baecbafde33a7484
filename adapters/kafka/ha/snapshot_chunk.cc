#include "adapters/kafka/ha/snapshot_chunk.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "store/crc32c.h"

namespace ballast::kafka::ha {

using events::ErrorCode;
using events::make_error;

namespace {

constexpr char magic[4] = {'B', 'L', 'S', 'N'};

void put_be(std::string& out, uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint64_t get_be(std::string_view in, size_t at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; i++) value = (value << 8) | static_cast<uint8_t>(in[at + static_cast<size_t>(i)]);
    return value;
}

}  // namespace

std::string snapshot_chunk_key(uint64_t seq) {
    std::string key;
    put_be(key, seq, 8);
    return key;
}

uint32_t snapshot_part_count(uint64_t total_bytes) {
    if (total_bytes == 0) return 1;
    return static_cast<uint32_t>((total_bytes + snapshot_part_bytes - 1) / snapshot_part_bytes);
}

std::string encode_snapshot_chunk(uint64_t seq, std::span<const uint8_t> bytes, uint32_t part) {
    const uint32_t count = snapshot_part_count(bytes.size());
    assert(part < count);
    const size_t begin = static_cast<size_t>(part) * snapshot_part_bytes;
    const size_t size = std::min(snapshot_part_bytes, bytes.size() - begin);
    const uint8_t* data = bytes.data() + begin;
    std::string value;
    value.reserve(snapshot_chunk_header_bytes + size);
    value.append(magic, sizeof(magic));
    value.push_back(static_cast<char>(snapshot_chunk_version));
    put_be(value, seq, 8);
    put_be(value, part, 4);
    put_be(value, count, 4);
    put_be(value, bytes.size(), 8);
    put_be(value, store::crc32c(data, size), 4);
    assert(value.size() == snapshot_chunk_header_bytes);
    value.append(reinterpret_cast<const char*>(data), size);
    return value;
}

events::Result<SnapshotChunk> decode_snapshot_chunk(std::string_view key, std::string_view value) {
    if (value.size() < snapshot_chunk_header_bytes) {
        return make_error(ErrorCode::corruption, "snapshot part of " + std::to_string(value.size()) +
                                                     " bytes is shorter than its " +
                                                     std::to_string(snapshot_chunk_header_bytes) + "-byte header");
    }
    if (std::memcmp(value.data(), magic, sizeof(magic)) != 0) {
        return make_error(ErrorCode::corruption, "snapshot part does not begin with the magic BLSN");
    }
    const auto version = static_cast<uint8_t>(value[4]);
    if (version != snapshot_chunk_version) {
        return make_error(ErrorCode::corruption, "snapshot part has format version " + std::to_string(version) +
                                                     "; this build reads version " +
                                                     std::to_string(snapshot_chunk_version));
    }
    SnapshotChunk chunk;
    chunk.seq = get_be(value, 5, 8);
    chunk.part = static_cast<uint32_t>(get_be(value, 13, 4));
    chunk.count = static_cast<uint32_t>(get_be(value, 17, 4));
    chunk.total_bytes = get_be(value, 21, 8);
    const auto crc = static_cast<uint32_t>(get_be(value, 29, 4));
    const std::string_view data = value.substr(snapshot_chunk_header_bytes);
    const std::string what = "snapshot seq " + std::to_string(chunk.seq) + " part " + std::to_string(chunk.part) +
                             " of " + std::to_string(chunk.count);
    if (key.size() != 8 || get_be(key, 0, 8) != chunk.seq) {
        return make_error(ErrorCode::corruption, what + ": its key (" + std::to_string(key.size()) +
                                                     " bytes) is not the seq as 8 big-endian bytes");
    }
    if (chunk.count != snapshot_part_count(chunk.total_bytes) || chunk.part >= chunk.count) {
        return make_error(ErrorCode::corruption, what + ": " + std::to_string(chunk.total_bytes) +
                                                     " bytes make " +
                                                     std::to_string(snapshot_part_count(chunk.total_bytes)) +
                                                     " parts");
    }
    const uint64_t expected_size =
        chunk.part + 1 < chunk.count ? snapshot_part_bytes
                                     : chunk.total_bytes - uint64_t{chunk.part} * snapshot_part_bytes;
    if (data.size() != expected_size) {
        return make_error(ErrorCode::corruption, what + ": holds " + std::to_string(data.size()) +
                                                     " bytes where " + std::to_string(expected_size) +
                                                     " were expected");
    }
    const uint32_t actual = store::crc32c(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    if (actual != crc) {
        return make_error(ErrorCode::corruption, what + ": CRC32C mismatch (header " + std::to_string(crc) +
                                                     ", data " + std::to_string(actual) + ")");
    }
    chunk.data.assign(data);
    return chunk;
}

void SnapshotAssembly::add(int64_t offset, SnapshotChunk chunk) {
    Entry& entry = _parts[offset];
    entry.bad = false;
    entry.chunk = std::move(chunk);
}

void SnapshotAssembly::add_bad(int64_t offset) {
    Entry& entry = _parts[offset];
    entry.bad = true;
    entry.chunk = {};
}

/// Consecutive entries that continue one another: same seq, count and total,
/// the next part index. A bad entry is a group of its own, never complete.
std::vector<SnapshotAssembly::Group> SnapshotAssembly::groups() const {
    std::vector<Group> out;
    const Entry* previous = nullptr;
    for (const auto& [offset, entry] : _parts) {
        const bool continues = previous != nullptr && !previous->bad && !entry.bad &&
                               entry.chunk.seq == previous->chunk.seq && entry.chunk.count == previous->chunk.count &&
                               entry.chunk.total_bytes == previous->chunk.total_bytes &&
                               entry.chunk.part == previous->chunk.part + 1;
        if (!continues) out.push_back(Group{offset, offset, {}, false});
        Group& group = out.back();
        group.last_offset = offset;
        group.parts.push_back(&entry);
        previous = &entry;
    }
    for (Group& group : out) {
        const Entry& first = *group.parts.front();
        group.complete = !first.bad && first.chunk.part == 0 && group.parts.size() == first.chunk.count;
    }
    return out;
}

std::optional<store::Snapshot> SnapshotAssembly::newest_complete() const {
    const std::vector<Group> all = groups();
    const Group* best = nullptr;
    for (const Group& group : all) {
        // Later offsets win among equal seqs: groups come in offset order.
        if (group.complete && (best == nullptr || group.parts.front()->chunk.seq >= best->parts.front()->chunk.seq)) {
            best = &group;
        }
    }
    if (best == nullptr) return std::nullopt;
    store::Snapshot snapshot;
    snapshot.seq = best->parts.front()->chunk.seq;
    snapshot.bytes.reserve(best->parts.front()->chunk.total_bytes);
    for (const Entry* part : best->parts) snapshot.bytes += part->chunk.data;
    assert(snapshot.bytes.size() == best->parts.front()->chunk.total_bytes);
    return snapshot;
}

void SnapshotAssembly::drop_unfinishable() {
    const std::vector<Group> all = groups();
    if (all.size() <= 1) return;
    // Everything after the oldest group is known whole: what is complete
    // there is kept (newest_complete chooses), the rest can never be. Its
    // entries stay as bad ones without their bytes, so that the groups on
    // either side never come to look consecutive.
    for (size_t g = 1; g < all.size(); g++) {
        if (all[g].complete) continue;
        for (auto it = _parts.lower_bound(all[g].first_offset);
             it != _parts.end() && it->first <= all[g].last_offset; ++it) {
            it->second.bad = true;
            it->second.chunk = {};
        }
    }
}

uint64_t SnapshotAssembly::bytes_held() const {
    uint64_t bytes = 0;
    for (const auto& [offset, entry] : _parts) bytes += entry.chunk.data.size();
    return bytes;
}

}  // namespace ballast::kafka::ha
