#include "adapters/kafka/metadata_poller.h"

#include <spdlog/spdlog.h>

#include "adapters/kafka/cluster_queries.h"
#include "adapters/kafka/wire/response_errors.h"
#include "adapters/kafka/retry_backoff.h"

namespace ballast::kafka {

using events::ErrorCode;
using events::make_error;

MetadataPoller::MetadataPoller(MetadataPollerOptions options, EventClock clock, ClusterView* view)
    : _options(std::move(options)), _clock(std::move(clock)), _view(view) {
    assert(_view != nullptr);
    assert(_options.poll_interval_ms > 0);
}

MetadataPoller::~MetadataPoller() { stop(); }

events::Status MetadataPoller::attach(actors::EventSink sink) {
    _sink = std::move(sink);
    _admin = std::make_unique<wire::AdminClient>(_options.client);
    return {};
}

events::Status MetadataPoller::start(actors::EventSink sink) {
    if (events::Status attached = attach(std::move(sink)); !attached) return attached;
    _thread = std::thread([this] { run(); });
    return {};
}

void MetadataPoller::stop() {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _stopping = true;
    }
    _wake.notify_all();
    if (_thread.joinable()) _thread.join();
}

events::Status MetadataPoller::poll_once() {
    assert(_admin);
    Observation observation;
    events::Result<Metadata> metadata = cluster_metadata(*_admin, _options.call_timeout_ms);
    if (!metadata) return metadata.error();
    observation.metadata = std::move(*metadata);

    // Registered brokers with racks; v2 lists the fenced ones too.
    wire::messages::DescribeClusterRequest describe;
    describe.include_fenced_brokers = _describe_fenced;
    if (_describe_fenced) {
        events::Result<wire::BrokerConnection*> connection = _admin->any_broker(_options.call_timeout_ms);
        if (connection) {
            events::Result<int16_t> version = (*connection)->version_for(wire::ApiKey::describe_cluster);
            if (version && *version < 2) {
                spdlog::info("the cluster speaks DescribeCluster up to v{}: fenced brokers are "
                             "known only from metadata",
                             *version);
                _describe_fenced = false;
                describe.include_fenced_brokers = false;
            }
        }
    }
    events::Result<wire::messages::DescribeClusterResponse> cluster = _admin->describe_cluster(describe, _options.call_timeout_ms);
    if (cluster && wire::response_errors(*cluster).ok()) {
        if (_describe_fenced) {
            observation.registered = cluster->brokers;
        } else {
            // Without fenced brokers the answer only adds racks; metadata
            // alone decides who is alive.
            for (const wire::messages::DescribeClusterBroker& d : cluster->brokers) {
                if (d.rack) _racks[d.broker_id] = *d.rack;
            }
        }
    } else {
        spdlog::debug("DescribeCluster: {}", cluster ? wire::response_errors(*cluster).error().message
                                                     : cluster.error().message);
    }

    events::Result<wire::messages::ListPartitionReassignmentsResponse> moving =
        _admin->list_partition_reassignments({}, _options.call_timeout_ms);
    if (moving && moving->error.ok()) {
        observation.reassignments = std::move(*moving);
    } else {
        spdlog::debug("ListPartitionReassignments: {}",
                      moving ? moving->error.to_string() : moving.error().message);
    }

    ClusterState next = build_state(observation, _reported);
    if (!_describe_fenced) {
        for (auto& [id, broker] : next.brokers) {
            if (auto it = _racks.find(id); it != _racks.end()) broker.rack = it->second;
        }
    }
    const std::vector<events::Body> changes = diff(_reported, next);
    if (_polls_done.load() == 0) {
        size_t partitions = 0;
        for (const auto& [name, topic] : next.topics) partitions += topic.partitions.size();
        spdlog::info("first metadata report: {} brokers, {} topics, {} partitions", next.brokers.size(),
                     next.topics.size(), partitions);
    }
    if (!changes.empty()) {
        const int64_t now_ms = _clock();
        std::vector<events::Event> batch;
        batch.reserve(changes.size());
        for (const events::Body& body : changes) {
            batch.push_back(events::Event{0, now_ms, events::Source::kafka_metadata, body});
        }
        _sink(std::move(batch));
    }
    _reported = next;
    // After feeding: whoever reads the view and feeds later comes after.
    _view->publish(std::move(next));
    _polls_done.fetch_add(1);
    return {};
}

void MetadataPoller::run() {
    RetryBackoff backoff("metadata poll of the cluster at " + _options.bootstrap_servers,
                         _options.poll_interval_ms, _options.backoff_max_ms);
    for (;;) {
        const auto started = std::chrono::steady_clock::now();
        events::Status polled = poll_once();
        int64_t wait_ms = _options.poll_interval_ms;
        if (polled) {
            backoff.succeeded();
        } else {
            wait_ms = backoff.failed(polled.error().message);
        }
        std::unique_lock<std::mutex> lock(_mutex);
        // The cadence counts from the start of a poll, so polls stay N ms apart.
        if (_wake.wait_until(lock, started + std::chrono::milliseconds(wait_ms), [this] { return _stopping; })) {
            return;
        }
    }
}

}  // namespace ballast::kafka
