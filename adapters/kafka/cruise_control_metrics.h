#pragma once

/// Metrics source `cruise-control`: the records Cruise Control's metrics
/// reporter writes to `__CruiseControlMetrics` (its MetricSerde format),
/// decoded, and a round's worth of them turned into the engine's metric
/// events. A cluster that already runs the reporter needs no change.
///
/// The format: one value per record, all integers big-endian:
///
///   int8    class       0 = broker metric, 1 = topic metric, 2 = partition metric
///   int8    version     0 (a higher one is refused)
///   int8    raw metric type id (RawMetricType, 0-62)
///   int64   time        epoch ms on the broker
///   int32   broker id
///   -- topic and partition metrics:
///   int32   topic length, then that many bytes of UTF-8
///   -- partition metrics:
///   int32   partition
///   --
///   float64 value
///
/// Each raw type has one scope, and a record's class must match it (Cruise
/// Control refuses the rest too): topic scope 2 TOPIC_BYTES_IN, 3
/// TOPIC_BYTES_OUT, 11-12 TOPIC_REPLICATION_BYTES_IN/OUT, 13-14
/// TOPIC_PRODUCE/FETCH_REQUEST_RATE, 15 TOPIC_MESSAGES_IN_PER_SEC; partition
/// scope 4 PARTITION_SIZE; every other id up to 62 is a broker metric (0
/// ALL_TOPIC_BYTES_IN, 1 ALL_TOPIC_BYTES_OUT, 6-7 ALL_TOPIC_REPLICATION_
/// BYTES_IN/OUT, 10 ALL_TOPIC_MESSAGES_IN_PER_SEC, ...). Anything that does
/// not parse is an error naming the field and its offset; the record is
/// skipped.
///
/// Attribution, as Cruise Control's own sampler does it: the reporter gives
/// a topic's rates on a broker (over the partitions that broker leads), so
/// each partition the broker leads gets the topic's rate divided by how many
/// of that topic's partitions it leads (leaders from the metadata poller's
/// view); its size is the PARTITION_SIZE the leader reported.

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "events/event.h"
#include "events/result.h"

namespace ballast::kafka {

namespace cruise_control_ids {
inline constexpr uint8_t all_topic_bytes_in = 0;
inline constexpr uint8_t all_topic_bytes_out = 1;
inline constexpr uint8_t topic_bytes_in = 2;
inline constexpr uint8_t topic_bytes_out = 3;
inline constexpr uint8_t partition_size = 4;
inline constexpr uint8_t all_topic_replication_bytes_in = 6;
inline constexpr uint8_t all_topic_replication_bytes_out = 7;
inline constexpr uint8_t all_topic_messages_in_per_sec = 10;
inline constexpr uint8_t topic_messages_in_per_sec = 15;
inline constexpr uint8_t last = 62;  // BROKER_LOG_FLUSH_TIME_MS_999TH
}  // namespace cruise_control_ids

struct CruiseControlMetric {
    enum class Scope : uint8_t { broker = 0, topic = 1, partition = 2 };
    Scope scope = Scope::broker;
    uint8_t type = 0;  // RawMetricType id
    int64_t time_ms = 0;
    int32_t broker_id = -1;
    std::string topic;       // topic and partition metrics
    int32_t partition = -1;  // partition metrics
    double value = 0;
};

/// The scope Cruise Control gives raw metric type `id` (precondition: id <= last).
CruiseControlMetric::Scope cruise_control_scope(uint8_t id);

/// Decodes one record value; `what` names the record in errors.
events::Result<CruiseControlMetric> decode_cruise_control_metric(std::span<const uint8_t> bytes,
                                                                 const std::string& what);

/// The newest value of each metric since the last report, per broker.
class CruiseControlAggregator {
public:
    void add(const CruiseControlMetric& metric);
    /// PartitionMetrics and BrokerMetrics per alive broker heard from since
    /// the last report, stamped `now_ms` (the engine's clock). A negative or
    /// non-finite value, or a size past `metric_size_bytes_max`, is dropped
    /// (in `add`) with a warning.
    std::vector<events::Body> report(const metadata::ClusterState& state, int64_t now_ms);

private:
    struct BrokerValues {
        std::map<uint8_t, double> broker;
        std::map<std::string, std::map<uint8_t, double>> topics;
        std::map<std::pair<std::string, int32_t>, double> sizes;
    };
    std::map<int32_t, BrokerValues> _brokers;
};

}  // namespace ballast::kafka
