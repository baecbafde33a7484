#pragma once

/// The agentless sampler's arithmetic (metrics source `sampler`): from what
/// the cluster answers without any broker plugin, the rates the engine
/// plans with. Pure: the sampler thread (metrics_sampler.h) feeds it the
/// answers with the times it got them, the unit tests feed it numbers.
///
/// - size: each replica's log size from DescribeLogDirs on its broker.
/// - bytes in/s: the growth of a replica's size between two samples of its
///   broker, divided by the time between them on the samples' own clock
///   (the times passed in, not the sampling interval). A replica that
///   shrank (retention deleted a segment) keeps the rate it had: the
///   deletion says nothing about what was written.
/// - messages in/s: the growth of the partition's end offset between two
///   ListOffsets answers, over their time apart.
/// - bytes out/s: consumers are invisible without broker metrics, so a
///   partition reports 0; replication out is counted in the broker totals
///   (and the engine adds a copy per follower itself).
///
/// A report names, per alive broker, the partitions it leads (the rate of
/// the leader's replica, or the highest of the replicas when the leader has
/// none yet), as PartitionMetrics, and the broker's totals as BrokerMetrics.
/// A broker is reported once it was sampled twice: the first sample only
/// sets the baseline.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "adapters/kafka/cluster_state.h"
#include "adapters/kafka/wire/describe_log_dirs.h"
#include "adapters/kafka/rdkafka_client.h"
#include "events/event.h"

namespace ballast::kafka {

class SamplerBook {
public:
    /// One broker's DescribeLogDirs answer, received at `time_ms`.
    void add_sizes(int32_t broker_id, int64_t time_ms, const wire::DescribeLogDirsResponse& response);
    /// End offsets received at `time_ms`.
    void add_end_offsets(int64_t time_ms, const std::vector<PartitionOffset>& offsets);

    /// PartitionMetrics and BrokerMetrics for the brokers sampled since the
    /// last report (and at least twice), attributed by `state`.
    std::vector<events::Body> report(const ClusterState& state);

private:
    using PartitionKey = std::pair<std::string, int32_t>;
    struct Replica {
        uint64_t size_bytes = 0;
        int64_t time_ms = -1;
        double bytes_in_per_s = -1;  // -1: not known yet
    };
    struct Broker {
        int64_t time_ms = -1;       // of the newest sample
        uint32_t samples = 0;
        bool fresh = false;         // sampled since the last report
        std::map<PartitionKey, Replica> replicas;
    };
    struct Offsets {
        int64_t end_offset = -1;
        int64_t time_ms = -1;
        double messages_in_per_s = -1;
    };

    const Replica* replica(int32_t broker_id, const PartitionKey& key) const;

    std::map<int32_t, Broker> _brokers;
    std::map<PartitionKey, Offsets> _offsets;
};

}  // namespace ballast::kafka
