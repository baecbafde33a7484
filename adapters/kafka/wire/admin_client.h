#pragma once

/// The admin wire client: the Kafka requests Ballast makes outside librdkafka,
/// sent to the right broker. Cluster-wide requests (DescribeCluster, the
/// reassignment APIs, ElectLeaders, Metadata) go to any reachable broker,
/// which forwards them to the active controller where needed; DescribeLogDirs
/// goes to the broker it describes and ListOffsets to the partitions' leader,
/// found through DescribeCluster.
///
/// Every call takes a timeout and returns within it: connecting, negotiating
/// and the exchange all fit in one deadline. A `Result` error means no valid
/// answer came back (unreachable, timed out, malformed, no common version);
/// errors the broker reports (per partition or top level) are data in the
/// response: `response_errors.h` turns them into one message.
///
/// Not thread-safe: each user (the admin port, the poller, the sampler) owns
/// its clients and calls them from its own thread; a call blocks that thread
/// for at most its timeout.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/kafka/wire/messages/alter_partition_reassignments.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/describe_topic_partitions.h"
#include "adapters/kafka/wire/messages/describe_log_dirs.h"
#include "adapters/kafka/wire/messages/elect_leaders.h"
#include "adapters/kafka/wire/messages/list_offsets.h"
#include "adapters/kafka/wire/messages/find_coordinator.h"
#include "adapters/kafka/wire/messages/list_groups.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "adapters/kafka/wire/messages/offset_fetch.h"
#include "adapters/kafka/wire/messages/metadata.h"

namespace ballast::kafka::wire {

struct BrokerAddress {
    std::string host;
    int32_t port = 0;
    bool operator==(const BrokerAddress&) const = default;
};

/// "host:port[,host:port...]"; IPv6 literals in brackets ("[::1]:9092").
/// Errors name the entry that is wrong and why.
Result<std::vector<BrokerAddress>> parse_bootstrap_servers(std::string_view list);

struct ClientOptions {
    std::vector<BrokerAddress> bootstrap_servers;
    /// Every connection's options; `connection.security` says how to reach
    /// and authenticate to the brokers (PLAINTEXT by default).
    ConnectionOptions connection;
};

class AdminClient {
public:
    /// Precondition: at least one bootstrap server. Connects lazily.
    explicit AdminClient(ClientOptions options);

    Result<messages::DescribeClusterResponse> describe_cluster(const messages::DescribeClusterRequest& request,
                                                     int64_t timeout_ms);

    /// The broker is never asked to wait longer than the call
    /// (request.timeout_ms is lowered to timeout_ms if larger); the same
    /// holds for the other requests that carry a timeout.
    Result<messages::AlterPartitionReassignmentsResponse> alter_partition_reassignments(
        messages::AlterPartitionReassignmentsRequest request, int64_t timeout_ms);

    Result<messages::ListPartitionReassignmentsResponse> list_partition_reassignments(
        messages::ListPartitionReassignmentsRequest request, int64_t timeout_ms);

    Result<messages::ElectLeadersResponse> elect_leaders(messages::ElectLeadersRequest request, int64_t timeout_ms);

    /// The cluster's metadata, from any broker.
    Result<messages::MetadataResponse> metadata(const messages::MetadataRequest& request, int64_t timeout_ms);

    /// One page of topics' partitions, from any broker's metadata cache.
    Result<messages::DescribeTopicPartitionsResponse> describe_topic_partitions(
        const messages::DescribeTopicPartitionsRequest& request, int64_t timeout_ms);

    /// Asks broker `broker_id`, which must lead the partitions asked.
    Result<messages::ListOffsetsResponse> list_offsets(int32_t broker_id, messages::ListOffsetsRequest request, int64_t timeout_ms);

    /// Asks broker `broker_id` about its own log directories.
    Result<messages::DescribeLogDirsResponse> describe_log_dirs(int32_t broker_id,
                                                      const messages::DescribeLogDirsRequest& request,
                                                      int64_t timeout_ms);

    /// The groups broker `broker_id` coordinates: a cluster's groups are the
    /// union of every broker's answer.
    Result<messages::ListGroupsResponse> list_groups(int32_t broker_id, const messages::ListGroupsRequest& request,
                                                     int64_t timeout_ms);

    /// Each key's coordinator, from any broker.
    Result<messages::FindCoordinatorResponse> find_coordinator(const messages::FindCoordinatorRequest& request,
                                                               int64_t timeout_ms);

    /// Asks broker `broker_id`, which must coordinate the groups asked
    /// (another answers NOT_COORDINATOR for each).
    Result<messages::OffsetFetchResponse> offset_fetch(int32_t broker_id, const messages::OffsetFetchRequest& request,
                                                       int64_t timeout_ms);

    /// The connection cluster-wide calls use, opening one if needed (tests
    /// read the negotiated versions from it).
    Result<BrokerConnection*> any_broker(int64_t timeout_ms);
    /// The connection to `broker_id`, opening one if needed.
    Result<BrokerConnection*> broker(int32_t broker_id, int64_t timeout_ms);

    /// Closes every connection (they reopen on the next call).
    void close();

    /// For an authorization error answered to `api`, the ACL this client's
    /// principal lacks as a kafka-acls command (response_errors.h's
    /// missing_acl); "" for any other error.
    std::string missing_acl(ApiKey api, int16_t code, const std::string& topic = "") const;

private:
    template <class Api>
    Result<typename Api::Response> call_any(const typename Api::Request& request,
                                            Deadline deadline);
    Result<BrokerConnection*> open_any(Deadline deadline);
    Result<BrokerConnection*> open_broker(int32_t broker_id, Deadline deadline);
    BrokerConnection& connection_to(const BrokerAddress& address);

    ClientOptions _options;
    /// Every connection by address; at most one per address.
    std::map<std::pair<std::string, int32_t>, std::unique_ptr<BrokerConnection>> _connections;
    /// Broker endpoints from the last DescribeCluster.
    std::map<int32_t, BrokerAddress> _brokers;
    /// The address cluster-wide calls used last, tried first next time.
    std::optional<BrokerAddress> _last_good;
};

}  // namespace ballast::kafka::wire
