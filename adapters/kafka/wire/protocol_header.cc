#include "adapters/kafka/wire/protocol_header.h"

namespace ballast::kafka::wire {

void encode_request_header(const RequestHeader& header, Writer& writer) {
    const int16_t header_version = request_header_version(header.api_key, header.api_version);
    writer.int16(static_cast<int16_t>(header.api_key));
    writer.int16(header.api_version);
    writer.int32(header.correlation_id);
    writer.nullable_string(header.client_id, /*flexible=*/false);  // classic in every version
    writer.tagged_fields(header_version >= 2);
}

ResponseHeader decode_response_header(Reader& reader, ApiKey key, int16_t version) {
    ResponseHeader header;
    header.correlation_id = reader.int32("header.correlation_id");
    reader.skip_tagged_fields(response_header_version(key, version) >= 1);
    return header;
}

}  // namespace ballast::kafka::wire
