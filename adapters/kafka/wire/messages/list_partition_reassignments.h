#pragma once

/// ListPartitionReassignments (key 46, version 0, flexible): the
/// reassignments in progress, for some partitions or (null topics) all. For
/// each: the current replica set (target and leaving replicas together), the
/// replicas being added and those being removed. A partition that is not
/// being reassigned is simply absent.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct ListPartitionReassignmentsRequest {
    int32_t timeout_ms = 60000;
    std::optional<std::vector<TopicPartitions>> topics;  // nullopt: every reassignment
};

struct OngoingPartitionReassignment {
    int32_t partition_index = -1;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;
    std::vector<int32_t> removing_replicas;
    bool operator==(const OngoingPartitionReassignment&) const = default;
};

struct OngoingTopicReassignment {
    std::string name;
    std::vector<OngoingPartitionReassignment> partitions;
    bool operator==(const OngoingTopicReassignment&) const = default;
};

struct ListPartitionReassignmentsResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;
    std::vector<OngoingTopicReassignment> topics;

    /// The reassignment of `topic`-`partition`, if one is in progress.
    const OngoingPartitionReassignment* find(const std::string& topic, int32_t partition) const;
};

struct ListPartitionReassignments {
    using Request = ListPartitionReassignmentsRequest;
    using Response = ListPartitionReassignmentsResponse;
    static constexpr ApiKey key = ApiKey::list_partition_reassignments;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
