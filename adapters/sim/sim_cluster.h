#pragma once

/// The simulated cluster: brokers, topics, partitions with replicas, leader
/// and ISR, per-partition traffic, and reassignments in progress. It emits
/// the events a metadata poller and a metrics reader would see from a real
/// cluster, and carries out the engine's actions through the admin port.
///
/// Time is simulated. `advance(to_ms)` moves the clock forward: it applies
/// the admin requests the engine made since the last call (at the time of
/// the last Tick, when the engine made them), then everything scheduled in
/// (now, to_ms] in time order (scenario events, fencing, moves finishing,
/// metrics reports), and ends with a Tick at `to_ms`. The driver feeds what
/// it returns to the engine and waits until the engine is idle before the
/// next call, so the run is a pure function of the scenario and its seed.
///
/// What a real cluster does that the simulator models:
/// - a stopped broker stops reporting at once and is fenced after the
///   session timeout (9 s); then its partitions lose it from their ISR and
///   elect a new leader among the live ISR, or go offline (leader -1);
/// - a broker cut off from the controller (fence_broker) is fenced at once
///   and loses its ISRs and leaderships as a stopped one does, but its
///   process runs on and reports; unfence_broker ends it, and its replicas
///   rejoin as a restarted broker's do;
/// - a restarted broker is unfenced ~1 s later; its replicas rejoin the ISR
///   once caught up (automq: at once, apache: the bytes missed at the
///   throttle rate); leadership does not come back by itself;
/// - a move completes after ~1.5 s (automq, whatever the size, even off a
///   stopped broker) or after copying the partition at the throttle rate
///   from a live replica (apache; with no live replica it cannot progress);
/// - metadata shows a partition's new replicas when its move completes
///   (Ballast's Kafka adapter reports a reassigning partition by its
///   current replicas, not the union Kafka lists while adding);
/// - every broker reports its partitions' rates and sizes and its own
///   totals every report interval (10 s, AutoMQ's default).
/// Not modelled: replication throttles shared between moves, disk limits,
/// client retries, controller failover.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "actors/admin_port.h"
#include "adapters/sim/sim_scenario.h"
#include "events/event.h"

namespace ballast::sim {

enum class BrokerState : uint8_t {
    defined,       // in the scenario, never started
    running,
    stopped,       // the process is down; not fenced yet
    fenced,        // stopped and fenced by the controller
    isolated,      // running (it reports) but fenced: cut off from the controller
    unregistered,  // decommissioned
};
const char* broker_state_name(BrokerState state);

struct SimBroker {
    int32_t id = -1;
    std::string rack;
    BrokerState state = BrokerState::defined;
    uint32_t incarnation = 0;  // counts starts: a fence meant for an old run is dropped
    int64_t stopped_ms = -1;
};

struct SimPartition {
    uint32_t topic = 0;  // index into SimCluster::topics()
    int32_t partition = -1;
    std::vector<int32_t> replicas;  // preference order
    int32_t leader = -1;
    std::vector<int32_t> isr;
    int32_t leader_epoch = 0;
    bool deleted = false;
    TrafficProfile profile;
    double share = 1;     // of the profile's rate
    double scale = 1;     // scale_traffic events multiply it
    double walk_log = 0;  // random walk: log of the multiplier
    double size_bytes = 0;
    double retention_bytes = 0;  // 0: unbounded
    uint64_t reassignment = 0;  // id of the action moving it; 0: none
};

struct SimTopic {
    std::string name;
    std::vector<uint32_t> partitions;  // indexes into SimCluster::partitions()
    bool deleted = false;
};

/// A broker's load as it stands, computed from its replicas (the engine's
/// model: every replica takes the produce traffic in; the leader sends the
/// consume traffic out plus a copy per follower).
struct BrokerLoad {
    int32_t id = -1;
    BrokerState state = BrokerState::defined;
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
    double size_bytes = 0;
    int32_t replicas = 0;
    int32_t leaders = 0;
};

class SimCluster {
public:
    explicit SimCluster(Scenario scenario);
    ~SimCluster();
    SimCluster(const SimCluster&) = delete;
    SimCluster& operator=(const SimCluster&) = delete;

    /// The port the engine's executor calls (thread-safe).
    actors::AdminPort& port();

    /// The cluster as a poller first sees it, at time 0: brokers, topics,
    /// partitions, then a first metrics report and a Tick. Call once.
    std::vector<events::Event> start();

    /// Moves the clock to `to_ms` (> now_ms()); see the header comment.
    std::vector<events::Event> advance(int64_t to_ms);

    /// The cluster as it stands, as a poller that starts again reports it
    /// (it diffs against nothing): every broker registered (and fenced or
    /// unregistered), every topic created with its partitions, every deleted
    /// topic deleted. After an engine's crash the inputs it had not yet
    /// journaled are lost; this is how it learns the state again.
    std::vector<events::Event> resync();

    int64_t now_ms() const { return _now_ms; }
    const Scenario& scenario() const { return _scenario; }
    const std::vector<SimBroker>& brokers() const { return _brokers; }
    const std::vector<SimTopic>& topics() const { return _topics; }
    const std::vector<SimPartition>& partitions() const { return _partitions; }

