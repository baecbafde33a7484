#pragma once

/// The metadata poller: every `poll_interval_ms` it reads the cluster's
/// metadata (Metadata), the registered brokers with their racks
/// (DescribeCluster v2, fenced ones included) and the reassignments in
/// progress (ListPartitionReassignments), turns what changed since the last
/// report into events (source `kafka_metadata`, see cluster_state.h), feeds
/// them, then publishes the report to the ClusterView.
///
/// An unreachable cluster feeds nothing: the poller logs the failure naming
/// the servers once (and again when it changes or every minute), waits with
/// a capped exponential backoff (poll interval doubling up to backoff_max_ms)
/// and says when the cluster answers again. The engine keeps the last report.
///
/// Sketch: one poll is three small requests; metadata of 100k partitions is
/// a few MB and the diff one pass over it, so a 1 s poll stays well under a
/// core even at that size. Events are only the changes: a quiet cluster
/// feeds nothing.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/admin_port.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/cluster_view.h"
#include "adapters/kafka/event_clock.h"
#include "adapters/kafka/cluster_state.h"

namespace ballast::kafka {

struct MetadataPollerOptions {
    /// As the user gave them ("host:port,..."), for messages.
    std::string bootstrap_servers;
    /// The wire client's (Metadata, DescribeCluster, ListPartitionReassignments).
    wire::ClientOptions client;
    int64_t poll_interval_ms = 1000;
    /// Each of the three requests of a poll.
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

private:
    void run();

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

    std::thread _thread;
    std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
    std::atomic<uint64_t> _polls_done{0};
};

}  // namespace ballast::kafka
