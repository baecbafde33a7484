#pragma once

/// ApiVersions (key 18, versions 0-4; flexible from 3): which versions of
/// which APIs the broker speaks. The first request on every connection.
///
/// A broker that does not know the requested ApiVersions version answers with
/// UNSUPPORTED_VERSION in the v0 body layout, listing its own range for
/// ApiVersions, so that the client can ask again (broker_connection.cc).

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct ApiVersionsRequest {
    // v3+: how the broker names this client in its metrics ([a-zA-Z0-9.-]).
    std::string client_software_name = "ballast";
    std::string client_software_version = "0";
};

struct ApiVersionRange {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;
    bool operator==(const ApiVersionRange&) const = default;
};

struct ApiVersionsResponse {
    KafkaError error;                      // the schema has a code, no message
    std::vector<ApiVersionRange> api_keys;
    int32_t throttle_time_ms = 0;          // v1+
    // v3+ tagged fields (features, ZK migration) are skipped: Ballast reads none.

    /// The broker's range for `key`; empty when it does not list the API.
    VersionRange range(ApiKey key) const;
};

struct ApiVersions {
    using Request = ApiVersionsRequest;
    using Response = ApiVersionsResponse;
    static constexpr ApiKey key = ApiKey::api_versions;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
