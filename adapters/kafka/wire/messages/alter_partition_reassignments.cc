#include "adapters/kafka/wire/messages/alter_partition_reassignments.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

Status AlterPartitionReassignments::encode(const Request& request, int16_t version,
                                           Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    if (version < 1 && !request.allow_replication_factor_change) {
        return events::make_error(ErrorCode::unsupported,
                                  "AlterPartitionReassignments v0 cannot refuse replication "
                                  "factor changes (allow_replication_factor_change=false needs "
                                  "v1 or later)");
    }
    writer.int32(request.timeout_ms);
    if (version >= 1) writer.boolean(request.allow_replication_factor_change);
    writer.array_length(request.topics.size(), true);
    for (const ReassignableTopic& topic : request.topics) {
        writer.string(topic.name, true);
        writer.array_length(topic.partitions.size(), true);
        for (const ReassignablePartition& partition : topic.partitions) {
            writer.int32(partition.partition_index);
            if (partition.replicas) {
                writer.int32_array(*partition.replicas, true);
            } else {
                writer.nullable_array_length(std::nullopt, true);
            }
            writer.tagged_fields(true);
        }
        writer.tagged_fields(true);
    }
    writer.tagged_fields(true);
    return Status();
}

AlterPartitionReassignmentsResponse AlterPartitionReassignments::decode(Reader& reader,
                                                                        int16_t version) {
    assert(api_spec(key).versions.contains(version));
    AlterPartitionReassignmentsResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    if (version >= 1) {
        response.allow_replication_factor_change =
            reader.boolean("allow_replication_factor_change");
    }
    response.error.code = reader.int16("error_code");
    response.error.message = reader.nullable_string("error_message", true);
    const size_t topic_count = reader.array_length("responses", true);
    response.responses.reserve(topic_count);
    for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
        auto topic_element = reader.element("responses", t);
        ReassignableTopicResponse& topic = response.responses.emplace_back();
        topic.name = reader.string("name", true);
        const size_t partition_count = reader.array_length("partitions", true);
        topic.partitions.reserve(partition_count);
        for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
            auto partition_element = reader.element("partitions", p);
            ReassignablePartitionResponse& partition = topic.partitions.emplace_back();
            partition.partition_index = reader.int32("partition_index");
            partition.error.code = reader.int16("error_code");
            partition.error.message = reader.nullable_string("error_message", true);
            reader.skip_tagged_fields(true);
        }
        reader.skip_tagged_fields(true);
    }
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
