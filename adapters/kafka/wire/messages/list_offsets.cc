#include "adapters/kafka/wire/messages/list_offsets.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

Status ListOffsets::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    if (version < 2 && request.isolation_level != 0) {
        return events::make_error(ErrorCode::unsupported,
                                  "ListOffsets v1 reads uncommitted only: read_committed needs v2 or later");
    }
    writer.int32(request.replica_id);
    if (version >= 2) writer.int8(request.isolation_level);
    writer.array_length(request.topics.size(), flexible);
    for (const ListOffsetsTopic& topic : request.topics) {
        writer.string(topic.name, flexible);
        writer.array_length(topic.partitions.size(), flexible);
        for (const ListOffsetsPartition& partition : topic.partitions) {
            writer.int32(partition.partition_index);
            if (version >= 4) writer.int32(partition.current_leader_epoch);
            writer.int64(partition.timestamp);
            writer.tagged_fields(flexible);
        }
        writer.tagged_fields(flexible);
    }
    if (version >= 10) writer.int32(request.timeout_ms);
    writer.tagged_fields(flexible);
    return Status();
}

ListOffsetsResponse ListOffsets::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    ListOffsetsResponse response;
    if (version >= 2) response.throttle_time_ms = reader.int32("throttle_time_ms");
    const size_t topic_count = reader.array_length("topics", flexible);
    response.topics.reserve(topic_count);
    for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
        auto topic_element = reader.element("topics", t);
        ListOffsetsTopicResponse& topic = response.topics.emplace_back();
        topic.name = reader.string("name", flexible);
        const size_t partition_count = reader.array_length("partitions", flexible);
        topic.partitions.reserve(partition_count);
        for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
            auto partition_element = reader.element("partitions", p);
            ListOffsetsPartitionResponse& partition = topic.partitions.emplace_back();
            partition.partition_index = reader.int32("partition_index");
            partition.error.code = reader.int16("error_code");
            partition.timestamp = reader.int64("timestamp");
            partition.offset = reader.int64("offset");
            if (version >= 4) partition.leader_epoch = reader.int32("leader_epoch");
            reader.skip_tagged_fields(flexible);
        }
        reader.skip_tagged_fields(flexible);
    }
    reader.skip_tagged_fields(flexible);
    return response;
}

}  // namespace ballast::kafka::wire::messages
