#include "adapters/kafka/wire/messages/find_coordinator.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

Status FindCoordinator::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    writer.int8(static_cast<int8_t>(request.key_type));
    writer.array_length(request.coordinator_keys.size(), true);
    for (const std::string& coordinator_key : request.coordinator_keys) {
        writer.string(coordinator_key, true);
    }
    writer.tagged_fields(true);
    return Status();
}

FindCoordinatorResponse FindCoordinator::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    FindCoordinatorResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    const size_t count = reader.array_length("coordinators", true);
    response.coordinators.reserve(count);
    for (size_t c = 0; c < count && reader.ok(); ++c) {
        auto element = reader.element("coordinators", c);
        Coordinator& coordinator = response.coordinators.emplace_back();
        coordinator.key = reader.string("key", true);
        coordinator.node_id = reader.int32("node_id");
        coordinator.host = reader.string("host", true);
        coordinator.port = reader.int32("port");
        coordinator.error.code = reader.int16("error_code");
        coordinator.error.message = reader.nullable_string("error_message", true);
        reader.skip_tagged_fields(true);
    }
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
