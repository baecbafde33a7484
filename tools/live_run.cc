#include "tools/live_run.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "actors/engine.h"
#include "actors/ha_node.h"
#include "adapters/kafka/ha/journal_topic.h"
#include "adapters/kafka/ha/presence.h"
#include "adapters/kafka/kafka_admin_port.h"
#include "adapters/kafka/metadata/metadata_log_source.h"
#include "adapters/kafka/metadata/metadata_poller.h"
#include "adapters/kafka/metrics_sampler.h"
#include "adapters/kafka/metrics_topic_reader.h"
#include "adapters/kafka/rdkafka_security.h"
#include "adapters/kafka/retry_backoff.h"
#include "tools/cli_common.h"
#include "tools/http/server.h"
#include "tools/other_groups.h"
#include "tools/run_events.h"
#include "tools/run_metadata_log.h"

namespace ballast::tools {

namespace {

constexpr int64_t call_timeout_ms = 10'000;
constexpr int64_t reachable_backoff_max_ms = 30'000;

/// How every part reaches the cluster: the wire client's options and
/// librdkafka's settings for the same security.
struct Clients {
    kafka::wire::ClientOptions wire;
    /// The controllers (--bootstrap-controller), with the brokers' security;
    /// empty: metadata is polled.
    std::vector<kafka::wire::BrokerAddress> controllers;
    kafka::RdKafkaSettings rdkafka;
    /// Why librdkafka cannot log in to this cluster ("" when it can): the
    /// parts that need it are refused at start, or left out.
    std::string rdkafka_refusal;
};

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

/// What feeds a leading engine from the cluster, for one leadership: the
/// cluster as the adapter sees it, the admin port, the metadata poller, the
/// metrics sources and the clock. Made fresh for each leadership (a port
/// and a poller start from an empty picture, so the new leader is told the
/// whole cluster again) and stopped, in reverse, when it ends.
class Leadership {
public:
    Leadership(const LiveRunOptions& options, const Clients& clients, kafka::EventClock clock, EngineFeed* feed)
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
    ~Leadership() { stop(); }

