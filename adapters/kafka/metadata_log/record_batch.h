#pragma once

/// Kafka's record batch, magic 2 (the only format KRaft's metadata log is written in):
///
///   base_offset int64, batch_length int32 (the bytes after this field),
///   partition_leader_epoch int32, magic int8, crc uint32 (CRC32C of every byte after it),
///   attributes int16, last_offset_delta int32, base_timestamp int64, max_timestamp int64,
///   producer_id int64, producer_epoch int16, base_sequence int32, record_count int32,
///   then the records:
///   length varint, attributes int8, timestamp_delta varlong, offset_delta varint,
///   key_length varint (-1: null), key, value_length varint (-1: null), value,
///   header_count varint, headers (key_length varint, key, value_length varint, value).
///
/// Only uncompressed batches are decoded. Kafka's controllers write the metadata log
/// uncompressed (the raft client builds its batches without a codec), so a compressed batch
/// there is a format this decoder does not follow: it is an error naming the codec and the
/// offset, never a guess. Records keep spans into the bytes decoded, so the bytes must outlive
/// the batch.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "events/result.h"

namespace ballast::kafka::metadata_log {

using events::Error;
using events::ErrorCode;
using events::Result;
using events::Status;

using Bytes = std::span<const uint8_t>;

/// The fixed part of a batch before its records: 61 bytes.
inline constexpr size_t batch_header_size_bytes = 61;
/// base_offset and batch_length: what precedes the bytes batch_length counts.
inline constexpr size_t batch_log_overhead_bytes = 12;
/// A batch above this is refused before its bytes are read (Kafka's controllers write
/// batches of at most 8 MiB; a larger length is corrupt).
inline constexpr int32_t batch_size_bytes_max = 64 << 20;

/// Attribute bits 0-2, as Kafka numbers its codecs.
enum class Compression : uint8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };
/// "gzip", or "unknown codec 6".
std::string compression_name(int codec);

struct BatchHeader {
    int64_t base_offset = 0;
    int32_t batch_length_bytes = 0;
    int32_t partition_leader_epoch = -1;
    int8_t magic = 2;
    uint32_t crc = 0;
    int16_t attributes = 0;
    int32_t last_offset_delta = 0;
    int64_t base_timestamp_ms = 0;
    int64_t max_timestamp_ms = 0;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t base_sequence = -1;
    int32_t record_count = 0;

    int compression() const { return attributes & 0x7; }
    bool log_append_time() const { return (attributes & 0x8) != 0; }
    bool transactional() const { return (attributes & 0x10) != 0; }
    /// Control batches carry the log's own markers (in the metadata log: leader changes,
    /// snapshot headers and footers, the quorum's voters), not data.
    bool control() const { return (attributes & 0x20) != 0; }
    int64_t last_offset() const { return base_offset + last_offset_delta; }
};

struct RecordHeader {
    std::string key;
    std::optional<Bytes> value;
};

struct Record {
    int64_t offset = 0;        // base_offset + offset_delta
    int64_t timestamp_ms = 0;  // base_timestamp + timestamp_delta
    int8_t attributes = 0;     // unused by Kafka today
    std::optional<Bytes> key;
    std::optional<Bytes> value;
    std::vector<RecordHeader> headers;
};

struct RecordBatch {
    BatchHeader header;
    std::vector<Record> records;  // reused from one decode to the next
};

/// Decodes the batch at the front of `bytes` into `batch`: header, CRC32C, records. Returns
/// the bytes the batch took, or 0 when `bytes` ends before the batch does (a Fetch answer
/// may end in a partial batch; the next fetch brings it whole). An error names the batch's
/// base offset and what was wrong: a magic other than 2, a CRC mismatch, a compressed
/// batch (with its codec), or a record (by its offset) that does not parse.
Result<size_t> decode_batch(Bytes bytes, RecordBatch& batch);

/// Encodes a magic-2 batch of `records` as Kafka's MemoryRecordsBuilder does: offsets and
/// timestamps become deltas from `header.base_offset` and `header.base_timestamp_ms`; the
/// length, last offset delta, record count, max timestamp and CRC are computed.
/// `header.max_timestamp_ms` is kept if larger (the builder's log-append time). Only
/// uncompressed batches are written. For tests, benchmarks and generated logs.
std::vector<uint8_t> encode_batch(const BatchHeader& header, std::span<const Record> records);

}  // namespace ballast::kafka::metadata_log
