#pragma once

/// ListGroups (key 16, versions 3-5, all flexible): the consumer groups one
/// broker coordinates (a cluster's groups are the union over its brokers).
/// v4 filters by state and answers each group's state; v5 filters by type
/// (classic, consumer) and answers it.

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct ListGroupsRequest {
    std::vector<std::string> states_filter;  // v4+; empty: every state
    std::vector<std::string> types_filter;   // v5+; empty: every type
};

struct ListedGroup {
    std::string group_id;
    std::string protocol_type;  // "consumer" for consumer groups, "" for some
    std::string group_state;    // v4+
    std::string group_type;     // v5+
    bool operator==(const ListedGroup&) const = default;
};

struct ListGroupsResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;
    std::vector<ListedGroup> groups;
};

struct ListGroups {
    using Request = ListGroupsRequest;
    using Response = ListGroupsResponse;
    static constexpr ApiKey key = ApiKey::list_groups;
    /// A filter the version cannot carry is refused (unsupported), not dropped.
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
