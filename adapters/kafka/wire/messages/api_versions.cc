#include "adapters/kafka/wire/messages/api_versions.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

VersionRange ApiVersionsResponse::range(ApiKey key) const {
    for (const ApiVersionRange& entry : api_keys) {
        if (entry.api_key == static_cast<int16_t>(key)) {
            return {entry.min_version, entry.max_version};
        }
    }
    return {};
}

Status ApiVersions::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    if (flexible) {
        writer.string(request.client_software_name, true);
        writer.string(request.client_software_version, true);
    }
    writer.tagged_fields(flexible);
    return Status();
}

ApiVersionsResponse ApiVersions::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    const bool flexible = is_flexible(key, version);
    ApiVersionsResponse response;
    response.error.code = reader.int16("error_code");
    const size_t count = reader.array_length("api_keys", flexible);
    response.api_keys.reserve(count);
    for (size_t i = 0; i < count && reader.ok(); ++i) {
        auto element = reader.element("api_keys", i);
        ApiVersionRange& entry = response.api_keys.emplace_back();
        entry.api_key = reader.int16("api_key");
        entry.min_version = reader.int16("min_version");
        entry.max_version = reader.int16("max_version");
        reader.skip_tagged_fields(flexible);
    }
    if (version >= 1) response.throttle_time_ms = reader.int32("throttle_time_ms");
    reader.skip_tagged_fields(flexible);
    return response;
}

}  // namespace ballast::kafka::wire::messages
