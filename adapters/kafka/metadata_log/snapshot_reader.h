#pragma once

/// A snapshot of the metadata log as FetchSnapshot hands it out: chunks of its bytes, each at
/// a byte position, cut anywhere (inside a batch too). The bytes are record batches as
/// Kafka's snapshot writer lays them out: a header control batch (SnapshotHeaderRecord), the
/// metadata records of the whole cluster as of the snapshot's end offset, a footer control
/// batch. The batches' own offsets count from 0 inside the snapshot and say nothing of the
/// log, so every entry is given the log offset the image stands for: the snapshot's end
/// offset - 1 (the last log offset it includes). Pure: bytes in, entries out.

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/log_decoder.h"

namespace ballast::kafka::metadata_log {

/// A snapshot's name: the log offset it ends at (exclusive: the next offset to fetch after
/// it) and the quorum epoch of the record before that offset.
struct SnapshotId {
    int64_t end_offset = -1;
    int32_t epoch = -1;
    bool operator==(const SnapshotId&) const = default;
    std::string to_string() const;  // "80-3", as Kafka names its snapshot files
};

/// A snapshot above this is refused before any of it is kept: a million partitions take
/// ~130 MB (one PartitionRecord each), so a larger size is a lie or a cluster far beyond
/// what the observer's one-image hand-out is sized for.
inline constexpr int64_t snapshot_size_bytes_max = int64_t{4} << 30;

class SnapshotReader {
public:
    explicit SnapshotReader(SnapshotId id) : _id(id) {}

    const SnapshotId& id() const { return _id; }
    /// The byte to ask for next.
    int64_t position() const { return _position; }
    /// Whether the last byte was read and decoded.
    bool complete() const { return _size >= 0 && _position == _size; }

    /// Adds the chunk that starts at `position` of a snapshot of `size` bytes and decodes the
    /// batches it completes. Errors name the snapshot and what was wrong: a position other
    /// than the one asked, a size above `snapshot_size_bytes_max` or that changed between
    /// chunks, bytes past the size, an empty
    /// chunk before the end, a batch that does not decode, a snapshot ending inside a batch.
    Status add(int64_t position, int64_t size, Bytes chunk);

    /// The entries decoded so far, in the snapshot's order.
    std::vector<MetadataEntry> take_entries() { return std::move(_entries); }
    std::vector<std::string> take_warnings() { return _decoder.take_warnings(); }
    const DecodeCounts& counts() const { return _decoder.counts(); }

private:
    Error problem(const std::string& what) const;

    SnapshotId _id;
    int64_t _position = 0;
    int64_t _size = -1;  // unknown before the first chunk
    std::vector<uint8_t> _pending;  // the tail of a batch that the next chunk completes
    LogDecoder _decoder;
    std::vector<MetadataEntry> _entries;
};

}  // namespace ballast::kafka::metadata_log
