#pragma once

/// From the bytes of `__cluster_metadata` (what a Fetch answer carries, or a segment file)
/// to metadata records in log order, each with its offset: batches decoded and their CRC
/// checked, control batches (leader changes, snapshot headers and footers, voters) counted
/// and skipped, records before the reader's position dropped (a fetch answers from the
/// start of the batch that holds the position), and records of types Ballast does not read
/// passed over. A type or version newer than this decoder knows is skipped with one warning
/// per type, never an error: Kafka adds versions with new fields, and the records Ballast
/// needs are still in the log.

#include <cstdint>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/metadata_records.h"
#include "adapters/kafka/metadata_log/record_batch.h"

namespace ballast::kafka::metadata_log {

struct MetadataEntry {
    int64_t offset = 0;
    int64_t timestamp_ms = 0;  // the controller's append time
    int32_t leader_epoch = 0;  // the quorum's epoch the batch was written in
    MetadataRecord record;
};

struct DecodeCounts {
    uint64_t batches = 0;
    uint64_t control_batches = 0;
    uint64_t records = 0;          // decoded into entries
    uint64_t not_needed = 0;       // types Ballast does not read
    uint64_t unknown_skipped = 0;  // newer types or versions
};

class LogDecoder {
public:
    /// `next_offset`: the first offset wanted; earlier records are dropped.
    explicit LogDecoder(int64_t next_offset = 0, int32_t last_epoch = -1)
        : _next_offset(next_offset), _last_epoch(last_epoch) {}

    /// Decodes the whole batches at the front of `bytes`, appending their records to `out`,
    /// and returns the bytes used: a partial batch at the end is left for the next call. An
    /// error names the offset (of the batch, or of the record) and what was wrong; the
    /// position stays at the first record not yet returned.
    Result<size_t> decode(Bytes bytes, std::vector<MetadataEntry>& out);

    /// Moves the position back to `next_offset`, whose batch before ended in `last_epoch`
    /// (a raft leader's diverging epoch: the log was replaced from there). What was decoded
    /// past it is the caller's to drop; counts and warnings stay.
    void rewind(int64_t next_offset, int32_t last_epoch) {
        _next_offset = next_offset;
        _last_epoch = last_epoch;
    }

    /// The offset after the last record (or control batch) decoded.
    int64_t next_offset() const { return _next_offset; }
    /// The quorum epoch of the last batch decoded (-1 before the first): a raft fetch's
    /// LastFetchedEpoch.
    int32_t last_epoch() const { return _last_epoch; }
    const DecodeCounts& counts() const { return _counts; }

    /// The warnings since the last call: one per record type whose type or version this
    /// decoder does not know, the first time it is met, naming its offset.
    std::vector<std::string> take_warnings() { return std::exchange(_warnings, {}); }

private:
    int64_t _next_offset;
    int32_t _last_epoch;
    RecordBatch _batch;
    DecodeCounts _counts;
    std::set<int16_t> _warned_api_keys;  // bounded by the api keys (int16)
    std::vector<std::string> _warnings;
};

}  // namespace ballast::kafka::metadata_log
