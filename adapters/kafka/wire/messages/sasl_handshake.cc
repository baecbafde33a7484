#include "adapters/kafka/wire/messages/sasl_handshake.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

Status SaslHandshake::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    writer.string(request.mechanism, false);
    return Status();
}

SaslHandshakeResponse SaslHandshake::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    (void)version;
    SaslHandshakeResponse response;
    response.error.code = reader.int16("error_code");
    const size_t count = reader.array_length("mechanisms", false);
    response.mechanisms.reserve(count);
    for (size_t i = 0; i < count && reader.ok(); ++i) {
        auto element = reader.element("mechanisms", i);
        response.mechanisms.push_back(reader.string("mechanism", false));
    }
    return response;
}

}  // namespace ballast::kafka::wire::messages
