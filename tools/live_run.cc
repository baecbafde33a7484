#include "tools/live_run.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "actors/engine.h"
#include "adapters/kafka/kafka_admin_port.h"
#include "adapters/kafka/metadata_poller.h"
#include "adapters/kafka/metrics_sampler.h"
#include "adapters/kafka/metrics_topic_reader.h"
#include "adapters/kafka/retry_backoff.h"
#include "tools/cli_common.h"
#include "tools/run_events.h"

namespace ballast::tools {

namespace {

constexpr int64_t call_timeout_ms = 10'000;
constexpr int64_t reachable_backoff_max_ms = 30'000;

/// SIGINT and SIGTERM, blocked in every thread and taken by sigtimedwait.
class StopSignals {
public:
    StopSignals() {
        sigemptyset(&_set);
        sigaddset(&_set, SIGINT);
        sigaddset(&_set, SIGTERM);
        // Before any thread starts: they all inherit the mask.
        pthread_sigmask(SIG_BLOCK, &_set, nullptr);
    }
    /// Waits up to `timeout_ms`; the signal number, or 0.
    int wait(int64_t timeout_ms) {
        timespec timeout{static_cast<time_t>(timeout_ms / 1000), static_cast<long>(timeout_ms % 1000) * 1'000'000};
        const int signal = sigtimedwait(&_set, nullptr, &timeout);
        return signal > 0 ? signal : 0;
    }

private:
    sigset_t _set;
};

/// Feeds Tick{now} every interval until stopped.
class ClockThread {
public:
    ClockThread(kafka::EventClock clock, int64_t interval_ms, EngineFeed* feed)
        : _clock(std::move(clock)), _interval_ms(interval_ms), _feed(feed) {
        _thread = std::thread([this] { run(); });
    }
    ~ClockThread() { stop(); }
    void stop() {
        {
            std::lock_guard<std::mutex> lock(_mutex);
            _stopping = true;
        }
        _wake.notify_all();
        if (_thread.joinable()) _thread.join();
    }

private:
    void run() {
        auto next = std::chrono::steady_clock::now();
        for (;;) {
            const int64_t now_ms = _clock();
            std::vector<events::Event> tick;
            tick.push_back(events::Event{0, now_ms, events::Source::clock, events::Tick{now_ms}});
            _feed->feed(std::move(tick));
            next += std::chrono::milliseconds(_interval_ms);
            std::unique_lock<std::mutex> lock(_mutex);
            if (_wake.wait_until(lock, next, [this] { return _stopping; })) return;
        }
    }
    kafka::EventClock _clock;
    int64_t _interval_ms;
    EngineFeed* _feed;
    std::thread _thread;
    std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
};

/// Waits until some broker answers DescribeCluster; false if a signal came first.
bool wait_for_cluster(const LiveRunOptions& options, const kafka::wire::ClientOptions& client, StopSignals& signals) {
    kafka::wire::AdminClient admin(client);
    kafka::RetryBackoff backoff("connecting to the Kafka cluster at " + options.bootstrap_servers, 1000,
                                reachable_backoff_max_ms);
    for (;;) {
        events::Result<kafka::wire::DescribeClusterResponse> cluster = admin.describe_cluster({}, call_timeout_ms);
        if (cluster && cluster->error.ok()) {
            spdlog::info("connected to cluster {} ({} brokers) at {}", cluster->cluster_id, cluster->brokers.size(),
                         options.bootstrap_servers);
            return true;
        }
        const std::string problem = cluster ? cluster->error.to_string() : cluster.error().message;
        if (signals.wait(backoff.failed(problem)) != 0) return false;
    }
}

}  // namespace

int run_live(const LiveRunOptions& options) {
    events::Result<std::vector<kafka::wire::BrokerAddress>> servers = kafka::wire::parse_bootstrap_servers(options.bootstrap_servers);
    if (!servers) return report_error("--bootstrap-server: " + servers.error().message);
    const events::Config& config = options.config;
    StopSignals signals;

    kafka::wire::ClientOptions client;
    client.bootstrap_servers = *servers;
    client.connection.client_id = "ballast";
    if (!wait_for_cluster(options, client, signals)) {
        spdlog::info("stopped before the cluster answered");
        return exit_ok;
    }

    kafka::WallClock wall;
    const kafka::EventClock clock = wall.clock();
    kafka::ClusterView view;
    RunLog log;
    EngineFeed feed(&log);

    kafka::KafkaAdminPortOptions port_options;
    port_options.client = client;
    port_options.poll_interval_ms = std::min<int64_t>(config.get_int64("ballast.metadata.poll.ms"), 1000);
    port_options.call_timeout_ms = call_timeout_ms;
    // Time for the poller to report a finished move, several polls over.
    port_options.abandon_after_ms = std::max<int64_t>(30'000, 10 * config.get_int64("ballast.metadata.poll.ms"));
    kafka::KafkaAdminPort port(port_options, clock, &view);
    port.attach(feed.sink());

    actors::EngineOptions engine_options;
    engine_options.config = config;
    engine_options.journal_path = config.get_string("ballast.journal.path");
    engine_options.port = &port;
    engine_options.on_decision = [&log](const events::Event& e) { log.decision(e); };
    engine_options.on_retention = [&log](const store::RetentionReport& r) { log.retention(r); };
    log.set_recovering(true);
    events::Result<std::unique_ptr<actors::Engine>> started = actors::Engine::start(std::move(engine_options));
    log.set_recovering(false);
    if (!started) return report_error("starting the engine on " + config.get_string("ballast.journal.path") + ": " +
                                      started.error().to_string());
    std::unique_ptr<actors::Engine> engine = std::move(*started);
    spdlog::info("engine started on journal {} (recovered up to seq {}, flavor {})",
                 config.get_string("ballast.journal.path"), engine->recovered_seq(),
                 config.get_string("ballast.cluster.flavor"));
    feed.set_engine(engine.get());
    // Whatever way this function ends, nothing feeds the engine once it is gone.
    struct Unfeed {
        EngineFeed& feed;
        kafka::KafkaAdminPort& port;
        ~Unfeed() {
            port.stop();
            feed.set_engine(nullptr);
        }
    } unfeed{feed, port};

    // Metadata first: the port judges completion by what the poller reported.
    kafka::MetadataPollerOptions poller_options;
    poller_options.bootstrap_servers = options.bootstrap_servers;
    poller_options.client = client;
    poller_options.poll_interval_ms = config.get_int64("ballast.metadata.poll.ms");
    poller_options.call_timeout_ms = call_timeout_ms;
    kafka::MetadataPoller poller(poller_options, clock, &view);
    if (events::Status s = poller.start(feed.sink()); !s) return report_error(s.error());
    port.start();

    std::vector<std::unique_ptr<kafka::MetricsSampler>> samplers;
    std::vector<std::unique_ptr<kafka::MetricsTopicReader>> readers;
    const int64_t sample_interval_ms = config.get_int64("ballast.metrics.sample.interval.ms");
    for (const std::string& source : config.get_string_list("ballast.metrics.source")) {
        if (source == "sampler") {
            kafka::MetricsSamplerOptions o;
            o.bootstrap_servers = options.bootstrap_servers;
            o.client = client;
            o.interval_ms = sample_interval_ms;
            o.call_timeout_ms = call_timeout_ms;
            samplers.push_back(std::make_unique<kafka::MetricsSampler>(o, clock, &view));
            if (events::Status s = samplers.back()->start(feed.sink()); !s) return report_error(s.error());
        } else {
            kafka::MetricsTopicReaderOptions o;
            o.bootstrap_servers = options.bootstrap_servers;
            o.format = source == "automq" ? kafka::MetricsFormat::automq : kafka::MetricsFormat::cruise_control;
            o.topic = config.get_string(source == "automq" ? "ballast.metrics.automq.topic"
                                                           : "ballast.metrics.cruise.control.topic");
            o.interval_ms = sample_interval_ms;
            o.call_timeout_ms = call_timeout_ms;
            readers.push_back(std::make_unique<kafka::MetricsTopicReader>(o, clock, &view));
            if (events::Status s = readers.back()->start(feed.sink()); !s) return report_error(s.error());
        }
        spdlog::info("metrics from {}", source);
    }

    // Ticks once the engine knows the cluster: the first round plans on a real picture.
    for (int i = 0; i < 100 && view.version() == 0; i++) {
        if (signals.wait(100) != 0) break;
    }
    auto ticks = std::make_unique<ClockThread>(clock, config.get_int64("ballast.tick.interval.ms"), &feed);

    int signal = 0;
    while (signal == 0 && !feed.failed()) signal = signals.wait(500);
    spdlog::info("{}: stopping", signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "engine failure");

    // Stop feeding: every source first, then the engine drains what it has.
    ticks.reset();
    for (auto& r : readers) r->stop();
    for (auto& s : samplers) s->stop();
    poller.stop();
    port.stop();
    feed.set_engine(nullptr);
    events::Status idle = engine->wait_idle();
    engine->stop();
    // The engine's own account first: it names the cause (an actor that
    // ended, a journal write that failed) even when the feed saw only its
    // consequence.
    if (!idle) return report_error(idle.error());
    if (feed.failed()) return report_error("the engine refused events: " + feed.failure());
    spdlog::info("stopped cleanly; journal {}", config.get_string("ballast.journal.path"));
    return exit_ok;
}

}  // namespace ballast::tools
