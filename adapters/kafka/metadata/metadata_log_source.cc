#include "adapters/kafka/metadata/metadata_log_source.h"

#include <cassert>
#include <chrono>

#include <spdlog/spdlog.h>

#include "adapters/kafka/retry_backoff.h"

namespace ballast::kafka::metadata {

MetadataLogSource::MetadataLogSource(MetadataLogSourceOptions options, EventClock clock, ClusterView* view,
                                     LogTranslator translator)
    : _options(std::move(options)), _clock(std::move(clock)), _view(view), _translator(std::move(translator)) {
    assert(_view != nullptr);
}

MetadataLogSource::~MetadataLogSource() { stop(); }

events::Status MetadataLogSource::start(actors::EventSink sink) {
    _sink = std::move(sink);
    _observer = std::make_unique<metadata_log::MetadataLogObserver>(_options.observer, _translator.fetch_from(),
                                                                    _translator.fetch_epoch());
    if (_translator.fetch_from() > 0) {
        spdlog::info("metadata from KRaft's log at {}: resuming at offset {} (epoch {}), after the last record "
                     "journaled",
                     _options.bootstrap_controllers, _translator.fetch_from(), _translator.fetch_epoch());
    } else if (_translator.picture().next_offset > 0) {
        spdlog::info("metadata from KRaft's log at {}: the journal no longer holds every event the reader needs "
                     "(retention, or a start from a leader's snapshot): reading the log from its start, records "
                     "before offset {} only to rebuild the picture",
                     _options.bootstrap_controllers, _translator.picture().next_offset);
    } else {
        spdlog::info("metadata from KRaft's log at {}: nothing journaled from it yet, reading it from its start "
                     "as one picture of the cluster",
                     _options.bootstrap_controllers);
    }
    if (events::Status first = poll_once(); !first) {
        _observer.reset();
        return first;
    }
    _thread = std::thread([this] { run(); });
    return {};
}

void MetadataLogSource::stop() {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _stopping = true;
    }
    _wake.notify_all();
    if (_thread.joinable()) _thread.join();
}

std::string MetadataLogSource::problem() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _problem;
}

events::Status MetadataLogSource::poll_once() {
    assert(_observer);
    events::Result<metadata_log::PollResult> polled = _observer->poll();
    for (const std::string& warning : _observer->take_warnings()) spdlog::warn("metadata log: {}", warning);
    if (!polled) {
        std::lock_guard<std::mutex> lock(_mutex);
        _problem = polled.error().message;
        return polled.error();
    }
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _problem.clear();
    }
    if (!polled->entries.empty() && _first_offset.load() < 0) {
        _first_offset.store(polled->entries.front().offset);
        spdlog::info("metadata log: first record fetched at offset {}", polled->entries.front().offset);
    }
    const bool was_catching_up = _translator.catching_up();
    Translation translation = _translator.translate(*polled, _observer->committed_offset(), _clock());
    for (const std::string& warning : translation.warnings) spdlog::warn("metadata log: {}", warning);
    for (const std::string& note : translation.notes) spdlog::info("metadata log: {}", note);
    if (was_catching_up && !_translator.catching_up()) {
        const LogPicture& p = _translator.picture();
        size_t partitions = 0;
        for (const auto& [key, topic] : p.topics) partitions += topic.partitions.size();
        spdlog::info("metadata log read up to offset {}: {} brokers, {} topics, {} partitions",
                     _observer->committed_offset(), p.brokers.size(), p.topics.size(), partitions);
    }
    if (!translation.events.empty()) _sink(std::move(translation.events));
    // After feeding (the view's readers feed after what it shows); not
    // while the log's start is still being read: the picture is not whole.
    if (!_translator.catching_up() && (!_published || !translation.events.empty())) {
        _view->publish(cluster_state(_translator.picture()));
        _published = true;
    }
    return {};
}

void MetadataLogSource::run() {
    RetryBackoff backoff("fetching KRaft's metadata log from the controllers at " + _options.bootstrap_controllers,
                         _options.retry_ms, _options.backoff_max_ms);
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(_mutex);
            if (_stopping) return;
        }
        // A fetch waits up to the observer's max_wait_ms for new records:
        // the loop's cadence is the controller's answer.
        events::Status polled = poll_once();
        if (polled) {
            backoff.succeeded();
            continue;
        }
        const int64_t wait_ms = backoff.failed(polled.error().message);
        std::unique_lock<std::mutex> lock(_mutex);
        if (_wake.wait_for(lock, std::chrono::milliseconds(wait_ms), [this] { return _stopping; })) return;
    }
}

}  // namespace ballast::kafka::metadata
