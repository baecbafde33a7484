#pragma once

/// SaslHandshake (key 17, versions 0-1, never flexible): the client names the
/// SASL mechanism it wants; the broker answers with an error code and the
/// mechanisms its listener enables (UNSUPPORTED_SASL_MECHANISM when ours is not
/// one of them). The two versions have the same fields. What differs is what
/// follows: after v0 the SASL tokens travel as bare size-prefixed frames; after
/// v1 they travel inside SaslAuthenticate requests. Ballast speaks v1 only
/// (transport_sasl.h); the codec does both.

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct SaslHandshakeRequest {
    std::string mechanism;  // "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"
};

struct SaslHandshakeResponse {
    KafkaError error;  // the schema has a code, no message
    std::vector<std::string> mechanisms;
};

struct SaslHandshake {
    using Request = SaslHandshakeRequest;
    using Response = SaslHandshakeResponse;
    static constexpr ApiKey key = ApiKey::sasl_handshake;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
