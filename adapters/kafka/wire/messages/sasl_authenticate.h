#pragma once

/// SaslAuthenticate (key 36, versions 0-2; flexible from 2): one SASL token
/// from the client, one from the broker, after a SaslHandshake v1. PLAIN
/// takes one round, SCRAM two. v1 adds the session lifetime: when it is
/// positive, the broker ends the session after that many milliseconds unless
/// the client authenticates again on the same connection (KIP-368;
/// transport_sasl.h).
///
/// A failed authentication answers SASL_AUTHENTICATION_FAILED with Kafka's
/// message ("Authentication failed during authentication due to invalid
/// credentials with SASL mechanism SCRAM-SHA-512"); the broker then closes the
/// connection.

#include <cstdint>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct SaslAuthenticateRequest {
    std::vector<uint8_t> auth_bytes;  // the mechanism's token
};

struct SaslAuthenticateResponse {
    KafkaError error;                 // code and nullable message
    std::vector<uint8_t> auth_bytes;  // the broker's token (empty for PLAIN)
    int64_t session_lifetime_ms = 0;  // v1+: 0 (or less) means it never expires
};

struct SaslAuthenticate {
    using Request = SaslAuthenticateRequest;
    using Response = SaslAuthenticateResponse;
    static constexpr ApiKey key = ApiKey::sasl_authenticate;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
