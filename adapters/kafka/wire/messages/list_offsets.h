#pragma once

/// ListOffsets (key 2, versions 1-10, flexible from 6): for each partition,
/// the offset at a timestamp, or the end (latest, -1) or the start (earliest,
/// -2). It must go to the partition's leader; another broker answers
/// NOT_LEADER_OR_FOLLOWER for it. v2+ chooses the isolation level (the end
/// under read_uncommitted is the high watermark, under read_committed the last
/// stable offset); v4+ carries leader epochs; v10 a timeout for tiered
/// storage. Kafka 4 no longer speaks v0.

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

namespace list_offsets_timestamp {
inline constexpr int64_t latest = -1;
inline constexpr int64_t earliest = -2;
}  // namespace list_offsets_timestamp

struct ListOffsetsPartition {
    int32_t partition_index = -1;
    int32_t current_leader_epoch = -1;  // v4+; -1: not checked
    int64_t timestamp = list_offsets_timestamp::latest;
};

struct ListOffsetsTopic {
    std::string name;
    std::vector<ListOffsetsPartition> partitions;
};

struct ListOffsetsRequest {
    int32_t replica_id = -1;     // -1: a client, not a follower
    int8_t isolation_level = 0;  // v2+: 0 read_uncommitted; 1 (read_committed) needs v2
    std::vector<ListOffsetsTopic> topics;
    int32_t timeout_ms = 0;      // v10+
};

struct ListOffsetsPartitionResponse {
    int32_t partition_index = -1;
    KafkaError error;  // the schema has a code, no message
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;  // v4+
    bool operator==(const ListOffsetsPartitionResponse&) const = default;
};

struct ListOffsetsTopicResponse {
    std::string name;
    std::vector<ListOffsetsPartitionResponse> partitions;
};

struct ListOffsetsResponse {
    int32_t throttle_time_ms = 0;  // v2+
    std::vector<ListOffsetsTopicResponse> topics;
};

struct ListOffsets {
    using Request = ListOffsetsRequest;
    using Response = ListOffsetsResponse;
    static constexpr ApiKey key = ApiKey::list_offsets;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