    /// Metadata first (the port judges completion by what the poller
    /// reported), then the port's worker, the metrics sources, and the
    /// clock once the engine knows the cluster (the first round plans on a
    /// real picture), or after `wait` said stop.
    events::Status start(const std::function<bool(int64_t)>& wait, const store::Journal& journal) {
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

    /// Every source, then the port: nothing feeds the engine afterwards.
    void stop() {
        _ticks.reset();
        for (auto& r : _readers) r->stop();
        for (auto& s : _samplers) s->stop();
        if (_poller) _poller->stop();
        if (_log) _log->stop();
        port->stop();
    }

    /// What keeps the metadata from flowing ("" while it flows): the
    /// metadata log's last failed fetch.
    std::string metadata_problem() const { return _log ? _log->problem() : std::string(); }

    std::unique_ptr<kafka::KafkaAdminPort> port;

private:
    /// KRaft's metadata log, resumed where the journal says; on a failure
    /// (the journal not read, the controllers not reached or refusing) a
    /// warning, and _log stays empty: the caller polls instead.
    void start_metadata_log(const store::Journal& journal) {
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

    const LiveRunOptions& _options;
    Clients _clients;
    kafka::EventClock _clock;
    EngineFeed* _feed;
    kafka::metadata::ClusterView _view;
    std::unique_ptr<kafka::metadata::MetadataPoller> _poller;
    std::unique_ptr<kafka::metadata::MetadataLogSource> _log;
    std::vector<std::unique_ptr<kafka::MetricsSampler>> _samplers;
    std::vector<std::unique_ptr<kafka::MetricsTopicReader>> _readers;
    std::unique_ptr<ClockThread> _ticks;
};

/// The cluster port a highly available instance gives its engines: the
/// current leadership's (Leadership::port), none while it follows; a call
/// with none is dropped (the lease refuses it before it gets here).
class LeadershipPort : public actors::AdminPort {
public:
    void set(kafka::KafkaAdminPort* port) {
        std::lock_guard<std::mutex> lock(_mutex);
        _port = port;
    }
    void attach(actors::EventSink) override {}  // each leadership's port is attached to the feed
    void submit(const events::Action& action, uint32_t attempt) override {
        std::lock_guard<std::mutex> lock(_mutex);
        if (_port) _port->submit(action, attempt);
    }
    void cancel(const events::Action& action) override {
        std::lock_guard<std::mutex> lock(_mutex);
        if (_port) _port->cancel(action);
    }
    void adopt(const events::Action& action, uint32_t attempt) override {
        std::lock_guard<std::mutex> lock(_mutex);
        if (_port) _port->adopt(action, attempt);
    }

private:
    std::mutex _mutex;
    kafka::KafkaAdminPort* _port = nullptr;
};

/// This instance's name in the group and in its LeadershipAcquired: the
/// setting, or host name and process id.
std::string instance_id(const events::Config& config) {
    std::string id = config.get_string("ballast.ha.instance.id");
    if (!id.empty()) return id;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "ballast");
    return std::string(host) + "-" + std::to_string(getpid());
}

/// "caught up", or "lag N records, M ms behind the leader" (the leader's
/// clock on both ends), or why it is not known.
std::string lag_text(const events::Result<kafka::ha::JournalLag>& lag) {
    if (!lag) return "lag unknown (" + lag.error().to_string() + ")";
    if (lag->caught_up) return "caught up";
    return "lag " + std::to_string(lag->records) + " records (the leader's log is at seq " +
           std::to_string(lag->newest_seq) + "), " + (lag->ms >= 0 ? std::to_string(lag->ms) + " ms" : "? ms");
}

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

/// One of several instances (ballast.ha.enable): a standby until the group
/// elects it, then the leader (actors/ha_node.h).
int run_ha(const LiveRunOptions& options, const Clients& clients, kafka::EventClock clock,
           StopSignals& signals, http::EngineAccess& api) {
    const events::Config& config = options.config;
    kafka::ha::KafkaHaOptions ha;
    ha.bootstrap_servers = options.bootstrap_servers;
    ha.client_settings = clients.rdkafka;
    ha.instance_id = instance_id(config);
    ha.group_id = config.get_string("ballast.ha.group.id");
    ha.journal_topic = config.get_string("ballast.ha.journal.topic");
    ha.session_timeout_ms = config.get_int64("ballast.ha.session.timeout.ms");
    ha.journal_retention_ms = config.get_int64("ballast.ha.journal.retention.ms");
    ha.journal_retention_bytes = config.get_int64("ballast.ha.journal.retention.bytes");
    // Range, the eager default, takes the partition from the leader for a
    // moment whenever an instance joins (and may give it to the newcomer):
    // every standby's start would be a failover. Cooperative-sticky leaves it.
    ha.assignment_strategy = "cooperative-sticky";
    ha.call_timeout_ms = call_timeout_ms;
    events::Result<std::unique_ptr<kafka::ha::KafkaHaLog>> opened = kafka::ha::KafkaHaLog::open(ha);
    if (!opened) return report_error("high availability: " + opened.error().to_string());
    std::unique_ptr<kafka::ha::KafkaHaLog> ha_log = std::move(*opened);
    spdlog::info("{}: in group {}, journal topic {} (replication factor {})", ha.instance_id, ha.group_id,
                 ha.journal_topic_name(), ha_log->topics().replication_factor);

    RunLog log;
    EngineFeed feed(&log);
    int signal = 0;  // SIGINT or SIGTERM, also when taken while a leadership's sources start
    // The cluster port of the current leadership; none while following.
    std::unique_ptr<Leadership> leadership;
    LeadershipPort port;

    actors::HaNodeOptions node_options;
    node_options.instance_id = ha.instance_id;
    node_options.log = ha_log.get();
    node_options.engine.config = config;
    node_options.engine.journal_path = config.get_string("ballast.journal.path");
    node_options.engine.port = &port;
    node_options.engine.on_decision = [&log](const events::Event& e) { log.decision(e); };
    node_options.engine.on_retention = [&log](const store::RetentionReport& r) { log.retention(r); };
    node_options.before_lead = [&] {
        // Before the engine starts: its recovery adopts what was in flight.
        feed.wait_for_engine();
        leadership = std::make_unique<Leadership>(options, clients, clock, &feed);
        port.set(leadership->port.get());
        log.set_recovering(true);
    };
    node_options.on_lead = [&](actors::Engine& engine) {
        log.set_recovering(false);
        feed.set_engine(&engine);
        if (events::Status s = leadership->start([&](int64_t ms) { return (signal = signals.wait(ms)) == 0; },
                                                 *engine.journal());
            !s) {
            spdlog::error("starting the cluster's sources: {}", s.error().to_string());
            return;
        }
        // The moment a failover ends (bench/failover.sh measures up to it).
        spdlog::info("{}: leading: the cluster's sources run and the first tick is fed", ha.instance_id);
        api.attach(&engine);
        api.set_readiness({"leader", true, "leads group " + ha.group_id});
    };
    node_options.on_lead_lost = [&](const std::string& why) {
        api.attach(nullptr);  // waits for the requests using it
        api.set_readiness({"standby", false, "stepped down (" + why + "); following the leader again"});
        log.set_recovering(false);
        if (leadership) leadership->stop();
        port.set(nullptr);
        feed.set_engine(nullptr);
        leadership.reset();
    };
    // The log may not answer at once (a topic just made, a broker away):
    // retried with backoff, as the cluster is, until a signal.
    kafka::RetryBackoff backoff("starting as a standby on journal " + config.get_string("ballast.journal.path"), 1000,
                                reachable_backoff_max_ms);
    std::unique_ptr<actors::HaNode> node;
    while (!node) {
        events::Result<std::unique_ptr<actors::HaNode>> node_started = actors::HaNode::start(node_options);
        if (node_started) {
            node = std::move(*node_started);
        } else if ((signal = signals.wait(backoff.failed(node_started.error().to_string()))) != 0) {
            ha_log->close();
            return exit_ok;
        }
    }
    spdlog::info("{}: standby, journal {} at seq {}", ha.instance_id, config.get_string("ballast.journal.path"),
                 node->status().journal_seq);
    api.set_readiness({"standby", false, "following the leader; not yet caught up"});

    auto last_report = std::chrono::steady_clock::now();
    auto last_readiness = std::chrono::steady_clock::time_point{};
    actors::HaRole role = node->role();
    // Once a second the next step tries again; an error is logged again
    // only when it changes or after a minute.
    kafka::RetryBackoff stepping(ha.instance_id + ": a step", 1000, 1000, spdlog::level::err);
    OtherGroupsWatch other_groups(ha);
    while (signal == 0) {
        if (events::Status stepped = node->step(); !stepped) {
            signal = signals.wait(stepping.failed(stepped.error().to_string()));
            continue;
        }
        stepping.succeeded();
        const actors::HaStatus status = node->status();
        const auto now = std::chrono::steady_clock::now();
        if (status.role != role || now - last_report >= std::chrono::seconds(10)) {
            if (status.role == actors::HaRole::leader) {
                spdlog::info("{}: leader, epoch {}, journal at seq {}", ha.instance_id, status.epoch,
                             status.journal_seq);
            } else {
                spdlog::info("{}: standby, journal at seq {}, {}, {} rounds decided as the leader did, {} otherwise",
                             ha.instance_id, status.journal_seq, lag_text(ha_log->lag(status.journal_seq)),
                             status.decisions_matched, status.decisions_diverged);
            }
            role = status.role;
            last_report = now;
        }
        // A standby is ready once it has caught up with the leader's log.
        if (status.role == actors::HaRole::standby && now - last_readiness >= std::chrono::seconds(2)) {
            const events::Result<kafka::ha::JournalLag> lag = ha_log->lag(status.journal_seq);
            http::Readiness readiness{"standby", lag && lag->caught_up, "following the leader: " + lag_text(lag)};
            if (lag) {
                readiness.lag_records = lag->caught_up ? 0 : static_cast<int64_t>(lag->records);
                readiness.lag_ms = lag->caught_up ? 0 : lag->ms;
            }
            api.set_readiness(readiness);
            last_readiness = now;
        }
        other_groups.poll(status.role == actors::HaRole::leader, status.epoch);
        // A standby's step waits on the log; a leader's returns at once.
        if (signal == 0) signal = signals.wait(role == actors::HaRole::leader ? 200 : 0);
    }
    spdlog::info("{}: stopping", signal == SIGINT ? "SIGINT" : "SIGTERM");
    api.close("stopping");
    events::Status stopped = node->stop();
    node.reset();
    ha_log->close();  // leaves the group: another instance leads a heartbeat later
    if (!stopped) return report_error(stopped.error());
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
