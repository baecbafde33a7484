#pragma once

/// What `ballast run`'s two ways of running share (live_run.cc: one instance;
/// live_run_ha.cc: one of several, --ha): how every part reaches the cluster,
/// the stop signals, and a leadership, the sources that feed a leading engine.
/// Private to tools/: only those two files include it.

#include <pthread.h>
#include <signal.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adapters/kafka/event_clock.h"
#include "adapters/kafka/kafka_admin_port.h"
#include "adapters/kafka/metadata/metadata_log_source.h"
#include "adapters/kafka/metadata/metadata_poller.h"
#include "adapters/kafka/metrics_sampler.h"
#include "adapters/kafka/metrics_topic_reader.h"
#include "adapters/kafka/rdkafka_security.h"
#include "store/journal.h"
#include "tools/http/engine_access.h"
#include "tools/live_run.h"
#include "tools/run_events.h"

namespace ballast::tools {

inline constexpr int64_t call_timeout_ms = 10'000;
inline constexpr int64_t reachable_backoff_max_ms = 30'000;

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

/// Feeds the engine's Ticks while a leadership lasts (live_run.cc).
class ClockThread;

/// What feeds a leading engine from the cluster, for one leadership: the
/// cluster as the adapter sees it, the admin port, the metadata poller, the
/// metrics sources and the clock. Made fresh for each leadership (a port
/// and a poller start from an empty picture, so the new leader is told the
/// whole cluster again) and stopped, in reverse, when it ends.
class Leadership {
public:
    Leadership(const LiveRunOptions& options, const Clients& clients, kafka::EventClock clock, EngineFeed* feed);
    ~Leadership();

    /// Metadata first (the port judges completion by what the poller
    /// reported), then the port's worker, the metrics sources, and the
    /// clock once the engine knows the cluster (the first round plans on a
    /// real picture), or after `wait` said stop.
    events::Status start(const std::function<bool(int64_t)>& wait, const store::Journal& journal);

    /// Every source, then the port: nothing feeds the engine afterwards.
    void stop();

    /// What keeps the metadata from flowing ("" while it flows): the
    /// metadata log's last failed fetch.
    std::string metadata_problem() const { return _log ? _log->problem() : std::string(); }

    std::unique_ptr<kafka::KafkaAdminPort> port;

private:
    /// KRaft's metadata log, resumed where the journal says; on a failure
    /// (the journal not read, the controllers not reached or refusing) a
    /// warning, and _log stays empty: the caller polls instead.
    void start_metadata_log(const store::Journal& journal);

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

/// This instance's name in the group and in its LeadershipAcquired: the
/// setting, or host name and process id.
std::string instance_id(const events::Config& config);

/// One of several instances (ballast.ha.enable): a standby until the group
/// elects it, then the leader (actors/ha_node.h).
int run_ha(const LiveRunOptions& options, const Clients& clients, kafka::EventClock clock, StopSignals& signals,
           http::EngineAccess& api);

}  // namespace ballast::tools
