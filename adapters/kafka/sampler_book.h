#pragma once

/// The agentless sampler's arithmetic (metrics source `sampler`): from what
/// the cluster answers without any broker plugin, the rates the engine
/// plans with. Pure: the sampler thread (metrics_sampler.h) feeds it the
/// answers with the times it got them, the unit tests feed it numbers.
///
/// - size: each replica's log size from DescribeLogDirs on its broker. A
///   partition's size is its leader's replica's (a follower still copying
///   holds less), or the largest in-sync replica's when the leader's broker
///   did not list it.
/// - growth: a replica's size growth between two samples of its broker,
///   divided by the time between them on the samples' own clock (the times
///   passed in, not the sampling interval). A replica that shrank (retention
///   deleted a segment) keeps the growth it had: the deletion says nothing
///   about what was written.
/// - messages in/s: the growth of the partition's end offset between two
///   ListOffsets answers, over their time apart.
/// - bytes in/s, what producers write: the leader's replica's growth, but
///   only when nothing but producers can have grown it, i.e. the same broker
///   led the partition from the ISR at the previous report and at this one,
///   and the growth was measured since then. A follower's growth is never
///   taken: one catching up (a broker back from a stop, a replica being
///   added) grows by the copy, many times the produce rate. Nor is a new
///   leader's first interval: a replica that just caught up and was elected
///   grew by the copy in it. Otherwise the rate is the messages in/s times
///   the partition's bytes per message, learned whenever a trusted growth
///   and a messages rate were measured in the same round; without those,
///   the last trusted rate; without that, the partition is not reported (the
///   engine keeps what it had). A copy's traffic thus never reaches the
///   samples, so a move cannot make the next round plan against it.
/// - bytes out/s, what consumers read: the messages consumer groups
///   committed per second (consumer_traffic.h, handed over with
///   set_messages_out) times the partition's bytes per message (learned as
///   above; before it is, bytes in over messages in of this round); 0 when no
///   group's rate is known. Replication out is counted in the broker totals
///   (and the engine adds a copy per follower itself).
///
/// A report names, per alive broker, the partitions it leads, as
/// PartitionMetrics, and the broker's totals as BrokerMetrics: bytes in is
/// the partitions' estimates over every replica it holds (a follower takes
/// the produce rate in), bytes out the leaders' estimates times their
/// followers, size what its log directories hold. A broker is reported once
/// it was sampled twice: the first sample only sets the baseline.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/wire/messages/describe_log_dirs.h"
#include "adapters/kafka/metadata/cluster_queries.h"
#include "events/event.h"

namespace ballast::kafka {

class SamplerBook {
public:
    /// One broker's DescribeLogDirs answer, received at `time_ms`.
    void add_sizes(int32_t broker_id, int64_t time_ms, const wire::messages::DescribeLogDirsResponse& response);
    /// End offsets received at `time_ms`.
    void add_end_offsets(int64_t time_ms, const std::vector<metadata::PartitionOffset>& offsets);

    /// Messages consumed per second per partition (every consuming group
    /// together), used by the reports from now on until replaced.
    void set_messages_out(std::map<std::pair<std::string, int32_t>, double> messages_out_per_s) {
        _messages_out = std::move(messages_out_per_s);
    }

    /// PartitionMetrics and BrokerMetrics for the brokers sampled since the
    /// last report (and at least twice), attributed by `state`: the metadata
    /// as known before the sizes since the last report were asked for (the
    /// sampler takes its snapshot first): a leader it names in the ISR was
    /// in sync before its broker's samples since were taken.
    std::vector<events::Body> report(const metadata::ClusterState& state);

private:
    using PartitionKey = std::pair<std::string, int32_t>;
    struct Replica {
        uint64_t size_bytes = 0;
        int64_t time_ms = -1;
        double growth_bytes_per_s = -1;  // -1: not known yet
        int64_t growth_since_ms = -1;    // the start of the interval it was measured over
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
        bool fresh = false;  // measured since the last report
    };
    /// What the reports so far said of a partition, to judge the next one.
    struct Trail {
        int32_t leader = -1;  // led it from the ISR at the last report; -1: none did
        // A growth of the leader's replica is the producers' if measured from
        // this time on: its broker's first sample after the report that saw
        // `leader` lead in sync, as far as the reports since tell.
        int64_t steady_since_ms = 0;
        double bytes_per_message = -1;       // -1: never learned
        double trusted_bytes_in_per_s = -1;  // the last trusted growth; -1: none yet
    };

    const Replica* replica(int32_t broker_id, const PartitionKey& key) const;

    std::map<int32_t, Broker> _brokers;
    std::map<PartitionKey, Offsets> _offsets;
    std::map<PartitionKey, Trail> _trails;
    std::map<PartitionKey, double> _messages_out;
};

}  // namespace ballast::kafka
