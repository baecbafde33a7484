#include "adapters/kafka/wire/messages/metadata.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

namespace {

Status needs(const std::string& what, int16_t version) {
    return events::make_error(ErrorCode::unsupported, "Metadata v" + std::to_string(version) + " " + what);
}

}  // namespace

Status Metadata::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    if (version == 0 && request.topics && request.topics->empty()) {
        return needs("cannot ask for no topic: an empty list means every topic there; that needs v1 or later",
                     version);
    }
    if (version < 4 && !request.allow_auto_topic_creation) {
        return needs("cannot forbid creating the topics it names: that needs v4 or later", version);
    }
    if (request.include_cluster_authorized_operations && (version < 8 || version > 10)) {
        return needs("cannot include the cluster's authorized operations (v8-10 only; DescribeCluster says them)",
                     version);
    }
    if (request.include_topic_authorized_operations && version < 8) {
        return needs("cannot include topics' authorized operations: that needs v8 or later", version);
    }
    if (!request.topics) {
        if (version == 0) {
            writer.array_length(0, flexible);  // v0's "every topic"
        } else {
            writer.nullable_array_length(std::nullopt, flexible);
        }
    } else {
        writer.array_length(request.topics->size(), flexible);
        for (const MetadataRequestTopic& topic : *request.topics) {
            if (version < 10 && (!topic.topic_id.is_zero() || !topic.name)) {
                return needs("names topics by name only: a topic id needs v10 or later", version);
            }
            if (version >= 10) {
                writer.int64(topic.topic_id.high);
                writer.int64(topic.topic_id.low);
                writer.nullable_string(topic.name, flexible);
            } else {
                writer.string(*topic.name, flexible);
            }
            writer.tagged_fields(flexible);
        }
    }
    if (version >= 4) writer.boolean(request.allow_auto_topic_creation);
    if (version >= 8 && version <= 10) writer.boolean(request.include_cluster_authorized_operations);
    if (version >= 8) writer.boolean(request.include_topic_authorized_operations);
    writer.tagged_fields(flexible);
    return Status();
}

MetadataResponse Metadata::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    MetadataResponse response;
    if (version >= 3) response.throttle_time_ms = reader.int32("throttle_time_ms");
    const size_t broker_count = reader.array_length("brokers", flexible);
    response.brokers.reserve(broker_count);
    for (size_t b = 0; b < broker_count && reader.ok(); ++b) {
        auto element = reader.element("brokers", b);
        MetadataResponseBroker& broker = response.brokers.emplace_back();
        broker.node_id = reader.int32("node_id");
        broker.host = reader.string("host", flexible);
        broker.port = reader.int32("port");
        if (version >= 1) broker.rack = reader.nullable_string("rack", flexible);
        reader.skip_tagged_fields(flexible);
    }
    if (version >= 2) response.cluster_id = reader.nullable_string("cluster_id", flexible);
    if (version >= 1) response.controller_id = reader.int32("controller_id");
    const size_t topic_count = reader.array_length("topics", flexible);
    response.topics.reserve(topic_count);
    for (size_t t = 0; t < topic_count && reader.ok(); ++t) {
        auto topic_element = reader.element("topics", t);
        MetadataResponseTopic& topic = response.topics.emplace_back();
        topic.error_code = reader.int16("error_code");
        if (version >= 12) {
            topic.name = reader.nullable_string("name", flexible);
        } else {
            topic.name = reader.string("name", flexible);
        }
        if (version >= 10) {
            topic.topic_id.high = reader.int64("topic_id");
            topic.topic_id.low = reader.int64("topic_id");
        }
        if (version >= 1) topic.is_internal = reader.boolean("is_internal");
        const size_t partition_count = reader.array_length("partitions", flexible);
        topic.partitions.reserve(partition_count);
        for (size_t p = 0; p < partition_count && reader.ok(); ++p) {
            auto partition_element = reader.element("partitions", p);
            MetadataResponsePartition& partition = topic.partitions.emplace_back();
            partition.error_code = reader.int16("error_code");
            partition.partition_index = reader.int32("partition_index");
            partition.leader_id = reader.int32("leader_id");
            if (version >= 7) partition.leader_epoch = reader.int32("leader_epoch");
            partition.replica_nodes = reader.int32_array("replica_nodes", flexible);
            partition.isr_nodes = reader.int32_array("isr_nodes", flexible);
            if (version >= 5) partition.offline_replicas = reader.int32_array("offline_replicas", flexible);
            reader.skip_tagged_fields(flexible);
        }
        if (version >= 8) topic.topic_authorized_operations = reader.int32("topic_authorized_operations");
        reader.skip_tagged_fields(flexible);
    }
    if (version >= 8 && version <= 10) {
        response.cluster_authorized_operations = reader.int32("cluster_authorized_operations");
    }
    if (version >= 13) response.error_code = reader.int16("error_code");
    reader.skip_tagged_fields(flexible);
    return response;
}

}  // namespace ballast::kafka::wire::messages
