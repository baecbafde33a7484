#include "adapters/kafka/wire/messages/fetch.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

namespace {

constexpr bool flexible = true;  // every version implemented

Error needs_version(int16_t version, const char* what, int16_t since) {
    return events::make_error(ErrorCode::unsupported,
                              "Fetch v" + std::to_string(version) + " cannot carry " + what +
                                  ": that needs v" + std::to_string(since) + " or later");
}

FetchEpochEndOffset read_epoch_end_offset(Reader& reader, bool epoch_first) {
    FetchEpochEndOffset value;
    if (epoch_first) {
        value.epoch = reader.int32("epoch");
        value.end_offset = reader.int64("end_offset");
    } else {
        value.end_offset = reader.int64("end_offset");
        value.epoch = reader.int32("epoch");
    }
    reader.skip_tagged_fields(flexible);
    return value;
}

}  // namespace

Status Fetch::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    if (version < 15 && request.replica_epoch != -1) {
        return needs_version(version, "a replica epoch", 15);
    }
    if (version < 15) writer.int32(request.replica_id);
    writer.int32(request.max_wait_ms);
    writer.int32(request.min_bytes);
    writer.int32(request.max_bytes);
    writer.int8(request.isolation_level);
    writer.int32(request.session_id);
    writer.int32(request.session_epoch);
    writer.array_length(request.topics.size(), flexible);
    for (const FetchRequestTopic& topic : request.topics) {
        writer.uuid(topic.topic_id);
        writer.array_length(topic.partitions.size(), flexible);
        for (const FetchRequestPartition& partition : topic.partitions) {
            writer.int32(partition.partition);
            writer.int32(partition.current_leader_epoch);
            writer.int64(partition.fetch_offset);
            writer.int32(partition.last_fetched_epoch);
            writer.int64(partition.log_start_offset);
            writer.int32(partition.partition_max_bytes);
            TaggedFields tagged;
            if (!partition.replica_directory_id.is_zero()) {
                if (version < 17) return needs_version(version, "a replica directory id", 17);
                tagged.add(0).uuid(partition.replica_directory_id);
            }
            if (partition.high_watermark != std::numeric_limits<int64_t>::max()) {
                if (version < 18) return needs_version(version, "the fetcher's high watermark", 18);
                tagged.add(1).int64(partition.high_watermark);
            }
            tagged.write_to(writer);
        }
        writer.tagged_fields(flexible);
    }
    writer.array_length(0, flexible);  // forgotten topics: no fetch sessions
    writer.string(request.rack_id, flexible);
    TaggedFields tagged;
    if (request.cluster_id) tagged.add(0).nullable_string(request.cluster_id, flexible);
    if (version >= 15 && (request.replica_id != -1 || request.replica_epoch != -1)) {
        Writer& state = tagged.add(1);
        state.int32(request.replica_id);
        state.int64(request.replica_epoch);
        state.tagged_fields(flexible);
    }
    tagged.write_to(writer);
    return Status();
}

FetchResponse Fetch::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    FetchResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    response.error.code = reader.int16("error_code");
    response.session_id = reader.int32("session_id");
    const size_t topics = reader.array_length("responses", flexible);
    response.responses.reserve(topics);
    for (size_t t = 0; t < topics && reader.ok(); ++t) {
        auto topic_element = reader.element("responses", t);
        FetchResponseTopic& topic = response.responses.emplace_back();
        topic.topic_id = reader.uuid("topic_id");
        const size_t partitions = reader.array_length("partitions", flexible);
        topic.partitions.reserve(partitions);
        for (size_t p = 0; p < partitions && reader.ok(); ++p) {
            auto partition_element = reader.element("partitions", p);
            FetchResponsePartition& partition = topic.partitions.emplace_back();
            partition.partition_index = reader.int32("partition_index");
            partition.error.code = reader.int16("error_code");
            partition.high_watermark = reader.int64("high_watermark");
            partition.last_stable_offset = reader.int64("last_stable_offset");
            partition.log_start_offset = reader.int64("log_start_offset");
            const std::optional<size_t> aborted =
                reader.nullable_array_length("aborted_transactions", flexible);
            if (aborted) {
                partition.aborted_transactions.emplace();
                for (size_t a = 0; a < *aborted && reader.ok(); ++a) {
                    auto aborted_element = reader.element("aborted_transactions", a);
                    FetchAbortedTransaction& entry = partition.aborted_transactions->emplace_back();
                    entry.producer_id = reader.int64("producer_id");
                    entry.first_offset = reader.int64("first_offset");
                    reader.skip_tagged_fields(flexible);
                }
            }
            partition.preferred_read_replica = reader.int32("preferred_read_replica");
            // Records: compact, nullable; the bytes of whole and partial batches.
            const size_t at = reader.offset();
            const uint32_t length = reader.uvarint("records");
            if (reader.ok() && length > 0) {
                if (length - 1 > reader.remaining()) {
                    reader.fail("records",
                                "truncated: " + std::to_string(length - 1) + " bytes of records, " +
                                    std::to_string(reader.remaining()) + " left",
                                at);
                } else {
                    const std::span<const uint8_t> records = reader.raw("records", length - 1);
                    partition.records.emplace(records.begin(), records.end());
                }
            }
            reader.read_tagged_fields([&](uint32_t tag) {
                switch (tag) {
                    case 0: {
                        auto element = reader.element("diverging_epoch", 0);
                        partition.diverging_epoch = read_epoch_end_offset(reader, true);
                        return true;
                    }
                    case 1: {
                        auto element = reader.element("current_leader", 0);
                        FetchLeader leader;
                        leader.leader_id = reader.int32("leader_id");
                        leader.leader_epoch = reader.int32("leader_epoch");
                        reader.skip_tagged_fields(flexible);
                        partition.current_leader = leader;
                        return true;
                    }
                    case 2: {
                        auto element = reader.element("snapshot_id", 0);
                        partition.snapshot_id = read_epoch_end_offset(reader, false);
                        return true;
                    }
                    default: return false;
                }
            });
        }
        reader.skip_tagged_fields(flexible);
    }
    reader.read_tagged_fields([&](uint32_t tag) {
        if (tag != 0 || version < 16) return false;
        const size_t count = reader.array_length("node_endpoints", flexible);
        for (size_t n = 0; n < count && reader.ok(); ++n) {
            auto element = reader.element("node_endpoints", n);
            FetchNodeEndpoint& node = response.node_endpoints.emplace_back();
            node.node_id = reader.int32("node_id");
            node.host = reader.string("host", flexible);
            node.port = reader.int32("port");
            node.rack = reader.nullable_string("rack", flexible);
            reader.skip_tagged_fields(flexible);
        }
        return true;
    });
    return response;
}

}  // namespace ballast::kafka::wire::messages
