#include "adapters/kafka/wire/messages/list_partition_reassignments.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

const OngoingPartitionReassignment* ListPartitionReassignmentsResponse::find(
    const std::string& topic, int32_t partition) const {
    for (const OngoingTopicReassignment& entry : topics) {
        if (entry.name != topic) continue;
        for (const OngoingPartitionReassignment& ongoing : entry.partitions) {
            if (ongoing.partition_index == partition) return &ongoing;
        }
    }
    return nullptr;
}

Status ListPartitionReassignments::encode(const Request& request, int16_t version,
                                          Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    writer.int32(request.timeout_ms);
    if (request.topics) {
        writer.array_length(request.topics->size(), true);
        for (const TopicPartitions& topic : *request.topics) {
            writer.string(topic.topic, true);
            writer.int32_array(topic.partitions, true);
            writer.tagged_fields(true);
        }
    } else {
        writer.nullable_array_length(std::nullopt, true);
    }
    writer.tagged_fields(true);
    return Status();
}

ListPartitionReassignmentsResponse ListPartitionReassignments::decode(Reader& reader,
                                                                      int16_t version) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    ListPartitionReassignmentsResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    response.error.code = reader.int16("error_code");
    response.error.message = reader.nullable_string("error_message", true);
    const size_t topic_count = reader.array_length("topics", true);
    response.topics.reserve(topic_count);
    for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
        auto topic_element = reader.element("topics", t);
        OngoingTopicReassignment& topic = response.topics.emplace_back();
        topic.name = reader.string("name", true);
        const size_t partition_count = reader.array_length("partitions", true);
        topic.partitions.reserve(partition_count);
        for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
            auto partition_element = reader.element("partitions", p);
            OngoingPartitionReassignment& partition = topic.partitions.emplace_back();
            partition.partition_index = reader.int32("partition_index");
            partition.replicas = reader.int32_array("replicas", true);
            partition.adding_replicas = reader.int32_array("adding_replicas", true);
            partition.removing_replicas = reader.int32_array("removing_replicas", true);
            reader.skip_tagged_fields(true);
        }
        reader.skip_tagged_fields(true);
    }
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
