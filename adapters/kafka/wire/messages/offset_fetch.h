#pragma once

/// OffsetFetch (key 9, versions 8-9, flexible): the committed offsets of many
/// groups in one request to their coordinator (v8+), by topic name (v10 asks by
/// topic id instead). v9 adds the member id and epoch a KIP-848 consumer sends
/// about its own group; an outside reader sends none (null, -1). A group's
/// topics null: every partition it committed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct OffsetFetchRequestGroup {
    std::string group_id;
    std::optional<std::string> member_id;  // v9+
    int32_t member_epoch = -1;             // v9+
    std::optional<std::vector<TopicPartitions>> topics;  // nullopt: every committed partition
};

struct OffsetFetchRequest {
    std::vector<OffsetFetchRequestGroup> groups;
    bool require_stable = false;
};

struct OffsetFetchPartition {
    int32_t partition_index = -1;
    int64_t committed_offset = -1;  // -1: nothing committed
    int32_t committed_leader_epoch = -1;
    std::optional<std::string> metadata;
    KafkaError error;
    bool operator==(const OffsetFetchPartition&) const = default;
};

struct OffsetFetchTopic {
    std::string name;
    std::vector<OffsetFetchPartition> partitions;
    bool operator==(const OffsetFetchTopic&) const = default;
};

struct OffsetFetchGroup {
    std::string group_id;
    std::vector<OffsetFetchTopic> topics;
    KafkaError error;
    bool operator==(const OffsetFetchGroup&) const = default;
};

struct OffsetFetchResponse {
    int32_t throttle_time_ms = 0;
    std::vector<OffsetFetchGroup> groups;
};

struct OffsetFetch {
    using Request = OffsetFetchRequest;
    using Response = OffsetFetchResponse;
    static constexpr ApiKey key = ApiKey::offset_fetch;
    /// A member id or epoch at v8 is refused (unsupported), not dropped.
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
