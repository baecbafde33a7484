#pragma once

/// ElectLeaders (key 43, versions 0-2; flexible from 2): ask the controller to
/// elect leaders. Preferred election makes the first replica of each
/// partition its leader if it is in sync; v1 adds the election type (unclean:
/// the first live replica even if out of sync) and a top-level error code.
/// Null topic partitions mean every partition. A partition whose preferred
/// replica already leads answers ELECTION_NOT_NEEDED (84).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

enum class ElectionType : int8_t { preferred = 0, unclean = 1 };

struct ElectLeadersRequest {
    ElectionType election_type = ElectionType::preferred;  // v1+: unclean needs v1
    std::optional<std::vector<TopicPartitions>> topic_partitions;  // nullopt: all partitions
    int32_t timeout_ms = 60000;
};

struct ElectLeadersPartitionResult {
    int32_t partition_id = -1;
    KafkaError error;
    bool operator==(const ElectLeadersPartitionResult&) const = default;
};

struct ReplicaElectionResult {
    std::string topic;
    std::vector<ElectLeadersPartitionResult> partition_result;
    bool operator==(const ReplicaElectionResult&) const = default;
};

struct ElectLeadersResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;  // v1+: top level, no message in the schema
    std::vector<ReplicaElectionResult> replica_election_results;

    const ElectLeadersPartitionResult* find(const std::string& topic, int32_t partition) const;
};

struct ElectLeaders {
    using Request = ElectLeadersRequest;
    using Response = ElectLeadersResponse;
    static constexpr ApiKey key = ApiKey::elect_leaders;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
