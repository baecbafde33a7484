#include "tests/kafka/support/sasl_frames.h"

#include <cstdio>
#include <cstdlib>

#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::testing {

using kafka::wire::Reader;
using kafka::wire::Writer;

namespace {

constexpr int16_t sasl_authenticate_key = 36;

/// The body of a request frame: after the header (v1: api key, version,
/// correlation id, client id; v2 adds a tagged-field section).
Reader body_of(const ScriptedBroker::Request& request, bool flexible) {
    Reader reader(request.frame, "request");
    reader.int16("api_key");
    reader.int16("api_version");
    reader.int32("correlation_id");
    reader.nullable_string("client_id", false);
    reader.skip_tagged_fields(flexible);
    if (!reader.ok()) {
        std::fprintf(stderr, "sasl frames: %s\n", reader.status().error().message.c_str());
        std::abort();
    }
    return Reader(std::span<const uint8_t>(request.frame).subspan(reader.offset()), "request body");
}

std::vector<uint8_t> header_then(Writer& body, bool flexible) {
    Writer frame;
    frame.int32(7);
    frame.tagged_fields(flexible);
    frame.raw(body.bytes());
    return frame.take();
}

}  // namespace

std::vector<uint8_t> sasl_handshake_response(int16_t, int16_t error_code,
                                             const std::vector<std::string>& mechanisms) {
    Writer body;
    body.int16(error_code);
    body.array_length(mechanisms.size(), false);
    for (const std::string& mechanism : mechanisms) body.string(mechanism, false);
    return header_then(body, false);
}

std::vector<uint8_t> sasl_authenticate_response(int16_t version, int16_t error_code,
                                                const std::optional<std::string>& error_message,
                                                std::string_view auth_bytes,
                                                int64_t session_lifetime_ms) {
    const bool flexible = version >= 2;
    Writer body;
    body.int16(error_code);
    body.nullable_string(error_message, flexible);
    body.bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(auth_bytes.data()),
                                        auth_bytes.size()),
               flexible);
    if (version >= 1) body.int64(session_lifetime_ms);
    body.tagged_fields(flexible);
    return header_then(body, flexible);
}

std::string requested_mechanism(const ScriptedBroker::Request& request) {
    Reader body = body_of(request, false);
    return body.string("mechanism", false);
}

std::string sasl_token(const ScriptedBroker::Request& request) {
    const bool flexible = request.api_key == sasl_authenticate_key && request.api_version >= 2;
    Reader body = body_of(request, flexible);
    const std::vector<uint8_t> token = body.bytes("auth_bytes", flexible);
    return std::string(token.begin(), token.end());
}

}  // namespace ballast::testing
