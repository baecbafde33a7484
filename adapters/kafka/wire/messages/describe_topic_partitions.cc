#include "adapters/kafka/wire/messages/describe_topic_partitions.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

namespace {

std::optional<std::vector<int32_t>> nullable_int32_array(Reader& reader, const char* field) {
    const std::optional<size_t> count = reader.nullable_array_length(field, true);
    if (!count) return std::nullopt;
    std::vector<int32_t> out;
    out.reserve(*count);
    for (size_t i = 0; i < *count && reader.ok(); ++i) out.push_back(reader.int32(field));
    return out;
}

std::optional<DescribeTopicPartitionsCursor> cursor(Reader& reader, const char* field) {
    // A nullable struct: int8 -1 for null, 1 for present.
    const size_t at = reader.offset();
    const int8_t present = reader.int8(field);
    if (!reader.ok() || present < 0) return std::nullopt;
    if (present != 1) {
        reader.fail(field, "a nullable struct's marker is -1 or 1, not " + std::to_string(present), at);
        return std::nullopt;
    }
    DescribeTopicPartitionsCursor out;
    out.topic_name = reader.string("topic_name", true);
    out.partition_index = reader.int32("partition_index");
    reader.skip_tagged_fields(true);
    return out;
}

}  // namespace

Status DescribeTopicPartitions::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    writer.array_length(request.topics.size(), true);
    for (const std::string& topic : request.topics) {
        writer.string(topic, true);
        writer.tagged_fields(true);
    }
    writer.int32(request.response_partition_limit);
    if (request.cursor) {
        writer.int8(1);
        writer.string(request.cursor->topic_name, true);
        writer.int32(request.cursor->partition_index);
        writer.tagged_fields(true);
    } else {
        writer.int8(-1);
    }
    writer.tagged_fields(true);
    return Status();
}

DescribeTopicPartitionsResponse DescribeTopicPartitions::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    DescribeTopicPartitionsResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    const size_t topics = reader.array_length("topics", true);
    response.topics.reserve(topics);
    for (size_t i = 0; i < topics && reader.ok(); ++i) {
        auto element = reader.element("topics", i);
        DescribeTopicPartitionsTopic& topic = response.topics.emplace_back();
        topic.error_code = reader.int16("error_code");
        topic.name = reader.nullable_string("name", true);
        topic.topic_id = reader.uuid("topic_id");
        topic.is_internal = reader.boolean("is_internal");
        const size_t partitions = reader.array_length("partitions", true);
        topic.partitions.reserve(partitions);
        for (size_t j = 0; j < partitions && reader.ok(); ++j) {
            auto partition_element = reader.element("partitions", j);
            DescribeTopicPartitionsPartition& p = topic.partitions.emplace_back();
            p.error_code = reader.int16("error_code");
            p.partition_index = reader.int32("partition_index");
            p.leader_id = reader.int32("leader_id");
            p.leader_epoch = reader.int32("leader_epoch");
            p.replica_nodes = reader.int32_array("replica_nodes", true);
            p.isr_nodes = reader.int32_array("isr_nodes", true);
            p.eligible_leader_replicas = nullable_int32_array(reader, "eligible_leader_replicas");
            p.last_known_elr = nullable_int32_array(reader, "last_known_elr");
            p.offline_replicas = reader.int32_array("offline_replicas", true);
            reader.skip_tagged_fields(true);
        }
        topic.topic_authorized_operations = reader.int32("topic_authorized_operations");
        reader.skip_tagged_fields(true);
    }
    response.next_cursor = cursor(reader, "next_cursor");
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
