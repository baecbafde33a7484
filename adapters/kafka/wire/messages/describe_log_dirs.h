#pragma once

/// DescribeLogDirs (key 35, versions 1-4; flexible from 2): one broker's log
/// directories and, in each, the size and lag of the partitions it holds.
/// Must be sent to that broker: each answers for itself only. Null topics
/// mean every partition. v3 adds a top-level error code, v4 each directory's
/// total and usable bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct DescribeLogDirsRequest {
    std::optional<std::vector<TopicPartitions>> topics;  // nullopt: every partition
};

struct DescribeLogDirsPartition {
    int32_t partition_index = -1;
    int64_t partition_size = 0;  // bytes in the partition's log segments
    int64_t offset_lag = 0;      // high watermark (or, for a future log, LEO) minus LEO
    bool is_future_key = false;  // a copy being made by AlterReplicaLogDirs
    bool operator==(const DescribeLogDirsPartition&) const = default;
};

struct DescribeLogDirsTopic {
    std::string name;
    std::vector<DescribeLogDirsPartition> partitions;
    bool operator==(const DescribeLogDirsTopic&) const = default;
};

struct DescribeLogDirsResult {
    KafkaError error;  // per directory: KAFKA_STORAGE_ERROR for an offline one
    std::string log_dir;
    std::vector<DescribeLogDirsTopic> topics;
    int64_t total_bytes = -1;   // v4+: -1 when unknown
    int64_t usable_bytes = -1;  // v4+: -1 when unknown
    bool operator==(const DescribeLogDirsResult&) const = default;
};

struct DescribeLogDirsResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;  // v3+: top level, no message in the schema
    std::vector<DescribeLogDirsResult> results;

    /// The current (not future) replica of `topic`-`partition` in any directory.
    const DescribeLogDirsPartition* find(const std::string& topic, int32_t partition) const;
};

struct DescribeLogDirs {
    using Request = DescribeLogDirsRequest;
    using Response = DescribeLogDirsResponse;
    static constexpr ApiKey key = ApiKey::describe_log_dirs;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
