#include "adapters/kafka/wire/messages/list_groups.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

namespace {

void string_array(const std::vector<std::string>& values, Writer& writer) {
    writer.array_length(values.size(), true);
    for (const std::string& value : values) writer.string(value, true);
}

}  // namespace

Status ListGroups::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    if (version < 4 && !request.states_filter.empty()) {
        return events::make_error(ErrorCode::unsupported, "ListGroups v" + std::to_string(version) +
                                       " cannot filter by state (v4+)");
    }
    if (version < 5 && !request.types_filter.empty()) {
        return events::make_error(ErrorCode::unsupported, "ListGroups v" + std::to_string(version) +
                                       " cannot filter by type (v5+)");
    }
    if (version >= 4) string_array(request.states_filter, writer);
    if (version >= 5) string_array(request.types_filter, writer);
    writer.tagged_fields(true);
    return Status();
}

ListGroupsResponse ListGroups::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    ListGroupsResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    response.error.code = reader.int16("error_code");
    const size_t count = reader.array_length("groups", true);
    response.groups.reserve(count);
    for (size_t g = 0; g < count && reader.ok(); ++g) {
        auto element = reader.element("groups", g);
        ListedGroup& group = response.groups.emplace_back();
        group.group_id = reader.string("group_id", true);
        group.protocol_type = reader.string("protocol_type", true);
        if (version >= 4) group.group_state = reader.string("group_state", true);
        if (version >= 5) group.group_type = reader.string("group_type", true);
        reader.skip_tagged_fields(true);
    }
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
