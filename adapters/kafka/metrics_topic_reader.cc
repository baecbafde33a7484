#include "adapters/kafka/metrics_topic_reader.h"

#include <spdlog/spdlog.h>

namespace ballast::kafka {

MetricsTopicReader::MetricsTopicReader(MetricsTopicReaderOptions options, EventClock clock, const metadata::ClusterView* view)
    : _options(std::move(options)), _clock(std::move(clock)), _view(view) {
    assert(_view != nullptr);
    assert(_options.interval_ms > 0);
}

MetricsTopicReader::~MetricsTopicReader() { stop(); }

events::Status MetricsTopicReader::start(actors::EventSink sink) {
    _sink = std::move(sink);
    events::Result<std::unique_ptr<RdKafkaClient>> consumer =
        RdKafkaClient::create(RdKafkaClient::Kind::consumer, _options.bootstrap_servers, "ballast-metrics-reader",
                              _options.rdkafka_settings);
    if (!consumer) return consumer.error();
    _consumer = std::move(*consumer);
    _thread = std::thread([this] { run(); });
    return {};
}

void MetricsTopicReader::stop() {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _stopping = true;
    }
    _wake.notify_all();
    if (_thread.joinable()) _thread.join();
    _consumer.reset();
}

bool MetricsTopicReader::assign() {
    events::Result<metadata::Metadata> metadata = _consumer->metadata(_options.call_timeout_ms);
    if (!metadata) {
        spdlog::debug("metrics topic {}: {}", _options.topic, metadata.error().message);
        return false;
    }
    for (const metadata::MetadataTopic& topic : metadata->topics) {
        if (topic.name != _options.topic || topic.error_code != 0 || topic.partitions.empty()) continue;
        std::vector<int32_t> partitions;
        for (const metadata::MetadataPartition& p : topic.partitions) partitions.push_back(p.id);
        // From the end: a report older than now says nothing the journal
        // lacks, and its time would be the brokers', not the engine's.
        if (events::Status assigned = _consumer->assign_topic_from(_options.topic, partitions, -1, _options.call_timeout_ms);
            !assigned) {
            spdlog::warn("metrics topic {}: {}", _options.topic, assigned.error().message);
            return false;
        }
        spdlog::info("reading metrics from {} ({} partitions)", _options.topic, partitions.size());
        return true;
    }
    return false;
}

void MetricsTopicReader::decode(const ConsumedRecord& record) {
    const std::string where = _options.topic + "-" + std::to_string(record.partition) + "@" +
                              std::to_string(record.offset);
    std::string problem;
    if (_options.format == MetricsFormat::automq) {
        events::Result<std::optional<AutomqMetric>> metric = decode_automq_metric(record.value, where);
        if (metric && *metric) _automq.add(**metric);
        if (!metric) problem = metric.error().message;
    } else {
        events::Result<CruiseControlMetric> metric = decode_cruise_control_metric(record.value, where);
        if (metric) _cruise_control.add(*metric);
        if (!metric) problem = metric.error().message;
    }
    if (problem.empty()) {
        _decoded++;
        return;
    }
    _skipped++;
    _skipped_unlogged++;
    const auto now = std::chrono::steady_clock::now();
    if (now - _last_skip_log >= std::chrono::minutes(1)) {
        spdlog::warn("skipped {} metrics record{} that did not decode; the last: {}", _skipped_unlogged,
                     _skipped_unlogged == 1 ? "" : "s", problem);
        _skipped_unlogged = 0;
        _last_skip_log = now;
    }
}

void MetricsTopicReader::report() {
    const int64_t now_ms = _clock();
    std::vector<events::Body> bodies = _options.format == MetricsFormat::automq
                                           ? _automq.report(now_ms)
                                           : _cruise_control.report(*_view->snapshot(), now_ms);
    if (_options.format == MetricsFormat::automq) {
        for (const std::string& line : _automq.rack_disagreements(*_view->snapshot())) spdlog::warn("{}", line);
    }
    if (bodies.empty()) return;
    std::vector<events::Event> batch;
    for (events::Body& body : bodies) {
        batch.push_back(events::Event{0, now_ms, events::Source::kafka_metrics, std::move(body)});
    }
    _sink(std::move(batch));
}

void MetricsTopicReader::run() {
    auto next_report = std::chrono::steady_clock::now() + std::chrono::milliseconds(_options.interval_ms);
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(_mutex);
            if (_stopping) return;
        }
        if (!_assigned) _assigned = assign();
        if (_assigned) {
            const int64_t left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        next_report - std::chrono::steady_clock::now())
                                        .count();
            // Short polls, so that stop() is answered within ~200 ms.
            events::Result<std::vector<ConsumedRecord>> records =
                _consumer->consume(std::clamp<int64_t>(left_ms, 0, 200), _options.records_per_round_max);
            if (records) {
                for (const ConsumedRecord& record : *records) decode(record);
            } else {
                spdlog::warn("metrics topic {}: {}", _options.topic, records.error().message);
            }
        } else {
            std::unique_lock<std::mutex> lock(_mutex);
            if (_wake.wait_until(lock, next_report, [this] { return _stopping; })) return;
        }
        if (std::chrono::steady_clock::now() >= next_report) {
            report();
            next_report += std::chrono::milliseconds(_options.interval_ms);
        }
    }
}

}  // namespace ballast::kafka
