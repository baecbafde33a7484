#include "tools/live_run.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "actors/engine.h"
#include "adapters/kafka/ha/presence.h"
#include "adapters/kafka/retry_backoff.h"
#include "tools/cli_common.h"
#include "tools/http/server.h"
#include "tools/live_run_parts.h"
#include "tools/other_groups.h"
#include "tools/run_events.h"
#include "tools/run_metadata_log.h"

namespace ballast::tools {

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

namespace {

/// What the cluster answered first.
struct Reached {
    bool kafka4_or_later = false;  // kafka::kafka4_or_later of the broker that answered
};

/// Waits until some broker answers DescribeCluster; none if a signal came
/// first. A refused login or an untrusted certificate is retried too: the
/// error names it, and an operator may fix the broker's side meanwhile.
std::optional<Reached> wait_for_cluster(const LiveRunOptions& options, const kafka::wire::ClientOptions& client,
                                        StopSignals& signals) {
    kafka::wire::AdminClient admin(client);
    kafka::RetryBackoff backoff("connecting to the Kafka cluster at " + options.bootstrap_servers, 1000,
                                reachable_backoff_max_ms);
    for (;;) {
        events::Result<kafka::wire::messages::DescribeClusterResponse> cluster = admin.describe_cluster({}, call_timeout_ms);
        if (cluster && cluster->error.ok()) {
            spdlog::info("connected to cluster {} ({} brokers) at {}", cluster->cluster_id, cluster->brokers.size(),
                         options.bootstrap_servers);
            Reached reached;
            if (events::Result<kafka::wire::BrokerConnection*> broker = admin.any_broker(call_timeout_ms); broker) {
                reached.kafka4_or_later = kafka::kafka4_or_later((*broker)->broker_versions());
            }
            return reached;
        }
        const std::string problem = cluster ? cluster->error.to_string() : cluster.error().message;
        if (signals.wait(backoff.failed(problem)) != 0) return std::nullopt;
    }
}

}  // namespace

Leadership::Leadership(const LiveRunOptions& options, const Clients& clients, kafka::EventClock clock, EngineFeed* feed)
    : _options(options), _clients(clients), _clock(std::move(clock)), _feed(feed) {
    const events::Config& config = options.config;
    kafka::KafkaAdminPortOptions port_options;
    port_options.client = clients.wire;
    port_options.poll_interval_ms = std::min<int64_t>(config.get_int64("ballast.metadata.poll.ms"), 1000);
    port_options.call_timeout_ms = call_timeout_ms;
    // Time for the poller to report a finished move, several polls over.
    port_options.abandon_after_ms = std::max<int64_t>(30'000, 10 * config.get_int64("ballast.metadata.poll.ms"));
    port = std::make_unique<kafka::KafkaAdminPort>(port_options, _clock, &_view);
    port->attach(feed->sink());
}

Leadership::~Leadership() { stop(); }

events::Status Leadership::start(const std::function<bool(int64_t)>& wait, const store::Journal& journal) {
    const events::Config& config = _options.config;
    if (!_clients.controllers.empty()) start_metadata_log(journal);
    if (!_log) {
        kafka::metadata::MetadataPollerOptions poller_options;
        poller_options.bootstrap_servers = _options.bootstrap_servers;
        poller_options.client = _clients.wire;
        poller_options.poll_interval_ms = config.get_int64("ballast.metadata.poll.ms");
        poller_options.sweep_ms = config.get_int64("ballast.metadata.poll.sweep.ms");
        poller_options.call_timeout_ms = call_timeout_ms;
        _poller = std::make_unique<kafka::metadata::MetadataPoller>(poller_options, _clock, &_view);
        if (events::Status s = _poller->start(_feed->sink()); !s) return s;
    }
    port->start();

    const int64_t sample_interval_ms = config.get_int64("ballast.metrics.sample.interval.ms");
    for (const std::string& source : config.get_string_list("ballast.metrics.source")) {
        if (source == "sampler") {
            kafka::MetricsSamplerOptions o;
            o.bootstrap_servers = _options.bootstrap_servers;
            o.client = _clients.wire;
            o.interval_ms = sample_interval_ms;
            o.consumer_interval_ms = config.get_int64("ballast.metrics.consumer.interval.ms");
            o.call_timeout_ms = call_timeout_ms;
            _samplers.push_back(std::make_unique<kafka::MetricsSampler>(o, _clock, &_view));
            if (events::Status s = _samplers.back()->start(_feed->sink()); !s) return s;
        } else {
            kafka::MetricsTopicReaderOptions o;
            o.bootstrap_servers = _options.bootstrap_servers;
            o.rdkafka_settings = _clients.rdkafka;
            o.format = source == "automq" ? kafka::MetricsFormat::automq : kafka::MetricsFormat::cruise_control;
            o.topic = config.get_string(source == "automq" ? "ballast.metrics.automq.topic"
                                                           : "ballast.metrics.cruise.control.topic");
            o.interval_ms = sample_interval_ms;
            o.call_timeout_ms = call_timeout_ms;
            _readers.push_back(std::make_unique<kafka::MetricsTopicReader>(o, _clock, &_view));
            if (events::Status s = _readers.back()->start(_feed->sink()); !s) return s;
        }
        spdlog::info("metrics from {}", source);
    }
    for (int i = 0; i < 100 && _view.version() == 0; i++) {
        if (!wait(100)) break;
    }
    _ticks = std::make_unique<ClockThread>(_clock, config.get_int64("ballast.tick.interval.ms"), _feed);
    return {};
}

void Leadership::stop() {
    _ticks.reset();
    for (auto& r : _readers) r->stop();
    for (auto& s : _samplers) s->stop();
    if (_poller) _poller->stop();
    if (_log) _log->stop();
    port->stop();
}

void Leadership::start_metadata_log(const store::Journal& journal) {
    events::Result<ResumedLog> resumed = resume_from_journal(journal);
    if (!resumed) {
        spdlog::warn("metadata log: reading the journal for where to resume failed ({}): falling back to "
                     "polling the brokers' metadata",
                     resumed.error().to_string());
        return;
    }
    kafka::metadata::MetadataLogSourceOptions options;
    options.bootstrap_controllers = _options.bootstrap_controllers;
    options.observer.controllers = _clients.controllers;
    options.observer.connection = _clients.wire.connection;
    options.observer.call_timeout_ms = call_timeout_ms;
    options.backoff_max_ms = reachable_backoff_max_ms;
    auto source = std::make_unique<kafka::metadata::MetadataLogSource>(
        options, _clock, &_view, kafka::metadata::LogTranslator(resumed->picture, !resumed->whole));
    if (events::Status s = source->start(_feed->sink()); !s) {
        spdlog::warn("metadata log: KRaft's metadata log cannot be read from the controllers at {}: {}; falling "
                     "back to polling the brokers' metadata (ballast.metadata.source=poll)",
                     _options.bootstrap_controllers, s.error().message);
        return;
    }
    _log = std::move(source);
}

/// This instance's name in the group and in its LeadershipAcquired: the
/// setting, or host name and process id.
std::string instance_id(const events::Config& config) {
    std::string id = config.get_string("ballast.ha.instance.id");
    if (!id.empty()) return id;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "ballast");
    return std::string(host) + "-" + std::to_string(getpid());
}

namespace {

/// One instance beside a cluster: it leads from the start.
int run_single(const LiveRunOptions& options, const Clients& clients, kafka::EventClock clock,
               StopSignals& signals, http::EngineAccess& api) {
    const events::Config& config = options.config;
    RunLog log;
    EngineFeed feed(&log);
    Leadership leadership(options, clients, clock, &feed);

    actors::EngineOptions engine_options;
    engine_options.config = config;
    engine_options.journal_path = config.get_string("ballast.journal.path");
    engine_options.port = leadership.port.get();
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
    api.attach(engine.get());
    api.set_readiness({"starting", false, "starting the cluster's sources"});
    // Whatever way this function ends, nothing feeds or asks the engine once it is gone.
    struct Unfeed {
        EngineFeed& feed;
        Leadership& leadership;
        http::EngineAccess& api;
        ~Unfeed() {
            api.close("stopping");
            leadership.stop();
            feed.set_engine(nullptr);
        }
    } unfeed{feed, leadership, api};
    int signal = 0;  // a signal taken while the sources start is kept for the loop below
    if (events::Status s = leadership.start([&](int64_t ms) { return (signal = signals.wait(ms)) == 0; },
                                            *engine->journal());
        !s) {
        return report_error(s.error());
    }
    const http::Readiness leading{"single", true, "leads alone (no --ha)"};
    api.set_readiness(leading);
    std::string metadata_problem;

    // A Ballast group leading on this cluster too is warned about.
    kafka::ha::KafkaHaOptions presence;
    presence.bootstrap_servers = options.bootstrap_servers;
    presence.instance_id = instance_id(config);
    presence.group_id.clear();  // in no group
    presence.client_settings = clients.rdkafka;
    presence.call_timeout_ms = call_timeout_ms;
    OtherGroupsWatch other_groups(presence);
    if (!clients.rdkafka_refusal.empty()) {
        spdlog::warn("{}: not looking for other Ballast groups on this cluster (that is librdkafka's): {}",
                     presence.instance_id, clients.rdkafka_refusal);
    }
    while (signal == 0 && !feed.failed()) {
        if (clients.rdkafka_refusal.empty()) other_groups.poll(true, 1);
        if (std::string problem = leadership.metadata_problem(); problem != metadata_problem) {
            // Still leading on the last picture; /readyz says the metadata has stopped.
            http::Readiness readiness = leading;
            if (!problem.empty()) readiness.detail += "; metadata log unreachable, retrying: " + problem;
            api.set_readiness(readiness);
            metadata_problem = std::move(problem);
        }
        signal = signals.wait(500);
    }
    spdlog::info("{}: stopping", signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "engine failure");

    // Stop feeding: the API and every source first, then the engine drains what it has.
    api.close("stopping");
    leadership.stop();
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

}  // namespace

int run_live(const LiveRunOptions& options) {
    events::Result<std::vector<kafka::wire::BrokerAddress>> servers =
        kafka::wire::parse_bootstrap_servers(options.bootstrap_servers);
    if (!servers) return report_error("--bootstrap-server: " + servers.error().message);
    events::Result<MetadataSource> source = metadata_source(options.config, options.bootstrap_controllers);
    if (!source) return report_error(source.error());
    std::vector<kafka::wire::BrokerAddress> controllers;
    if (*source == MetadataSource::kraft) {
        events::Result<std::vector<kafka::wire::BrokerAddress>> parsed =
            kafka::wire::parse_bootstrap_servers(options.bootstrap_controllers);
        if (!parsed) return report_error("--bootstrap-controller: " + parsed.error().message);
        controllers = std::move(*parsed);
    } else if (!options.bootstrap_controllers.empty()) {
        spdlog::info("--bootstrap-controller {} not read: ballast.metadata.source=poll", options.bootstrap_controllers);
    }
    StopSignals signals;
    // The HTTP API from the start (after the signals are blocked: its threads
    // inherit the mask), so that /readyz says what it waits for.
    kafka::WallClock wall;
    http::EngineAccess api(http::EngineAccess::Mode::any_thread, wall.clock());
    http::ApiOptions api_options;
    api_options.process_config = options.config;
    events::Result<std::unique_ptr<http::Server>> server = http::Server::start(options.config, api, api_options);
    if (!server) return report_error(server.error());
    if (*server) spdlog::info("HTTP API on {} ({})", (*server)->url(), (*server)->access_text());
    api.set_readiness({"starting", false, "waiting for the cluster at " + options.bootstrap_servers});

    Clients clients;
    clients.wire.bootstrap_servers = *servers;
    clients.wire.connection.client_id = "ballast";
    clients.wire.connection.security = options.security;
    clients.controllers = std::move(controllers);
    // Stores that do not read are named now, not at each librdkafka handle.
    events::Result<kafka::RdKafkaSettings> rdkafka = kafka::rdkafka_security_settings(options.security);
    if (!rdkafka) return report_error(rdkafka.error());
    clients.rdkafka = std::move(*rdkafka);
    if (options.security.protocol != kafka::wire::SecurityProtocol::plaintext) {
        spdlog::info("connecting with {}", options.security.redacted());
    }
    const std::optional<Reached> reached = wait_for_cluster(options, clients.wire, signals);
    if (!reached) {
        spdlog::info("stopped before the cluster answered");
        return exit_ok;
    }
    clients.rdkafka_refusal =
        kafka::librdkafka_scram_refusal(kafka::librdkafka_version(), options.security, reached->kafka4_or_later);
    if (!clients.rdkafka_refusal.empty()) {
        // The wire client does the rest: the metadata, the sampler, the moves.
        std::string needs;
        if (options.config.get_bool("ballast.ha.enable")) needs = "high availability (--ha)";
        for (const std::string& source : options.config.get_string_list("ballast.metrics.source")) {
            if (source == "sampler") continue;
            needs += (needs.empty() ? "" : ", ") + std::string("the metrics source ") + source;
        }
        if (!needs.empty()) return report_error(clients.rdkafka_refusal + "; librdkafka runs " + needs);
    }
    api.set_readiness({"starting", false, "recovering the journal"});
    if (options.config.get_bool("ballast.ha.enable")) return run_ha(options, clients, wall.clock(), signals, api);
    return run_single(options, clients, wall.clock(), signals, api);
}

}  // namespace ballast::tools
