#pragma once

/// Metrics source `automq`: the records AutoMQ's metrics reporter writes to
/// `__auto_balancer_metrics` (its MetricSerde format), decoded, and a
/// round's worth of them turned into the engine's metric events.
///
/// The format, all integers big-endian (Java's ByteBuffer):
///
///   int8    type        0 = topic-partition metric, 1 = broker metric
///   int8    version     0 (the only one; a higher one is refused)
///   int64   time        epoch ms on the broker
///   int32   broker id
///   int32   rack length, then that many bytes of UTF-8 (0: no rack)
///   -- topic-partition metrics only:
///   int32   topic length, then that many bytes of UTF-8
///   int32   partition
///   --
///   int32   count, then count x { int8 metric id, float64 value }
///
/// Metric ids (RawMetricTypes): 0 partition bytes in/s, 1 partition bytes
/// out/s, 2 partition size in bytes, 3 broker append latency avg ms,
/// 4 broker max pending append latency ms, 5 broker max pending fetch
/// latency ms, 6 broker metric version. Unknown ids are carried and ignored.
/// A record of an unknown type is skipped without error, as AutoMQ's own
/// reader does (a newer reporter may add types); anything else that does not
/// parse is an error naming the field and its offset, and the record is
/// skipped.
///
/// AutoMQ keeps one replica per partition on shared storage, so the
/// reporting broker is the partition's only broker: each broker's partition
/// records become its PartitionMetrics, and their sums its BrokerMetrics
/// (AutoMQ's broker record carries latencies, not traffic: a broker heard
/// only through one is reported alive, with no totals rather than zeros).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "events/event.h"
#include "events/result.h"

namespace ballast::kafka {

namespace automq_ids {
inline constexpr uint8_t partition_bytes_in = 0;
inline constexpr uint8_t partition_bytes_out = 1;
inline constexpr uint8_t partition_size = 2;
inline constexpr uint8_t broker_append_latency_avg_ms = 3;
inline constexpr uint8_t broker_max_pending_append_latency_ms = 4;
inline constexpr uint8_t broker_max_pending_fetch_latency_ms = 5;
inline constexpr uint8_t broker_metric_version = 6;
}  // namespace automq_ids

struct AutomqMetric {
    enum class Type : uint8_t { partition = 0, broker = 1 };
    Type type = Type::partition;
    int64_t time_ms = 0;
    int32_t broker_id = -1;
    std::string rack;
    std::string topic;       // partition metrics only
    int32_t partition = -1;  // partition metrics only
    std::vector<std::pair<uint8_t, double>> values;  // in record order

    /// The value of `id` (the last if repeated), if present.
    std::optional<double> value(uint8_t id) const;
};

/// Decodes one record value. nullopt: a type this decoder does not know
/// (skip it quietly). `what` names the record in errors ("__auto_balancer_metrics-0@42").
events::Result<std::optional<AutomqMetric>> decode_automq_metric(std::span<const uint8_t> bytes,
                                                                  const std::string& what);

/// The newest record of each broker and partition since the last report.
class AutomqAggregator {
public:
    void add(const AutomqMetric& metric);
    /// PartitionMetrics and BrokerMetrics per broker heard from since the
    /// last report, stamped `now_ms` (the engine's clock, not the brokers').
    /// A value that is negative or not finite, or a size past
    /// `metric_size_bytes_max`, is dropped with a warning.
    std::vector<events::Body> report(int64_t now_ms);

    /// Brokers whose reporter names a rack other than the one `state`
    /// registers, one line each the first time (and again if either
    /// changes): Ballast places by the registered rack.
    std::vector<std::string> rack_disagreements(const metadata::ClusterState& state);

private:
    struct PartitionValues {
        double bytes_in_per_s = 0;
        double bytes_out_per_s = 0;
        double size_bytes = 0;
    };
    std::map<int32_t, std::map<std::pair<std::string, int32_t>, PartitionValues>> _partitions;
    std::set<int32_t> _heard;  // brokers with a record since the last report
    std::map<int32_t, std::string> _reporter_racks;  // the newest non-empty rack each reporter named
    std::map<int32_t, std::pair<std::string, std::string>> _rack_told;  // reporter's, cluster's: said once
};

}  // namespace ballast::kafka
