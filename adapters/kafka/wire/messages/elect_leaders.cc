#include "adapters/kafka/wire/messages/elect_leaders.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

const ElectLeadersPartitionResult* ElectLeadersResponse::find(const std::string& topic,
                                                              int32_t partition) const {
    for (const ReplicaElectionResult& entry : replica_election_results) {
        if (entry.topic != topic) continue;
        for (const ElectLeadersPartitionResult& result : entry.partition_result) {
            if (result.partition_id == partition) return &result;
        }
    }
    return nullptr;
}

Status ElectLeaders::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    if (version < 1 && request.election_type != ElectionType::preferred) {
        return events::make_error(ErrorCode::unsupported,
                                  "ElectLeaders v0 elects preferred leaders only: unclean "
                                  "elections need v1 or later");
    }
    const bool flexible = is_flexible(key, version);
    if (version >= 1) writer.int8(static_cast<int8_t>(request.election_type));
    if (request.topic_partitions) {
        writer.array_length(request.topic_partitions->size(), flexible);
        for (const TopicPartitions& topic : *request.topic_partitions) {
            writer.string(topic.topic, flexible);
            writer.int32_array(topic.partitions, flexible);
            writer.tagged_fields(flexible);
        }
    } else {
        writer.nullable_array_length(std::nullopt, flexible);
    }
    writer.int32(request.timeout_ms);
    writer.tagged_fields(flexible);
    return Status();
}

ElectLeadersResponse ElectLeaders::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    ElectLeadersResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    if (version >= 1) response.error.code = reader.int16("error_code");
    const size_t topic_count = reader.array_length("replica_election_results", flexible);
    response.replica_election_results.reserve(topic_count);
    for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
        auto topic_element = reader.element("replica_election_results", t);
        ReplicaElectionResult& topic = response.replica_election_results.emplace_back();
        topic.topic = reader.string("topic", flexible);
        const size_t partition_count = reader.array_length("partition_result", flexible);
        topic.partition_result.reserve(partition_count);
        for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
            auto partition_element = reader.element("partition_result", p);
            ElectLeadersPartitionResult& result = topic.partition_result.emplace_back();
            result.partition_id = reader.int32("partition_id");
            result.error.code = reader.int16("error_code");
            result.error.message = reader.nullable_string("error_message", flexible);
            reader.skip_tagged_fields(flexible);
        }
        reader.skip_tagged_fields(flexible);
    }
    reader.skip_tagged_fields(flexible);
    return response;
}

}  // namespace ballast::kafka::wire::messages
