#include "adapters/kafka/wire/admin_client.h"

#include "adapters/kafka/wire/response_errors.h"

#include <algorithm>
#include <cassert>
#include <charconv>

namespace ballast::kafka::wire {

using events::make_error;

namespace {

Result<BrokerAddress> parse_address(std::string_view entry) {
    auto bad = [&](const std::string& why) {
        return make_error(ErrorCode::invalid_argument,
                          "bootstrap server '" + std::string(entry) + "': " + why);
    };
    BrokerAddress address;
    std::string_view port_text;
    if (!entry.empty() && entry.front() == '[') {
        const size_t close = entry.find(']');
        if (close == std::string_view::npos) return bad("IPv6 address without ']'");
        address.host = std::string(entry.substr(1, close - 1));
        if (close + 1 >= entry.size() || entry[close + 1] != ':') {
            return bad("expected host:port");
        }
        port_text = entry.substr(close + 2);
    } else {
        const size_t colon = entry.rfind(':');
        if (colon == std::string_view::npos) return bad("expected host:port");
        address.host = std::string(entry.substr(0, colon));
        port_text = entry.substr(colon + 1);
    }
    if (address.host.empty()) return bad("empty host");
    int32_t port = 0;
    const char* last = port_text.data() + port_text.size();
    auto [end, error] = std::from_chars(port_text.data(), last, port);
    if (error != std::errc() || end != last || port < 1 ||
        port > 65535) {
        return bad("port '" + std::string(port_text) + "' is not a number in 1-65535");
    }
    address.port = port;
    return address;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

int32_t clamp_timeout(int32_t request_timeout_ms, int64_t call_timeout_ms) {
    return static_cast<int32_t>(std::min<int64_t>(request_timeout_ms, call_timeout_ms));
}

}  // namespace

Result<std::vector<BrokerAddress>> parse_bootstrap_servers(std::string_view list) {
    std::vector<BrokerAddress> addresses;
    size_t start = 0;
    while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string_view::npos) comma = list.size();
        const std::string_view entry = trim(list.substr(start, comma - start));
        if (!entry.empty()) {
            Result<BrokerAddress> address = parse_address(entry);
            if (!address.ok()) return address.error();
            addresses.push_back(std::move(*address));
        }
        start = comma + 1;
    }
    if (addresses.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "bootstrap servers '" + std::string(list) +
                              "': expected host:port[,host:port...]");
    }
    return addresses;
}

AdminClient::AdminClient(ClientOptions options) : _options(std::move(options)) {
    assert(!_options.bootstrap_servers.empty());
    // One factory for every connection of this client: they share its TLS
    // context (the stores read once).
    if (!_options.connection.transport) {
        _options.connection.transport = transport_factory(_options.connection.security);
    }
}

void AdminClient::close() {
    for (auto& [address, connection] : _connections) connection->close();
}

BrokerConnection& AdminClient::connection_to(const BrokerAddress& address) {
    auto& slot = _connections[{address.host, address.port}];
    if (!slot) {
        slot = std::make_unique<BrokerConnection>(address.host, address.port, _options.connection);
    }
    return *slot;
}

/// The last address that worked first, then the bootstrap servers, then the
/// brokers the last DescribeCluster named; the first that opens wins. Each
/// failure is kept so that, if none opens, the error lists them all.
Result<BrokerConnection*> AdminClient::open_any(Deadline deadline) {
    std::vector<BrokerAddress> candidates;
    if (_last_good) candidates.push_back(*_last_good);
    for (const BrokerAddress& address : _options.bootstrap_servers) candidates.push_back(address);
    for (const auto& [id, address] : _brokers) candidates.push_back(address);
    std::string failures;
    std::vector<BrokerAddress> tried;
    for (const BrokerAddress& address : candidates) {
        if (std::find(tried.begin(), tried.end(), address) != tried.end()) continue;
        tried.push_back(address);
        BrokerConnection& connection = connection_to(address);
        Status opened = connection.ensure_open(deadline);
        if (opened.ok()) {
            _last_good = address;
            return &connection;
        }
        failures += (failures.empty() ? "" : "; ") + opened.error().message;
        if (deadline.expired()) break;
    }
    return make_error(ErrorCode::io_error, "no broker reachable: " + failures);
}

Result<BrokerConnection*> AdminClient::open_broker(int32_t broker_id, Deadline deadline) {
    if (_brokers.find(broker_id) == _brokers.end()) {
        // Unknown (or not yet known) broker: learn the endpoints first.
        Result<messages::DescribeClusterResponse> cluster = call_any<messages::DescribeCluster>({}, deadline);
        if (!cluster.ok()) return cluster.error();
        if (_brokers.find(broker_id) == _brokers.end()) {
            std::string known;
            for (const auto& [id, address] : _brokers) {
                known += (known.empty() ? "" : ", ") + std::to_string(id);
            }
            return make_error(ErrorCode::not_found, "broker " + std::to_string(broker_id) +
                                                        " is not in the cluster (DescribeCluster "
                                                        "lists " +
                                                        (known.empty() ? "none" : known) + ")");
        }
    }
    BrokerConnection& connection = connection_to(_brokers.at(broker_id));
    Status opened = connection.ensure_open(deadline);
    if (!opened.ok()) {
        return make_error(opened.error().code,
                          "broker " + std::to_string(broker_id) + ": " + opened.error().message);
    }
    return &connection;
}