    /// Producer rate of a partition now (0 while it has no leader).
    double bytes_in_per_s(const SimPartition& p) const;
    /// Per broker that was ever started, by id.
    std::vector<BrokerLoad> broker_loads() const;
    /// Reassignments started and not finished.
    size_t moves_in_flight() const { return _running.size(); }
    std::vector<uint64_t> running_action_ids() const {
        std::vector<uint64_t> ids;
        for (const auto& [id, running] : _running) ids.push_back(id);
        return ids;
    }
    /// Counts over the run.
    struct Counters {
        uint64_t submitted = 0;
        uint64_t completed = 0;
        uint64_t failed = 0;
        uint64_t cancelled = 0;
        uint64_t partitions_moved = 0;
        uint64_t reports_lost = 0;
        uint64_t reports_late = 0;
    };
    const Counters& counters() const { return _counters; }

private:
    class Port;
    /// What the engine asked through the port, in the order it asked.
    struct Request {
        enum class Kind : uint8_t { submit, cancel, adopt } kind = Kind::submit;
        events::Action action;
        uint32_t attempt = 0;
    };
    /// An action the cluster is carrying out: one partition, or two (swap).
    struct Running {
        events::Action action;
        uint32_t attempt = 0;
        int64_t started_ms = 0;
        bool stuck = false;  // injected: never finishes
        struct Part {
            uint32_t partition = 0;  // index into _partitions
            std::vector<int32_t> original;
            std::vector<int32_t> target;
            int64_t ready_ms = 0;    // copy finished (apache) or move time passed (automq)
            bool done = false;
        };
        std::vector<Part> parts;
    };

    // sim_cluster.cc: brokers, topics, the clock.
    void schedule(int64_t at_ms, std::function<void()> what);
    void emit(int64_t time_ms, events::Body body, events::Source source = events::Source::simulator);
    void emit_partition(int64_t time_ms, const SimPartition& p);
    void apply_timed_event(const TimedEvent& e);
    void start_broker(int32_t id, int64_t time_ms);
    void stop_broker(int32_t id, int64_t time_ms);
    void fence_broker(int32_t id, uint32_t incarnation, int64_t time_ms);
    void unfence_broker(int32_t id, uint32_t incarnation);  // now: replicas rejoin their ISRs once caught up
    void isolate_broker(int32_t id, int64_t time_ms);       // fence_broker event
    void reconnect_broker(int32_t id);                      // unfence_broker event
    void leave_isrs(int32_t id, int64_t time_ms);           // a fenced broker leaves the ISRs and leads nothing
    void create_topic(const TopicSpec& spec, int64_t time_ms);
    void delete_topic(const std::string& name, int64_t time_ms);
    SimBroker* broker(int32_t id);
    const SimBroker* broker(int32_t id) const;
    bool is_running(int32_t id) const;
    int32_t elect_leader(const SimPartition& p) const;

    // sim_traffic.cc: rates and metrics reports.
    double profile_rate(const SimPartition& p, int64_t time_ms) const;
    void apply_traffic_event(const TimedEvent& e);
    void report_metrics(int64_t time_ms);

    // sim_admin.cc: the engine's actions.
    void take_requests();
    void begin(const Request& request);
    void try_complete(uint64_t action_id);
    void fail(uint64_t action_id, uint32_t attempt, int32_t code, const std::string& name,
              const std::string& message, bool retriable, int64_t time_ms);
    void cancel(const events::Action& action);
    int64_t copy_time_ms(const SimPartition& p) const;
    int32_t find_partition(const std::string& topic, int32_t partition) const;

    Scenario _scenario;
    std::unique_ptr<Port> _port;
    std::mt19937_64 _random;
    int64_t _now_ms = 0;
    bool _started = false;
    size_t _next_timed_event = 0;
    std::vector<SimBroker> _brokers;  // sorted by id
    std::vector<SimTopic> _topics;
    std::vector<SimPartition> _partitions;
    std::map<std::string, uint32_t> _topic_index;  // live topics by name
    std::map<uint64_t, Running> _running;          // by action id
    std::set<std::pair<uint64_t, uint32_t>> _received;  // every (action id, attempt) submitted, for adopt
    std::map<uint64_t, events::Body> _outcomes;          // each action's last outcome reported, for adopt
    std::vector<events::Event> _out;               // being built by advance()
    Counters _counters;

    // Things that happen at a time: ordered by (time, order of scheduling).
    struct ScheduledItem {
        int64_t at_ms;
        uint64_t order;
        std::function<void()> what;
    };
    struct Later {
        bool operator()(const ScheduledItem& a, const ScheduledItem& b) const {
            return a.at_ms != b.at_ms ? a.at_ms > b.at_ms : a.order > b.order;
        }
    };
    std::priority_queue<ScheduledItem, std::vector<ScheduledItem>, Later> _scheduled;
    uint64_t _scheduled_count = 0;
    int64_t _next_report_ms = 0;
};

/// Kafka's error codes the simulator answers with (names as Kafka spells them).
inline constexpr int32_t kafka_unknown_topic_or_partition = 3;
inline constexpr int32_t kafka_not_controller = 41;
inline constexpr int32_t kafka_reassignment_in_progress = 60;
inline constexpr int32_t kafka_preferred_leader_not_available = 80;
inline constexpr int32_t kafka_invalid_replica_assignment = 39;

}  // namespace ballast::sim
