#include "adapters/kafka/metadata/metadata_poller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "adapters/kafka/metadata/cluster_queries.h"
#include "adapters/kafka/wire/response_errors.h"
#include "adapters/kafka/retry_backoff.h"

namespace ballast::kafka::metadata {

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

namespace {

size_t partitions_of(const ClusterState& state) {
    size_t partitions = 0;
    for (const auto& [name, topic] : state.topics) partitions += topic.partitions.size();
    return partitions;
}

/// The most sweep pages one poll asks for, whatever its share: a bound on a
/// poll's work (2M partitions at Kafka's 2,000 a page) and on a broker whose
/// cursor would not move. The sweep goes on at the next poll.
constexpr int sweep_pages_per_poll_max = 1000;

}  // namespace

events::Status MetadataPoller::poll_once() {
    if (_options.sweep_ms == 0 || !_incremental || _polls_done.load() == 0) return poll_full();
    return poll_incremental();
}

bool MetadataPoller::describe_brokers(Observation& observation) {
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
    if (!cluster || !wire::response_errors(*cluster).ok()) {
        spdlog::debug("DescribeCluster: {}", cluster ? wire::response_errors(*cluster).error().message
                                                     : cluster.error().message);
        return false;
    }
    if (_describe_fenced) {
        observation.registered = cluster->brokers;
    } else {
        // Without fenced brokers the answer only adds racks; metadata
        // alone decides who is alive.
        for (const wire::messages::DescribeClusterBroker& d : cluster->brokers) {
            if (d.rack) _racks[d.broker_id] = *d.rack;
        }
    }
    return true;
}

void MetadataPoller::list_reassignments(Observation& observation) {
    events::Result<wire::messages::ListPartitionReassignmentsResponse> moving =
        _admin->list_partition_reassignments({}, _options.call_timeout_ms);
    if (moving && moving->error.ok()) {
        observation.reassignments = std::move(*moving);
    } else {
        spdlog::debug("ListPartitionReassignments: {}",
                      moving ? moving->error.to_string() : moving.error().message);
    }
}

void MetadataPoller::remember_moving(const Observation& observation) {
    if (!observation.reassignments) return;  // unknown: read the last ones again
    _moving_topics.clear();
    for (const wire::messages::OngoingTopicReassignment& t : observation.reassignments->topics) {
        _moving_topics.insert(t.name);
    }
}

void MetadataPoller::feed(const std::vector<events::Body>& changes) {
    if (changes.empty()) return;
    const int64_t now_ms = _clock();
    std::vector<events::Event> batch;
    batch.reserve(changes.size());
    for (const events::Body& body : changes) {
        batch.push_back(events::Event{0, now_ms, events::Source::kafka_metadata, body});
    }
    _sink(std::move(batch));
}

events::Status MetadataPoller::poll_full() {
    assert(_admin);
    Observation observation;
    events::Result<Metadata> metadata = cluster_metadata(*_admin, _options.call_timeout_ms);
    if (!metadata) return metadata.error();
    observation.metadata = std::move(*metadata);
    describe_brokers(observation);
    list_reassignments(observation);

    ClusterState next = build_state(observation, _reported);
    if (!_describe_fenced) {
        for (auto& [id, broker] : next.brokers) {
            if (auto it = _racks.find(id); it != _racks.end()) broker.rack = it->second;
        }
    }
    const std::vector<events::Body> changes = diff(_reported, next);
    _reported_partitions = partitions_of(next);
    if (_polls_done.load() == 0) {
        spdlog::info("first metadata report: {} brokers, {} topics, {} partitions", next.brokers.size(),
                     next.topics.size(), _reported_partitions);
    }
    feed(changes);
    remember_moving(observation);
    _sweep.read_everything_elsewhere();
    _reported = next;
    // After feeding: whoever reads the view and feeds later comes after.
    _view->publish(std::move(next));
    _polls_done.fetch_add(1);
    _full_polls_done.fetch_add(1);
    return {};
}

events::Status MetadataPoller::sweep_slice(TopicsRead& read) {
    // This poll's share, so that a pass takes about sweep_ms.
    const int64_t share = static_cast<int64_t>(_reported_partitions) * _options.poll_interval_ms / _options.sweep_ms + 1;
    int64_t left = share;
    for (int page = 0; page < sweep_pages_per_poll_max && left > 0; page++) {
        const int32_t limit = static_cast<int32_t>(std::min<int64_t>(left, _options.sweep_page_partitions_max));
        events::Result<wire::messages::DescribeTopicPartitionsResponse> answer =
            _admin->describe_topic_partitions(_sweep.next_request(limit), _options.call_timeout_ms);
        if (!answer) return answer.error();
        for (const wire::messages::DescribeTopicPartitionsTopic& t : answer->topics) {
            if (t.error_code != 0 && t.error_code != wire::error_codes::unknown_topic_or_partition) {
                spdlog::debug("DescribeTopicPartitions: topic {}: {}", t.name.value_or("?"),
                              wire::KafkaError{t.error_code, {}}.to_string());
            }
        }
        const size_t partitions = _sweep.take(*answer, _reported.topics, read);
        left -= static_cast<int64_t>(std::max<size_t>(partitions, 1));
        // A pass ends on its last page; the next starts at the next poll.
        if (_sweep.at_start()) break;
    }
    return {};
}

events::Status MetadataPoller::poll_incremental() {
    assert(_admin);
    Observation observation;
    if (!describe_brokers(observation)) {
        return make_error(ErrorCode::io_error, "DescribeCluster: no answer from the cluster");
    }
    // A cluster that cannot name its fenced brokers (DescribeCluster before
    // v2) leaves liveness to metadata, which only a full poll reads.
    if (!observation.registered) return poll_full();
    // Alive: registered and not fenced, as metadata would list them.
    for (const wire::messages::DescribeClusterBroker& b : *observation.registered) {
        if (!b.is_fenced) observation.metadata.brokers.push_back({b.broker_id, b.host, b.port});
    }
    ClusterState next = build_state(observation, _reported);
    if (next.brokers != _reported.brokers) {
        // A broker came, left, or was fenced or unfenced: its partitions'
        // leaders and ISRs change with it, so read everything now.
        return poll_full();
    }
    list_reassignments(observation);

    TopicsRead read;
    if (events::Status swept = sweep_slice(read); !swept) {
        const wire::ApiKey key = wire::ApiKey::describe_topic_partitions;
        events::Result<wire::BrokerConnection*> connection = _admin->any_broker(_options.call_timeout_ms);
        if (connection && !(*connection)->version_for(key)) {
            spdlog::warn("the cluster does not speak {}: every metadata poll reads the whole cluster",
                         wire::api_name(key));
            _incremental = false;
            return poll_full();
        }
        spdlog::debug("metadata sweep: {}", swept.error().message);
    }
    // Read every poll: what moves, what just stopped moving, what is watched.
    std::set<std::string> every_poll = _view->watched();
    every_poll.insert(_moving_topics.begin(), _moving_topics.end());
    if (observation.reassignments) {
        for (const wire::messages::OngoingTopicReassignment& t : observation.reassignments->topics) {
            every_poll.insert(t.name);
        }
    }
    if (!every_poll.empty()) {
        events::Result<Metadata> scoped = topics_metadata(*_admin, every_poll, _options.call_timeout_ms);
        if (!scoped) return scoped.error();
        // Read after the sweep's pages: newer, so it goes last and wins.
        for (MetadataTopic& t : scoped->topics) {
            if (t.error_code == 0) _sweep.read_elsewhere(t.name);
            read.topics.push_back(std::move(t));
        }
    }

    // The topics read, the last reading of each winning.
    std::set<std::string> scope;
    std::map<std::string, size_t> last_read;
    for (size_t i = 0; i < read.topics.size(); i++) last_read[read.topics[i].name] = i;
    for (auto& [name, index] : last_read) {
        observation.metadata.topics.push_back(std::move(read.topics[index]));
        scope.insert(name);
    }
    for (const std::string& name : read.deleted) {
        if (!last_read.count(name)) scope.insert(name);
    }
    ClusterState partial = build_state(observation, _reported);
    const std::vector<events::Body> changes = diff_topics(_reported, partial, scope);
    bool changed = false;
    for (const std::string& name : scope) {
        auto now = partial.topics.find(name);
        auto was = _reported.topics.find(name);
        if (was != _reported.topics.end()) _reported_partitions -= was->second.partitions.size();
        if (now == partial.topics.end()) {
            if (was != _reported.topics.end()) {
                _reported.topics.erase(was);
                changed = true;
            }
            continue;
        }
        _reported_partitions += now->second.partitions.size();
        if (was == _reported.topics.end()) {
            _reported.topics.emplace(name, std::move(now->second));
            changed = true;
        } else if (!(was->second == now->second)) {
            was->second = std::move(now->second);
            changed = true;
        }
    }
    feed(changes);
    remember_moving(observation);
    // Copied to the view only when it changed: at rest a poll costs what it read.
    if (changed) _view->publish(_reported);
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

}  // namespace ballast::kafka::metadata
