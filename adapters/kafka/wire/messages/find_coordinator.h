#pragma once

/// FindCoordinator (key 10, versions 4-6, flexible): which broker coordinates
/// each of several groups, in one request (v4+ batches keys). OffsetFetch must
/// go to a group's coordinator; any other broker answers NOT_COORDINATOR.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

/// Kafka's key types: 0 a group, 1 a transaction, 2 a share group.
enum class CoordinatorKeyType : int8_t { group = 0, transaction = 1, share = 2 };

struct FindCoordinatorRequest {
    CoordinatorKeyType key_type = CoordinatorKeyType::group;
    std::vector<std::string> coordinator_keys;
};

struct Coordinator {
    std::string key;
    int32_t node_id = -1;
    std::string host;
    int32_t port = -1;
    KafkaError error;
    bool operator==(const Coordinator&) const = default;
};

struct FindCoordinatorResponse {
    int32_t throttle_time_ms = 0;
    std::vector<Coordinator> coordinators;
};

struct FindCoordinator {
    using Request = FindCoordinatorRequest;
    using Response = FindCoordinatorResponse;
    static constexpr ApiKey key = ApiKey::find_coordinator;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
