#pragma once

/// How a leader's snapshot is cut into Kafka messages on the snapshots topic,
/// and how a reader puts the newest one back together. Pure: no Kafka here
/// (reader.cc reads the messages, writer.cc writes them).
///
/// A snapshot at seq S of N bytes is published as ceil(N / 1 MiB) messages
/// (one, empty, when N is 0), in part order, in transactions of a few parts
/// (writer.h); only the leader's snapshot writer writes the topic. Each
/// message's key is S as 8 big-endian bytes; its value is a fixed header and
/// then the part's bytes:
///
///     offset size  field
///          0    4  magic "BLSN"
///          4    1  format version (1)
///          5    8  snapshot seq S                     (big-endian, as below)
///         13    4  part index, 0 .. count - 1
///         17    4  part count
///         21    8  the snapshot's total byte count N
///         29    4  CRC32C (store/crc32c.h) of the part's bytes
///         33       the part's bytes
///
/// Every part but the last holds exactly `snapshot_part_bytes`; the header
/// says enough to check that a set of parts is the whole snapshot.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "events/result.h"
#include "store/journal.h"

namespace ballast::kafka::ha {

inline constexpr size_t snapshot_part_bytes = size_t{1} << 20;
inline constexpr size_t snapshot_chunk_header_bytes = 33;
inline constexpr uint8_t snapshot_chunk_version = 1;

/// The message key of every part of the snapshot at `seq`.
std::string snapshot_chunk_key(uint64_t seq);

/// How many parts a snapshot of `total_bytes` is published in.
uint32_t snapshot_part_count(uint64_t total_bytes);

/// The value of part `part` of the snapshot `bytes` at `seq`.
std::string encode_snapshot_chunk(uint64_t seq, std::span<const uint8_t> bytes, uint32_t part);

/// One part as read back.
struct SnapshotChunk {
    uint64_t seq = 0;
    uint32_t part = 0;
    uint32_t count = 0;
    uint64_t total_bytes = 0;
    std::string data;
};

/// Checks and decodes one message: the magic, the version, the key against
/// the header's seq, the part against the count and the total, the CRC32C.
/// The error says which check failed (the caller adds where it was read).
events::Result<SnapshotChunk> decode_snapshot_chunk(std::string_view key, std::string_view value);

/// The committed messages of the snapshots topic, collected by offset (in
/// any order, in windows going back from the end), and the newest snapshot
/// they hold whole.
///
/// One writer thread writes the topic, one publication after the other, so
/// a publication's committed parts are consecutive among the topic's
/// committed messages (a fenced writer's open transaction is aborted and
/// never read; a publication cut short after some of its transactions
/// leaves its first parts, which never complete): a snapshot is complete when, at consecutive offsets
/// (gaps of aborted messages and transaction markers are allowed), parts
/// 0 .. count - 1 of one seq follow each other in order. A part that failed
/// its checks breaks the publication it belongs to: that snapshot is not
/// used, and an older one is looked for.
class SnapshotAssembly {
public:
    /// A message that decoded.
    void add(int64_t offset, SnapshotChunk chunk);
    /// A message that did not (it breaks the publication around it).
    void add_bad(int64_t offset);

    /// The complete snapshot with the highest seq (the newest by offset among
    /// equals), if any.
    std::optional<store::Snapshot> newest_complete() const;

    /// Forgets the bytes of every part that cannot belong to a complete
    /// snapshot whatever older messages hold: only the oldest publication
    /// collected may still grow backwards. Keeps memory to about one snapshot
    /// (and a few bytes a message) while the reader looks further back.
    void drop_unfinishable();

    /// The bytes of parts held.
    uint64_t bytes_held() const;

private:
    struct Entry {
        bool bad = false;
        SnapshotChunk chunk;
    };
    struct Group {
        int64_t first_offset = 0;
        int64_t last_offset = 0;
        std::vector<const Entry*> parts;
        bool complete = false;
    };
    std::vector<Group> groups() const;

    std::map<int64_t, Entry> _parts;
};

}  // namespace ballast::kafka::ha
