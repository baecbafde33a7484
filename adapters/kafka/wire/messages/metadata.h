#pragma once

/// Metadata (key 3, versions 0-13, flexible from 9): the brokers, the
/// controller, and every topic's partitions with leader, leader epoch (v7+),
/// replicas, ISR and offline replicas (v5+). Any broker answers. v1+ asks for
/// every topic with a null list (v0: an empty one); v4+ can ask the broker not
/// to create the topics named; v10+ names topics by id too; v13 adds a
/// top-level error. The poller asks every topic, created by nobody.

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


struct MetadataRequestTopic {
    Uuid topic_id;                    // v10+: non-zero needs v10
    std::optional<std::string> name;  // null only from v10 (a topic asked by id)
};

struct MetadataRequest {
    /// nullopt: every topic. An empty list (none: brokers and cluster only)
    /// cannot be said in v0, where an empty list means every topic.
    std::optional<std::vector<MetadataRequestTopic>> topics;
    bool allow_auto_topic_creation = true;                // v4+: false needs v4
    bool include_cluster_authorized_operations = false;   // v8-10 only (then DescribeCluster's)
    bool include_topic_authorized_operations = false;     // v8+
};

struct MetadataResponseBroker {
    int32_t node_id = -1;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;  // v1+; null: none
    bool operator==(const MetadataResponseBroker&) const = default;
};

struct MetadataResponsePartition {
    int16_t error_code = 0;  // LEADER_NOT_AVAILABLE still lists the replicas
    int32_t partition_index = -1;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;  // v7+
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;  // v5+
    bool operator==(const MetadataResponsePartition&) const = default;
};

struct MetadataResponseTopic {
    int16_t error_code = 0;
    std::optional<std::string> name;  // null only from v12, for a topic asked by an unknown id
    Uuid topic_id;                    // v10+
    bool is_internal = false;         // v1+
    std::vector<MetadataResponsePartition> partitions;
    int32_t topic_authorized_operations = std::numeric_limits<int32_t>::min();  // v8+
};

struct MetadataResponse {
    int32_t throttle_time_ms = 0;  // v3+
    std::vector<MetadataResponseBroker> brokers;
    std::optional<std::string> cluster_id;  // v2+
    int32_t controller_id = -1;             // v1+
    std::vector<MetadataResponseTopic> topics;
    int32_t cluster_authorized_operations = std::numeric_limits<int32_t>::min();  // v8-10
    int16_t error_code = 0;  // v13+: the whole request failed (REBOOTSTRAP_REQUIRED)
};

struct Metadata {
    using Request = MetadataRequest;
    using Response = MetadataResponse;
    static constexpr ApiKey key = ApiKey::metadata;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
