#include "adapters/kafka/metrics_sampler.h"

#include <set>

#include "adapters/kafka/metadata/cluster_queries.h"
#include "adapters/kafka/wire/response_errors.h"

namespace ballast::kafka {

MetricsSampler::MetricsSampler(MetricsSamplerOptions options, EventClock clock, const metadata::ClusterView* view)
    : _options(std::move(options)), _clock(std::move(clock)), _view(view) {
    assert(_view != nullptr);
    assert(_options.interval_ms > 0);
}

MetricsSampler::~MetricsSampler() { stop(); }

events::Status MetricsSampler::attach(actors::EventSink sink) {
    _sink = std::move(sink);
    _admin = std::make_unique<wire::AdminClient>(_options.client);
    return {};
}

events::Status MetricsSampler::start(actors::EventSink sink) {
    if (events::Status attached = attach(std::move(sink)); !attached) return attached;
    _thread = std::thread([this] { run(); });
    return {};
}

void MetricsSampler::stop() {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _stopping = true;
    }
    _wake.notify_all();
    if (_thread.joinable()) _thread.join();
}

events::Status MetricsSampler::sample_once() {
    assert(_admin);
    // Before the sizes: SamplerBook::report trusts a leader's growth only if
    // measured after a snapshot that showed it leading in sync.
    const metadata::ClusterView::Snapshot state = _view->snapshot();
    for (const auto& [id, broker] : state->brokers) {
        if (broker.fenced) continue;
        auto& failures = _broker_failures[id];
        if (!failures) {
            failures = std::make_unique<RetryBackoff>("DescribeLogDirs on broker " + std::to_string(id),
                                                      _options.interval_ms, _options.interval_ms);
        }
        events::Result<wire::messages::DescribeLogDirsResponse> dirs = _admin->describe_log_dirs(id, {}, _options.call_timeout_ms);
        if (dirs && dirs->error.ok()) {
            _book.add_sizes(id, _clock(), *dirs);
            failures->succeeded();
        } else {
            std::string problem = dirs ? dirs->error.to_string() : dirs.error().message;
            if (dirs) {
                const std::string acl = _admin->missing_acl(wire::ApiKey::describe_log_dirs, dirs->error.code);
                if (!acl.empty()) problem += "; " + acl;
            }
            (void)failures->failed(problem);
        }
    }
    std::vector<wire::TopicPartitions> led;
    for (const auto& [topic, t] : state->topics) {
        wire::TopicPartitions entry{topic, {}};
        for (const auto& [id, p] : t.partitions) {
            if (p.leader >= 0) entry.partitions.push_back(id);
        }
        if (!entry.partitions.empty()) led.push_back(std::move(entry));
    }
    events::Result<std::vector<metadata::PartitionOffset>> offsets = metadata::end_offsets(*_admin, led, _options.call_timeout_ms);
    if (offsets) {
        _book.add_end_offsets(_clock(), *offsets);
    } else {
        spdlog::debug("sampler: {}", offsets.error().message);
    }
    if (std::chrono::steady_clock::now() >= _consumers_next) {
        _consumers_next = std::chrono::steady_clock::now() + std::chrono::milliseconds(_options.consumer_interval_ms);
        sample_consumers(*state);
    }
    std::vector<events::Body> bodies = _book.report(*state);
    if (bodies.empty()) return {};
    const int64_t now_ms = _clock();
    std::vector<events::Event> batch;
    for (events::Body& body : bodies) {
        batch.push_back(events::Event{0, now_ms, events::Source::kafka_metrics, std::move(body)});
    }
    _sink(std::move(batch));
    return {};
}

void MetricsSampler::sample_consumers(const metadata::ClusterState& state) {
    namespace m = wire::messages;
    if (!_consumer_failures) {
        _consumer_failures = std::make_unique<RetryBackoff>("consumer groups' committed offsets",
                                                            _options.interval_ms, _options.interval_ms);
    }
    // Each broker lists the groups it coordinates; a group of a broker that
    // did not answer is kept as it was, not forgotten.
    std::set<std::string> listed;
    bool every_broker = true;
    std::string problem;
    for (const auto& [id, broker] : state.brokers) {
        if (broker.fenced) continue;
        events::Result<m::ListGroupsResponse> groups = _admin->list_groups(id, {}, _options.call_timeout_ms);
        if (!groups || !groups->error.ok()) {
            every_broker = false;
            problem = "ListGroups on broker " + std::to_string(id) + ": " +
                      (groups ? groups->error.to_string() : groups.error().message);
            continue;
        }
        for (const m::ListedGroup& group : groups->groups) listed.insert(group.group_id);
    }
    if (every_broker) _consumers.retain_groups(listed);

    // At most consumer_groups_max, in name order after the last one asked, wrapping.
    const std::string after = _consumer_cursor;
    std::vector<std::string> asked;
    for (auto it = listed.upper_bound(after); it != listed.end() && asked.size() < _options.consumer_groups_max;
         ++it) {
        asked.push_back(*it);
    }
    for (auto it = listed.begin(); it != listed.end() && asked.size() < _options.consumer_groups_max && *it <= after;
         ++it) {
        asked.push_back(*it);
    }
    _consumer_cursor = asked.empty() ? std::string() : asked.back();
    // One warning per failure spell, whatever step failed.
    auto settle = [this](const std::string& failure) {
        if (failure.empty()) {
            _consumer_failures->succeeded();
        } else {
            (void)_consumer_failures->failed(failure);
        }
    };
    if (asked.empty()) {
        settle(problem);
        return;
    }

    m::FindCoordinatorRequest find;
    find.coordinator_keys = asked;
    events::Result<m::FindCoordinatorResponse> found = _admin->find_coordinator(find, _options.call_timeout_ms);
    if (!found) {
        settle("FindCoordinator: " + found.error().message);
        return;
    }
    std::map<int32_t, m::OffsetFetchRequest> by_coordinator;
    for (const m::Coordinator& coordinator : found->coordinators) {
        if (!coordinator.error.ok()) continue;  // loading or moving: asked again next round
        by_coordinator[coordinator.node_id].groups.push_back({coordinator.key, std::nullopt, -1, std::nullopt});
    }
    for (const auto& [node_id, request] : by_coordinator) {
        events::Result<m::OffsetFetchResponse> fetched = _admin->offset_fetch(node_id, request, _options.call_timeout_ms);
        if (!fetched) {
            problem = "OffsetFetch on broker " + std::to_string(node_id) + ": " + fetched.error().message;
            continue;
        }
        const int64_t time_ms = _clock();
        for (const m::OffsetFetchGroup& group : fetched->groups) {
            if (!group.error.ok()) continue;  // e.g. the coordinator moved since: next round
            std::vector<CommittedOffset> offsets;
            for (const m::OffsetFetchTopic& topic : group.topics) {
                for (const m::OffsetFetchPartition& p : topic.partitions) {
                    if (p.error.ok()) offsets.push_back({topic.name, p.partition_index, p.committed_offset});
                }
            }
            _consumers.add_group(group.group_id, time_ms, offsets);
        }
    }
    settle(problem);
    _book.set_messages_out(_consumers.messages_out_per_s());
}

void MetricsSampler::run() {
    for (;;) {
        const auto started = std::chrono::steady_clock::now();
        (void)sample_once();
        std::unique_lock<std::mutex> lock(_mutex);
        if (_wake.wait_until(lock, started + std::chrono::milliseconds(_options.interval_ms),
                             [this] { return _stopping; })) {
            return;
        }
    }
}

}  // namespace ballast::kafka
