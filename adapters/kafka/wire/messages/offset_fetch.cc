#include "adapters/kafka/wire/messages/offset_fetch.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

Status OffsetFetch::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    writer.array_length(request.groups.size(), true);
    for (const OffsetFetchRequestGroup& group : request.groups) {
        if (version < 9 && (group.member_id || group.member_epoch != -1)) {
            return events::make_error(ErrorCode::unsupported,
                                      "OffsetFetch v" + std::to_string(version) +
                                          " cannot carry group '" + group.group_id +
                                          "''s member id and epoch: that needs v9 or later");
        }
        writer.string(group.group_id, true);
        if (version >= 9) {
            writer.nullable_string(group.member_id, true);
            writer.int32(group.member_epoch);
        }
        if (group.topics) {
            writer.array_length(group.topics->size(), true);
            for (const TopicPartitions& topic : *group.topics) {
                writer.string(topic.topic, true);
                writer.int32_array(topic.partitions, true);
                writer.tagged_fields(true);
            }
        } else {
            writer.nullable_array_length(std::nullopt, true);
        }
        writer.tagged_fields(true);
    }
    writer.boolean(request.require_stable);
    writer.tagged_fields(true);
    return Status();
}

OffsetFetchResponse OffsetFetch::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    OffsetFetchResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    const size_t group_count = reader.array_length("groups", true);
    response.groups.reserve(group_count);
    for (size_t g = 0; g < group_count && reader.ok(); ++g) {
        auto group_element = reader.element("groups", g);
        OffsetFetchGroup& group = response.groups.emplace_back();
        group.group_id = reader.string("group_id", true);
        const size_t topic_count = reader.array_length("topics", true);
        group.topics.reserve(topic_count);
        for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
            auto topic_element = reader.element("topics", t);
            OffsetFetchTopic& topic = group.topics.emplace_back();
            topic.name = reader.string("name", true);
            const size_t partition_count = reader.array_length("partitions", true);
            topic.partitions.reserve(partition_count);
            for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
                auto partition_element = reader.element("partitions", p);
                OffsetFetchPartition& partition = topic.partitions.emplace_back();
                partition.partition_index = reader.int32("partition_index");
                partition.committed_offset = reader.int64("committed_offset");
                partition.committed_leader_epoch = reader.int32("committed_leader_epoch");
                partition.metadata = reader.nullable_string("metadata", true);
                partition.error.code = reader.int16("error_code");
                reader.skip_tagged_fields(true);
            }
            reader.skip_tagged_fields(true);
        }
        group.error.code = reader.int16("error_code");
        reader.skip_tagged_fields(true);
    }
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
