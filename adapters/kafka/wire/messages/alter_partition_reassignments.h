#pragma once

/// AlterPartitionReassignments (key 45, versions 0-1, all flexible): start,
/// change or cancel partition reassignments. A partition's target replicas
/// are in preference order (the first is the preferred leader); null
/// replicas cancel the reassignment in progress. v1 adds
/// allow_replication_factor_change (false: refuse targets that change the
/// replica count). The broker forwards the request to the active controller.
///
/// A success means the controller accepted the target, not that data moved:
/// ListPartitionReassignments shows what is still in progress.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct ReassignablePartition {
    int32_t partition_index = -1;
    std::optional<std::vector<int32_t>> replicas;  // nullopt: cancel
    bool operator==(const ReassignablePartition&) const = default;
};

struct ReassignableTopic {
    std::string name;
    std::vector<ReassignablePartition> partitions;
    bool operator==(const ReassignableTopic&) const = default;
};

struct AlterPartitionReassignmentsRequest {
    int32_t timeout_ms = 60000;                   // how long the broker may take
    bool allow_replication_factor_change = true;  // v1+: false needs v1
    std::vector<ReassignableTopic> topics;
};

struct ReassignablePartitionResponse {
    int32_t partition_index = -1;
    KafkaError error;
    bool operator==(const ReassignablePartitionResponse&) const = default;
};

struct ReassignableTopicResponse {
    std::string name;
    std::vector<ReassignablePartitionResponse> partitions;
    bool operator==(const ReassignableTopicResponse&) const = default;
};

struct AlterPartitionReassignmentsResponse {
    int32_t throttle_time_ms = 0;
    bool allow_replication_factor_change = true;  // v1+: echoes the request
    KafkaError error;                             // top level: applies to every partition
    std::vector<ReassignableTopicResponse> responses;
};

struct AlterPartitionReassignments {
    using Request = AlterPartitionReassignmentsRequest;
    using Response = AlterPartitionReassignmentsResponse;
    static constexpr ApiKey key = ApiKey::alter_partition_reassignments;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
