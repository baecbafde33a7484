#pragma once

/// The cluster as the metadata poller reports it, and the events that turn
/// one report into the next. Pure functions of their inputs: the poller
/// (metadata_poller.h) gathers the raw observations from Kafka, these decide
/// what they mean, and the unit tests drive them with hand-made inputs.
///
/// What a report holds, and why:
/// - brokers: the ones metadata lists are alive (KRaft metadata lists only
///   unfenced brokers); one Ballast knew that metadata no longer lists is
///   fenced; DescribeCluster v2 (with fenced brokers) adds the registered
///   but fenced ones, so a Ballast that starts while a broker is down still
///   learns of it, and a broker that leaves the registration is unregistered.
/// - partitions: replicas, leader and ISR as metadata lists them, except
///   while a partition is being reassigned: Kafka then lists the union of
///   old and new replicas, and the report drops the replicas being added
///   (ListPartitionReassignments' adding_replicas) from replicas and ISR.
///   The engine therefore sees a partition's new replica set only when the
///   move completes; it projects the moves in flight itself.
/// - internal topics (`__consumer_offsets`, anything starting with `__`) are
///   reported like any other: excluding topics is the engine's
///   configuration (autobalancer.controller.exclude.topics), not the
///   adapter's.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "events/event.h"

namespace ballast::kafka::metadata {

// ---------------------------------------------------------------- raw observations

/// One broker of a metadata response.
struct MetadataBroker {
    int32_t id = -1;
    std::string host;
    int32_t port = 0;
};

struct MetadataPartition {
    int32_t id = -1;
    int16_t error_code = 0;  // LEADER_NOT_AVAILABLE still lists the replicas
    int32_t leader = -1;
    std::vector<int32_t> replicas;
    std::vector<int32_t> isr;
    int32_t leader_epoch = -1;  // Metadata v7+; -1: not known
};

struct MetadataTopic {
    std::string name;
    int16_t error_code = 0;  // a topic with an error (being created) keeps its last report
    std::vector<MetadataPartition> partitions;
};

/// A cluster metadata response (cluster_queries.h; the metrics readers' from librdkafka).
struct Metadata {
    std::vector<MetadataBroker> brokers;
    std::vector<MetadataTopic> topics;
};

/// What one poll saw. `registered` (DescribeCluster v2 with fenced brokers)
/// and `reassignments` are absent when their call failed or the cluster is
/// too old for them; the report then keeps what it knew.
struct Observation {
    Metadata metadata;
    std::optional<std::vector<wire::messages::DescribeClusterBroker>> registered;
    std::optional<wire::messages::ListPartitionReassignmentsResponse> reassignments;
};

// ---------------------------------------------------------------- the report

struct BrokerState {
    int32_t id = -1;
    std::string host;
    int32_t port = 0;
    std::string rack;  // empty: none
    bool fenced = false;
    bool operator==(const BrokerState&) const = default;
};

struct PartitionState {
    std::vector<int32_t> replicas;  // preference order, without replicas being added
    int32_t leader = -1;
    std::vector<int32_t> isr;
    int32_t leader_epoch = -1;
    bool reassigning = false;            // ListPartitionReassignments lists it
    std::vector<int32_t> adding;         // ... and these are being added
    bool operator==(const PartitionState&) const = default;
};

struct TopicState {
    std::map<int32_t, PartitionState> partitions;
    bool operator==(const TopicState&) const = default;
};

struct ClusterState {
    std::map<int32_t, BrokerState> brokers;
    std::map<std::string, TopicState> topics;

    const PartitionState* partition(const std::string& topic, int32_t partition) const;
    bool operator==(const ClusterState&) const = default;
};

/// The report of `observation`, given the previous report (racks, topics with
/// a transient error and brokers DescribeCluster did not answer for carry over).
ClusterState build_state(const Observation& observation, const ClusterState& previous);

/// The events that take the engine from `before` to `after`, in this order:
/// brokers registered, unfenced; topics created; partitions changed; topics
/// deleted; brokers fenced, unregistered. `before` empty (the first poll)
/// reports everything: each broker registered (and fenced if it is), each
/// topic created, each partition.
std::vector<events::Body> diff(const ClusterState& before, const ClusterState& after);

/// `diff` looking only at the topics named (brokers always): `after` need
/// hold only those topics, a name it lacks being deleted. When nothing
/// outside `topics` changed, the events and their order are the full diff's.
/// Costs the partitions of those topics, not of the cluster.
std::vector<events::Body> diff_topics(const ClusterState& before, const ClusterState& after,
                                      const std::set<std::string>& topics);

}  // namespace ballast::kafka::metadata
