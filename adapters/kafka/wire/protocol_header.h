#pragma once

/// Request and response headers (RequestHeader.json, ResponseHeader.json).
///
/// Request header v1: api_key int16, api_version int16, correlation_id int32,
/// client_id nullable int16-length string. v2 adds a tagged-field section; its
/// client_id keeps the classic encoding, so a broker can read the header of a
/// request whose version it does not know.
///
/// Response header v0: correlation_id int32. v1 adds a tagged-field section.

#include <cstdint>
#include <optional>
#include <string>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire {

struct RequestHeader {
    ApiKey api_key = ApiKey::api_versions;
    int16_t api_version = 0;
    int32_t correlation_id = 0;
    std::optional<std::string> client_id;
};

/// Writes the header in the version `request_header_version` picks.
void encode_request_header(const RequestHeader& header, Writer& writer);

struct ResponseHeader {
    int32_t correlation_id = 0;
};

/// Reads the header of the response to `key` at `version`.
ResponseHeader decode_response_header(Reader& reader, ApiKey key, int16_t version);

}  // namespace ballast::kafka::wire
