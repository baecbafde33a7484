#include "adapters/kafka/wire/messages/describe_log_dirs.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

const DescribeLogDirsPartition* DescribeLogDirsResponse::find(const std::string& topic,
                                                              int32_t partition) const {
    for (const DescribeLogDirsResult& dir : results) {
        for (const DescribeLogDirsTopic& entry : dir.topics) {
            if (entry.name != topic) continue;
            for (const DescribeLogDirsPartition& replica : entry.partitions) {
                if (replica.partition_index == partition && !replica.is_future_key) {
                    return &replica;
                }
            }
        }
    }
    return nullptr;
}

Status DescribeLogDirs::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    if (request.topics) {
        writer.array_length(request.topics->size(), flexible);
        for (const TopicPartitions& topic : *request.topics) {
            writer.string(topic.topic, flexible);
            writer.int32_array(topic.partitions, flexible);
            writer.tagged_fields(flexible);
        }
    } else {
        writer.nullable_array_length(std::nullopt, flexible);
    }
    writer.tagged_fields(flexible);
    return Status();
}

DescribeLogDirsResponse DescribeLogDirs::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    DescribeLogDirsResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    if (version >= 3) response.error.code = reader.int16("error_code");
    const size_t dir_count = reader.array_length("results", flexible);
    response.results.reserve(dir_count);
    for (size_t d = 0; d < dir_count && reader.ok(); ++d) {
        auto dir_element = reader.element("results", d);
        DescribeLogDirsResult& dir = response.results.emplace_back();
        dir.error.code = reader.int16("error_code");
        dir.log_dir = reader.string("log_dir", flexible);
        const size_t topic_count = reader.array_length("topics", flexible);
        dir.topics.reserve(topic_count);
        for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
            auto topic_element = reader.element("topics", t);
            DescribeLogDirsTopic& topic = dir.topics.emplace_back();
            topic.name = reader.string("name", flexible);
            const size_t partition_count = reader.array_length("partitions", flexible);
            topic.partitions.reserve(partition_count);
            for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
                auto partition_element = reader.element("partitions", p);
                DescribeLogDirsPartition& partition = topic.partitions.emplace_back();
                partition.partition_index = reader.int32("partition_index");
                partition.partition_size = reader.int64("partition_size");
                partition.offset_lag = reader.int64("offset_lag");
                partition.is_future_key = reader.boolean("is_future_key");
                reader.skip_tagged_fields(flexible);
            }
            reader.skip_tagged_fields(flexible);
        }
        if (version >= 4) {
            dir.total_bytes = reader.int64("total_bytes");
            dir.usable_bytes = reader.int64("usable_bytes");
        }
        reader.skip_tagged_fields(flexible);
    }
    reader.skip_tagged_fields(flexible);
    return response;
}

}  // namespace ballast::kafka::wire::messages
