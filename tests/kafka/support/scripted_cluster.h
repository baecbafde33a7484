#pragma once

/// A Kafka cluster played from a model, on one ScriptedBroker (real loopback
/// socket, real thread): it answers what the metadata poller asks
/// (ApiVersions, Metadata v12 of every topic or of the topics named,
/// DescribeCluster v2, ListPartitionReassignments v0, DescribeTopicPartitions
/// v0 with its cursor) from the model as it is when the request arrives.
/// Every broker of the model is listed at the scripted broker's address.
/// Tests and benchmarks edit the model between polls; it counts the
/// requests and the partitions it served, so a test can tell how much of
/// the cluster a poll read. The answer to a Metadata of every topic is
/// encoded once per model version (a million-partition cluster's answer is
/// ~100 MB of encoding).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tests/kafka/support/scripted_broker.h"

namespace ballast::testing {

struct ModelPartition {
    int32_t leader = -1;
    int32_t leader_epoch = 0;
    std::vector<int32_t> replicas;  // as Kafka lists them (the union while reassigning)
    std::vector<int32_t> isr;
    std::vector<int32_t> adding;    // non-empty: ListPartitionReassignments lists it
    std::vector<int32_t> removing;
};

struct ModelBroker {
    std::string rack;  // empty: none
    bool fenced = false;
};

struct ClusterModel {
    std::map<int32_t, ModelBroker> brokers;
    /// By name (Kafka pages DescribeTopicPartitions by name); partition i at index i.
    std::map<std::string, std::vector<ModelPartition>> topics;
};

/// `count` topics "t00000".. of `partitions` partitions each, replicas
/// rotating over brokers 1..`brokers`, `replication_factor` each, all in sync.
ClusterModel generated_model(int32_t brokers, int32_t count, int32_t partitions, int32_t replication_factor);

class ScriptedCluster {
public:
    explicit ScriptedCluster(ClusterModel model);
    ScriptedCluster(const ScriptedCluster&) = delete;
    ScriptedCluster& operator=(const ScriptedCluster&) = delete;

    int32_t port() const { return _broker->port(); }
    /// Changes the model; the next request sees it.
    void edit(const std::function<void(ClusterModel&)>& change);

    /// Requests answered, by API key.
    int64_t requests(int16_t api_key) const;
    /// Partitions listed in Metadata and DescribeTopicPartitions answers.
    int64_t partitions_served() const;

private:
    ScriptedBroker::Action handle(const ScriptedBroker::Request& request);

    mutable std::mutex _mutex;
    ClusterModel _model;
    uint64_t _model_version = 0;
    /// The body of the every-topic Metadata answer, and the version it is of.
    std::vector<uint8_t> _full_metadata;
    uint64_t _full_metadata_version = UINT64_MAX;
    size_t _model_partitions = 0;
    std::map<int16_t, int64_t> _requests;
    int64_t _partitions_served = 0;
    std::unique_ptr<ScriptedBroker> _broker;  // last: its thread calls handle()
};

}  // namespace ballast::testing
