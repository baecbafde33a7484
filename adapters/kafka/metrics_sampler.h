#pragma once

/// Metrics source `sampler`, agentless: every `interval_ms` it asks each
/// alive broker for its log directories (DescribeLogDirs) and the leaders for
/// the partitions' end offsets (ListOffsets), both with the wire client, stamps each
/// answer with the event clock when it arrives, and feeds what SamplerBook
/// makes of them: PartitionMetrics per leader broker and BrokerMetrics,
/// source `kafka_metrics`. Which brokers are alive and who leads what comes
/// from the metadata poller's ClusterView.
///
/// Consumer traffic (consumer_traffic.h), every `consumer_interval_ms` (0:
/// every round): ListGroups on each alive broker, FindCoordinator for the
/// groups asked, one OffsetFetch per coordinator for all its groups (every
/// partition they committed). At most `consumer_groups_max` groups are asked
/// a round, taken in name order from where the last round stopped, so every
/// group is read again within ceil(groups / max) rounds; a group's rate is
/// over its own two readings, so a group read less often still counts right.
///
/// A broker that does not answer is skipped for this round (and logged with
/// a backoff); the others are still reported. Sketch: one DescribeLogDirs
/// per broker (~22 bytes a replica) and one ListOffsets per leader per
/// interval; at 100k partitions that is a few MB every 10 s.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/admin_port.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/consumer_traffic.h"
#include "adapters/kafka/event_clock.h"
#include "adapters/kafka/retry_backoff.h"
#include "adapters/kafka/sampler_book.h"

namespace ballast::kafka {

struct MetricsSamplerOptions {
    std::string bootstrap_servers;
    wire::ClientOptions client;
    int64_t interval_ms = 10'000;
    int64_t call_timeout_ms = 10'000;
    int64_t consumer_interval_ms = 0;  // ballast.metrics.consumer.interval.ms; 0: every round
    size_t consumer_groups_max = 1'000;
};

class MetricsSampler {
public:
    MetricsSampler(MetricsSamplerOptions options, EventClock clock, const metadata::ClusterView* view);
    ~MetricsSampler();
    MetricsSampler(const MetricsSampler&) = delete;
    MetricsSampler& operator=(const MetricsSampler&) = delete;

    events::Status start(actors::EventSink sink);
    void stop();

    /// One round in the caller's thread (tests). Precondition: attach().
    events::Status sample_once();
    events::Status attach(actors::EventSink sink);

private:
    void run();
    /// One consumer round: groups listed, their committed offsets read.
    void sample_consumers(const metadata::ClusterState& state);

    MetricsSamplerOptions _options;
    EventClock _clock;
    const metadata::ClusterView* _view;
    actors::EventSink _sink;
    std::unique_ptr<wire::AdminClient> _admin;
    SamplerBook _book;
    ConsumerTrafficBook _consumers;
    std::string _consumer_cursor;  // the last group asked; the next round starts after it
    std::chrono::steady_clock::time_point _consumers_next{};
    std::unique_ptr<RetryBackoff> _consumer_failures;
    std::map<int32_t, std::unique_ptr<RetryBackoff>> _broker_failures;

    std::thread _thread;
    std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
};

}  // namespace ballast::kafka
