#include "adapters/kafka/wire/messages/describe_cluster.h"

#include <cassert>

namespace ballast::kafka::wire::messages {

const DescribeClusterBroker* DescribeClusterResponse::broker(int32_t broker_id) const {
    for (const DescribeClusterBroker& entry : brokers) {
        if (entry.broker_id == broker_id) return &entry;
    }
    return nullptr;
}

Status DescribeCluster::encode(const Request& request, int16_t version, Writer& writer) {
    assert(api_spec(key).versions.contains(version));
    if (version < 1 && request.endpoint_type != EndpointType::brokers) {
        return events::make_error(ErrorCode::unsupported,
                                  "DescribeCluster v0 describes brokers only: describing "
                                  "controllers needs v1 or later");
    }
    if (version < 2 && request.include_fenced_brokers) {
        return events::make_error(ErrorCode::unsupported,
                                  "DescribeCluster v" + std::to_string(version) +
                                      " cannot include fenced brokers: that needs v2 or later");
    }
    writer.boolean(request.include_cluster_authorized_operations);
    if (version >= 1) writer.int8(static_cast<int8_t>(request.endpoint_type));
    if (version >= 2) writer.boolean(request.include_fenced_brokers);
    writer.tagged_fields(true);
    return Status();
}

DescribeClusterResponse DescribeCluster::decode(Reader& reader, int16_t version) {
    assert(api_spec(key).versions.contains(version));
    DescribeClusterResponse response;
    response.throttle_time_ms = reader.int32("throttle_time_ms");
    response.error.code = reader.int16("error_code");
    response.error.message = reader.nullable_string("error_message", true);
    if (version >= 1) {
        const size_t at = reader.offset();
        const int8_t type = reader.int8("endpoint_type");
        if (reader.ok() && type != 1 && type != 2) {
            reader.fail("endpoint_type", "unknown endpoint type " + std::to_string(type), at);
        }
        response.endpoint_type = static_cast<EndpointType>(type);
    }
    response.cluster_id = reader.string("cluster_id", true);
    response.controller_id = reader.int32("controller_id");
    const size_t count = reader.array_length("brokers", true);
    response.brokers.reserve(count);
    for (size_t i = 0; i < count && reader.ok(); ++i) {
        auto element = reader.element("brokers", i);
        DescribeClusterBroker& broker = response.brokers.emplace_back();
        broker.broker_id = reader.int32("broker_id");
        broker.host = reader.string("host", true);
        broker.port = reader.int32("port");
        broker.rack = reader.nullable_string("rack", true);
        if (version >= 2) broker.is_fenced = reader.boolean("is_fenced");
        reader.skip_tagged_fields(true);
    }
    response.cluster_authorized_operations = reader.int32("cluster_authorized_operations");
    reader.skip_tagged_fields(true);
    return response;
}

}  // namespace ballast::kafka::wire::messages
