#include "adapters/kafka/wire/messages/sasl_authenticate.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

Status SaslAuthenticate::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    writer.bytes(request.auth_bytes, flexible);
    writer.tagged_fields(flexible);
    return Status();
}

SaslAuthenticateResponse SaslAuthenticate::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    SaslAuthenticateResponse response;
    response.error.code = reader.int16("error_code");
    response.error.message = reader.nullable_string("error_message", flexible);
    response.auth_bytes = reader.bytes("auth_bytes", flexible);
    if (version >= 1) response.session_lifetime_ms = reader.int64("session_lifetime_ms");
    reader.skip_tagged_fields(flexible);
    return response;
}

}  // namespace ballast::kafka::wire::messages
