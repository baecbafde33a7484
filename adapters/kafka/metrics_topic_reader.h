#pragma once

/// Metrics sources `automq` and `cruise-control`: a librdkafka consumer of
/// the reporter's topic (no consumer group, nothing committed: it is
/// assigned every partition of the topic, from the end, so only new reports
/// count) that decodes each record (automq_metrics.h,
/// cruise_control_metrics.h) and every `interval_ms` feeds what the round
/// brought as PartitionMetrics and BrokerMetrics, source `kafka_metrics`,
/// stamped with the event clock when fed.
///
/// A record that does not decode is skipped and logged (first of a run of
/// them, then at most once a minute, with the count); it never stops the
/// reader. A topic that does not exist yet is looked for again every
/// interval: the reporters create it on their first report.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/admin_port.h"
#include "adapters/kafka/automq_metrics.h"
#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/cruise_control_metrics.h"
#include "adapters/kafka/event_clock.h"
#include "adapters/kafka/rdkafka_client.h"

namespace ballast::kafka {

enum class MetricsFormat : uint8_t { automq, cruise_control };

struct MetricsTopicReaderOptions {
    std::string bootstrap_servers;
    /// librdkafka's security settings (rdkafka_security.h).
    std::vector<std::pair<std::string, std::string>> rdkafka_settings;
    MetricsFormat format = MetricsFormat::automq;
    std::string topic;
    int64_t interval_ms = 10'000;
    int64_t call_timeout_ms = 10'000;
    /// The most records one round decodes (a bound on memory and time).
    size_t records_per_round_max = 1'000'000;
};

class MetricsTopicReader {
public:
    MetricsTopicReader(MetricsTopicReaderOptions options, EventClock clock, const metadata::ClusterView* view);
    ~MetricsTopicReader();
    MetricsTopicReader(const MetricsTopicReader&) = delete;
    MetricsTopicReader& operator=(const MetricsTopicReader&) = delete;

    events::Status start(actors::EventSink sink);
    void stop();

    uint64_t records_decoded() const { return _decoded; }
    uint64_t records_skipped() const { return _skipped; }

private:
    void run();
    /// Assigns the topic's partitions once it exists; true when assigned.
    bool assign();
    void decode(const ConsumedRecord& record);
    void report();

    MetricsTopicReaderOptions _options;
    EventClock _clock;
    const metadata::ClusterView* _view;
    actors::EventSink _sink;
    std::unique_ptr<RdKafkaClient> _consumer;
    bool _assigned = false;
    AutomqAggregator _automq;
    CruiseControlAggregator _cruise_control;
    uint64_t _decoded = 0;
    uint64_t _skipped = 0;
    uint64_t _skipped_unlogged = 0;
    std::chrono::steady_clock::time_point _last_skip_log{};

    std::thread _thread;
    std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
};

}  // namespace ballast::kafka
