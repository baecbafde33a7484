#pragma once

/// A scripted broker's side of SASL: the SaslHandshake and SaslAuthenticate
/// response frames for any values (header with correlation id 7, then the
/// body, as the vectors hold them; ScriptedBroker::answer patches the id),
/// and what a client's request carries. Built with the client's own Writer
/// from the schemas, and checked byte for byte against the frames Kafka's
/// classes wrote for the vectors' values (sasl_transport_test.cc), so the
/// scripted broker speaks what a real one does.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/kafka/support/scripted_broker.h"

namespace ballast::testing {

std::vector<uint8_t> sasl_handshake_response(int16_t version, int16_t error_code,
                                             const std::vector<std::string>& mechanisms);

std::vector<uint8_t> sasl_authenticate_response(int16_t version, int16_t error_code,
                                                const std::optional<std::string>& error_message,
                                                std::string_view auth_bytes,
                                                int64_t session_lifetime_ms);

/// The mechanism a SaslHandshake request names.
std::string requested_mechanism(const ScriptedBroker::Request& request);
/// The token a SaslAuthenticate request carries.
std::string sasl_token(const ScriptedBroker::Request& request);

}  // namespace ballast::testing
