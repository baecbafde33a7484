#pragma once

/// The metadata poller: every `poll_interval_ms` it reports what changed in
/// the cluster as events (source `kafka_metadata`, see cluster_state.h),
/// feeds them, then publishes the report to the ClusterView.
///
/// Two ways to poll, the same events for the same changes:
/// - full (`sweep_ms` 0; and the first poll, and any poll in which a broker
///   registered, left, was fenced or unfenced): Metadata of every topic,
///   DescribeCluster v2 (fenced brokers included) and
///   ListPartitionReassignments, diffed against the last report.
/// - incremental (the default): each poll DescribeCluster (brokers and
///   liveness) and ListPartitionReassignments (cheap when nothing moves);
///   topic-scoped Metadata of the topics being reassigned, just reassigned,
///   or watched (the admin port's actions in flight, ClusterView::watch);
///   and a slice of a slow full sweep (metadata_sweep.h: DescribeTopicPartitions
///   pages) sized so the whole cluster is read once every `sweep_ms`. Only
///   the topics read are diffed. A change nothing of this points to (a
///   follower leaving or rejoining an ISR, an election Ballast did not ask
///   for, a topic created or deleted) is reported within one sweep period
///   plus a poll.
///
/// An unreachable cluster feeds nothing: the poller logs the failure naming
/// the servers once (and again when it changes or every minute), waits with
/// a capped exponential backoff (poll interval doubling up to backoff_max_ms)
/// and says when the cluster answers again. The engine keeps the last report.
///
/// Sketch, P partitions, ~100 bytes each in Metadata: a full poll moves and
/// diffs all P (100 MB at a million). An incremental poll at rest moves two
/// small answers plus P x poll_interval_ms / sweep_ms partitions of sweep
/// (1/60 of them for a 1 s poll and a 60 s sweep) and diffs only those; the
/// report is copied to the view only when something changed. Events are only
/// the changes: a quiet cluster feeds nothing.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "actors/admin_port.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/event_clock.h"
#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/metadata/metadata_sweep.h"

namespace ballast::kafka::metadata {

struct MetadataPollerOptions {
    /// As the user gave them ("host:port,..."), for messages.
    std::string bootstrap_servers;
    /// The wire client's (Metadata, DescribeCluster, ListPartitionReassignments).
    wire::ClientOptions client;
    int64_t poll_interval_ms = 1000;
    /// Every partition is read again at least once in this period
    /// (incremental polls); 0: every poll reads the whole cluster.
    int64_t sweep_ms = 60'000;
    /// The most partitions one sweep page asks for (Kafka caps a page at
    /// its max.request.partition.size.limit, 2000 by default).
    int32_t sweep_page_partitions_max = 2000;
    /// Each request of a poll.
    int64_t call_timeout_ms = 10'000;
    /// The longest wait between polls of an unreachable cluster.
    int64_t backoff_max_ms = 30'000;
};

class MetadataPoller {
public:
    MetadataPoller(MetadataPollerOptions options, EventClock clock, ClusterView* view);
    ~MetadataPoller();
    MetadataPoller(const MetadataPoller&) = delete;
    MetadataPoller& operator=(const MetadataPoller&) = delete;

    /// Polls in a thread of its own until stop(). An unreachable cluster is
    /// retried.
    events::Status start(actors::EventSink sink);
    void stop();

    /// One poll in the caller's thread: feed what changed, publish. Not
    /// while the thread runs. Precondition: start() or attach().
    events::Status poll_once();
    /// Sets the sink and creates the clients without starting the thread
    /// (tests drive poll_once themselves).
    events::Status attach(actors::EventSink sink);

    uint64_t polls_done() const { return _polls_done.load(); }
    /// Polls that read the whole cluster (the first, and those a broker's
    /// change set off, or every poll with sweep_ms 0).
    uint64_t full_polls_done() const { return _full_polls_done.load(); }
    /// Full sweeps of the incremental path finished.
    uint64_t sweeps_done() const { return _sweep.passes_done(); }

private:
    void run();
    events::Status poll_full();
    events::Status poll_incremental();
    /// DescribeCluster into `observation.registered` (v2 with fenced
    /// brokers; racks alone from older versions). False when it failed.
    bool describe_brokers(Observation& observation);
    void list_reassignments(Observation& observation);
    /// Sweep pages for this poll's share of the partitions.
    events::Status sweep_slice(TopicsRead& read);
    /// Feeds the events, stamped now.
    void feed(const std::vector<events::Body>& changes);
    void remember_moving(const Observation& observation);

    MetadataPollerOptions _options;
    EventClock _clock;
    ClusterView* _view;
    actors::EventSink _sink;
    std::unique_ptr<wire::AdminClient> _admin;
    ClusterState _reported;
    /// DescribeCluster v2 lists fenced brokers; false once a broker said it
    /// speaks less (then metadata alone decides).
    bool _describe_fenced = true;
    /// Racks by broker, when DescribeCluster cannot list the fenced brokers.
    std::map<int32_t, std::string> _racks;
    /// Partitions in the report, kept as topics come and go.
    size_t _reported_partitions = 0;
    /// Topics ListPartitionReassignments listed at the last poll: read again
    /// at the next, which shows the ones that finished.
    std::set<std::string> _moving_topics;
    MetadataSweep _sweep;
    /// False once the cluster did not speak DescribeTopicPartitions: every
    /// poll is then full.
    bool _incremental = true;

    std::thread _thread;
    std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
    std::atomic<uint64_t> _polls_done{0};
    std::atomic<uint64_t> _full_polls_done{0};
};

}  // namespace ballast::kafka::metadata
