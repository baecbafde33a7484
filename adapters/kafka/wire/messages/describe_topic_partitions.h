#pragma once

/// DescribeTopicPartitions (key 75, KIP-966; version 0, flexible): topics'
/// partitions (leader, epoch, replicas, ISR, eligible leader replicas) in
/// pages. The broker answers at most `response_partition_limit` partitions
/// (it also caps them at its `max.request.partition.size.limit`, 2000 by
/// default), sorted by topic name then partition, from `cursor` on, and
/// names where the next page starts in `next_cursor` (null: nothing after).
/// No topic asked: every topic. Any broker answers, from its metadata cache.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/uuid.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

/// Where a page starts: this topic, from this partition on.
struct DescribeTopicPartitionsCursor {
    std::string topic_name;
    int32_t partition_index = 0;
    bool operator==(const DescribeTopicPartitionsCursor&) const = default;
};

struct DescribeTopicPartitionsRequest {
    /// Empty: every topic the client may describe.
    std::vector<std::string> topics;
    int32_t response_partition_limit = 2000;
    std::optional<DescribeTopicPartitionsCursor> cursor;
};

struct DescribeTopicPartitionsPartition {
    int16_t error_code = 0;
    int32_t partition_index = -1;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::optional<std::vector<int32_t>> eligible_leader_replicas;
    std::optional<std::vector<int32_t>> last_known_elr;
    std::vector<int32_t> offline_replicas;
};

struct DescribeTopicPartitionsTopic {
    int16_t error_code = 0;
    std::optional<std::string> name;
    Uuid topic_id;
    bool is_internal = false;
    std::vector<DescribeTopicPartitionsPartition> partitions;
    int32_t topic_authorized_operations = std::numeric_limits<int32_t>::min();
};

struct DescribeTopicPartitionsResponse {
    int32_t throttle_time_ms = 0;
    std::vector<DescribeTopicPartitionsTopic> topics;
    std::optional<DescribeTopicPartitionsCursor> next_cursor;
};

struct DescribeTopicPartitions {
    using Request = DescribeTopicPartitionsRequest;
    using Response = DescribeTopicPartitionsResponse;
    static constexpr ApiKey key = ApiKey::describe_topic_partitions;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
