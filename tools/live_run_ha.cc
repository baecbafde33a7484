// `ballast run --ha`: one of several instances, a standby until the group elects it
// (run_ha, declared in live_run_parts.h).

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include <spdlog/spdlog.h>

#include "actors/engine.h"
#include "actors/ha_node.h"
#include "adapters/kafka/ha/journal_topic.h"
#include "adapters/kafka/retry_backoff.h"
#include "tools/cli_common.h"
#include "tools/live_run_parts.h"
#include "tools/other_groups.h"

namespace ballast::tools {

namespace {

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

/// "caught up", or "lag N records, M ms behind the leader" (the leader's
/// clock on both ends), or why it is not known.
std::string lag_text(const events::Result<kafka::ha::JournalLag>& lag) {
    if (!lag) return "lag unknown (" + lag.error().to_string() + ")";
    if (lag->caught_up) return "caught up";
    return "lag " + std::to_string(lag->records) + " records (the leader's log is at seq " +
           std::to_string(lag->newest_seq) + "), " + (lag->ms >= 0 ? std::to_string(lag->ms) + " ms" : "? ms");
}

}  // namespace

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

}  // namespace ballast::tools