template <class Api>
Result<typename Api::Response> AdminClient::call_any(const typename Api::Request& request,
                                                     Deadline deadline) {
    Result<BrokerConnection*> connection = open_any(deadline);
    if (!connection.ok()) return connection.error();
    Result<typename Api::Response> response = (*connection)->template call<Api>(request, deadline);
    if constexpr (std::is_same_v<Api, messages::DescribeCluster>) {
        if (response.ok() && response->error.ok() &&
            response->endpoint_type == messages::EndpointType::brokers) {
            _brokers.clear();
            for (const messages::DescribeClusterBroker& broker : response->brokers) {
                _brokers[broker.broker_id] = {broker.host, broker.port};
            }
        }
    }
    return response;
}

Result<BrokerConnection*> AdminClient::any_broker(int64_t timeout_ms) {
    return open_any(Deadline::after_ms(timeout_ms));
}

Result<BrokerConnection*> AdminClient::broker(int32_t broker_id, int64_t timeout_ms) {
    return open_broker(broker_id, Deadline::after_ms(timeout_ms));
}

Result<messages::DescribeClusterResponse> AdminClient::describe_cluster(
    const messages::DescribeClusterRequest& request, int64_t timeout_ms) {
    return call_any<messages::DescribeCluster>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::AlterPartitionReassignmentsResponse> AdminClient::alter_partition_reassignments(
    messages::AlterPartitionReassignmentsRequest request, int64_t timeout_ms) {
    request.timeout_ms = clamp_timeout(request.timeout_ms, timeout_ms);
    return call_any<messages::AlterPartitionReassignments>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::ListPartitionReassignmentsResponse> AdminClient::list_partition_reassignments(
    messages::ListPartitionReassignmentsRequest request, int64_t timeout_ms) {
    request.timeout_ms = clamp_timeout(request.timeout_ms, timeout_ms);
    return call_any<messages::ListPartitionReassignments>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::ElectLeadersResponse> AdminClient::elect_leaders(messages::ElectLeadersRequest request,
                                                        int64_t timeout_ms) {
    request.timeout_ms = clamp_timeout(request.timeout_ms, timeout_ms);
    return call_any<messages::ElectLeaders>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::MetadataResponse> AdminClient::metadata(const messages::MetadataRequest& request, int64_t timeout_ms) {
    return call_any<messages::Metadata>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::DescribeTopicPartitionsResponse> AdminClient::describe_topic_partitions(
    const messages::DescribeTopicPartitionsRequest& request, int64_t timeout_ms) {
    return call_any<messages::DescribeTopicPartitions>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::ListOffsetsResponse> AdminClient::list_offsets(int32_t broker_id, messages::ListOffsetsRequest request,
                                                      int64_t timeout_ms) {
    // 0 (the default): as long as the call may take.
    request.timeout_ms = clamp_timeout(request.timeout_ms > 0 ? request.timeout_ms : INT32_MAX, timeout_ms);
    const Deadline deadline = Deadline::after_ms(timeout_ms);
    Result<BrokerConnection*> connection = open_broker(broker_id, deadline);
    if (!connection.ok()) return connection.error();
    return (*connection)->call<messages::ListOffsets>(request, deadline);
}

Result<messages::DescribeLogDirsResponse> AdminClient::describe_log_dirs(
    int32_t broker_id, const messages::DescribeLogDirsRequest& request, int64_t timeout_ms) {
    const Deadline deadline = Deadline::after_ms(timeout_ms);
    Result<BrokerConnection*> connection = open_broker(broker_id, deadline);
    if (!connection.ok()) return connection.error();
    return (*connection)->call<messages::DescribeLogDirs>(request, deadline);
}

Result<messages::ListGroupsResponse> AdminClient::list_groups(int32_t broker_id,
                                                              const messages::ListGroupsRequest& request,
                                                              int64_t timeout_ms) {
    const Deadline deadline = Deadline::after_ms(timeout_ms);
    Result<BrokerConnection*> connection = open_broker(broker_id, deadline);
    if (!connection.ok()) return connection.error();
    return (*connection)->call<messages::ListGroups>(request, deadline);
}

Result<messages::FindCoordinatorResponse> AdminClient::find_coordinator(
    const messages::FindCoordinatorRequest& request, int64_t timeout_ms) {
    return call_any<messages::FindCoordinator>(request, Deadline::after_ms(timeout_ms));
}

Result<messages::OffsetFetchResponse> AdminClient::offset_fetch(int32_t broker_id,
                                                                const messages::OffsetFetchRequest& request,
                                                                int64_t timeout_ms) {
    const Deadline deadline = Deadline::after_ms(timeout_ms);
    Result<BrokerConnection*> connection = open_broker(broker_id, deadline);
    if (!connection.ok()) return connection.error();
    return (*connection)->call<messages::OffsetFetch>(request, deadline);
}

std::string AdminClient::missing_acl(ApiKey api, int16_t code, const std::string& topic) const {
    std::string servers;
    for (const BrokerAddress& b : _options.bootstrap_servers) {
        servers += (servers.empty() ? "" : ",") + b.host + ":" + std::to_string(b.port);
    }
    return wire::missing_acl(api, code, principal(_options.connection.security), servers, topic);
}

}  // namespace ballast::kafka::wire
