#pragma once

/// DescribeCluster (key 60, versions 0-2, all flexible): the cluster id, the
/// controller the broker reports, and every broker with its endpoint and rack.
/// v1 adds the endpoint type (brokers or controllers), v2 can include fenced
/// brokers and says which are fenced. Any broker answers.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

enum class EndpointType : int8_t { brokers = 1, controllers = 2 };

struct DescribeClusterRequest {
    bool include_cluster_authorized_operations = false;
    EndpointType endpoint_type = EndpointType::brokers;  // v1+: other values need v1
    bool include_fenced_brokers = false;                 // v2+: true needs v2
};

struct DescribeClusterBroker {
    int32_t broker_id = -1;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;  // null: no rack assigned
    bool is_fenced = false;           // v2+
    bool operator==(const DescribeClusterBroker&) const = default;
};

struct DescribeClusterResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;
    EndpointType endpoint_type = EndpointType::brokers;  // v1+
    std::string cluster_id;
    int32_t controller_id = -1;  // KRaft brokers report a random live broker
    std::vector<DescribeClusterBroker> brokers;
    int32_t cluster_authorized_operations = std::numeric_limits<int32_t>::min();

    const DescribeClusterBroker* broker(int32_t broker_id) const;
};

struct DescribeCluster {
    using Request = DescribeClusterRequest;
    using Response = DescribeClusterResponse;
    static constexpr ApiKey key = ApiKey::describe_cluster;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
