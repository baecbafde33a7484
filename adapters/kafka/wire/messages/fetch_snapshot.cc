#include "adapters/kafka/wire/messages/fetch_snapshot.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

namespace {

constexpr bool snapshot_flexible = true;  // every version

}  // namespace

Status FetchSnapshot::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    writer.int32(request.replica_id);
    writer.int32(request.max_bytes);
    writer.array_length(request.topics.size(), snapshot_flexible);
    for (const FetchSnapshotRequestTopic& topic : request.topics) {
        writer.string(topic.name, snapshot_flexible);
        writer.array_length(topic.partitions.size(), snapshot_flexible);
        for (const FetchSnapshotRequestPartition& partition : topic.partitions) {
            writer.int32(partition.partition);
            writer.int32(partition.current_leader_epoch);
            writer.int64(partition.snapshot_id.end_offset);
            writer.int32(partition.snapshot_id.epoch);
            writer.tagged_fields(snapshot_flexible);
            writer.int64(partition.position);
            TaggedFields tagged;
            if (!partition.replica_directory_id.is_zero()) {
                if (version < 1) {
                    return events::make_error(ErrorCode::unsupported,
                                              "FetchSnapshot v0 cannot carry a replica directory "
                                              "id: that needs v1 or later");
                }
                tagged.add(0).uuid(partition.replica_directory_id);
            }
            tagged.write_to(writer);
        }
        writer.tagged_fields(snapshot_flexible);
    }
    TaggedFields tagged;
    if (request.cluster_id) tagged.add(0).nullable_string(request.cluster_id, snapshot_flexible);
    tagged.write_to(writer);
    return Status();
}

FetchSnapshotResponse FetchSnapshot::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    FetchSnapshotResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    response.error.code = reader.int16("error_code");
    const size_t topics = reader.array_length("topics", snapshot_flexible);
    for (size_t t = 0; t < topics && reader.ok(); ++t) {
        auto topic_element = reader.element("topics", t);
        FetchSnapshotResponseTopic& topic = response.topics.emplace_back();
        topic.name = reader.string("name", snapshot_flexible);
        const size_t partitions = reader.array_length("partitions", snapshot_flexible);
        for (size_t p = 0; p < partitions && reader.ok(); ++p) {
            auto partition_element = reader.element("partitions", p);
            FetchSnapshotResponsePartition& partition = topic.partitions.emplace_back();
            partition.index = reader.int32("index");
            partition.error.code = reader.int16("error_code");
            {
                auto element = reader.element("snapshot_id", 0);
                partition.snapshot_id.end_offset = reader.int64("end_offset");
                partition.snapshot_id.epoch = reader.int32("epoch");
                reader.skip_tagged_fields(snapshot_flexible);
            }
            partition.size = reader.int64("size");
            partition.position = reader.int64("position");
            // Compact records, never null here: the chunk's bytes.
            const size_t at = reader.offset();
            const uint32_t length = reader.uvarint("unaligned_records");
            if (reader.ok() && length > 0) {
                if (length - 1 > reader.remaining()) {
                    reader.fail("unaligned_records",
                                "truncated: " + std::to_string(length - 1) +
                                    " bytes of snapshot, " + std::to_string(reader.remaining()) +
                                    " left",
                                at);
                } else {
                    const std::span<const uint8_t> chunk = reader.raw("unaligned_records", length - 1);
                    partition.bytes.assign(chunk.begin(), chunk.end());
                }
            }
            reader.read_tagged_fields([&](uint32_t tag) {
                if (tag != 0) return false;
                auto element = reader.element("current_leader", 0);
                FetchLeader leader;
                leader.leader_id = reader.int32("leader_id");
                leader.leader_epoch = reader.int32("leader_epoch");
                reader.skip_tagged_fields(snapshot_flexible);
                partition.current_leader = leader;
                return true;
            });
        }
        reader.skip_tagged_fields(snapshot_flexible);
    }
    reader.read_tagged_fields([&](uint32_t tag) {
        if (tag != 0 || version < 1) return false;
        const size_t count = reader.array_length("node_endpoints", snapshot_flexible);
        for (size_t n = 0; n < count && reader.ok(); ++n) {
            auto element = reader.element("node_endpoints", n);
            FetchSnapshotNodeEndpoint& node = response.node_endpoints.emplace_back();
            node.node_id = reader.int32("node_id");
            node.host = reader.string("host", snapshot_flexible);
            node.port = static_cast<uint16_t>(reader.int16("port"));
            reader.skip_tagged_fields(snapshot_flexible);
        }
        return true;
    });
    return response;
}

}  // namespace ballast::kafka::wire::messages
