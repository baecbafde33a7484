#include "adapters/kafka/metrics_sampler.h"

#include "adapters/kafka/cluster_queries.h"
#include "adapters/kafka/wire/response_errors.h"

namespace ballast::kafka {

MetricsSampler::MetricsSampler(MetricsSamplerOptions options, EventClock clock, const ClusterView* view)
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
    const ClusterView::Snapshot state = _view->snapshot();
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
    events::Result<std::vector<PartitionOffset>> offsets = end_offsets(*_admin, led, _options.call_timeout_ms);
    if (offsets) {
        _book.add_end_offsets(_clock(), *offsets);
    } else {
        spdlog::debug("sampler: {}", offsets.error().message);
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
