#pragma once

/// A simulated cluster's scenario: the brokers, the topics and their
/// traffic, the timed events (stop broker 3 at 60 s, add broker 4, change a
/// topic's traffic), the faults to inject, and the engine settings to run
/// with. Read from JSON or TOML files (`ballast sim --scenario FILE`) or
/// drawn from a seed (`random_scenario`).
///
/// Every time is in ms of simulated time from the start of the run.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "events/result.h"

namespace ballast::sim {

enum class Flavor : uint8_t {
    apache,  // a replica is re-created by copying from a live one, at a throttle rate
    automq,  // shared storage: a move takes ~1.5 s whatever the size, even off a stopped broker
};

enum class ProfileKind : uint8_t { constant, step, ramp, diurnal, random_walk };

/// How a partition's produce rate changes over time. Consumers read
/// `fanout` times what is produced; a message is `record_bytes` long.
struct TrafficProfile {
    ProfileKind kind = ProfileKind::constant;
    double bytes_in_per_s = 0;     // constant; before the step; at the ramp's start; diurnal mean; walk start
    double to_bytes_in_per_s = 0;  // after the step; at the ramp's end
    int64_t at_ms = 0;             // step time; ramp start
    int64_t until_ms = 0;          // ramp end
    int64_t period_ms = 86'400'000;  // diurnal
    double amplitude = 0.5;          // diurnal: rate x (1 + amplitude x sin)
    double walk_sigma = 0.05;        // random walk: log-rate step per second
    double fanout = 1;
    double record_bytes = 1024;
    bool operator==(const TrafficProfile&) const = default;
};

/// A broker's own capacities, each -1 when the scenario does not give it
/// (the engine's default for the resource applies). They reach the engine
/// as `ballast.broker.capacity.overrides` elements (tools/driver/sim_runner.h).
struct BrokerCapacity {
    double network_in_bytes_per_s = -1;
    double network_out_bytes_per_s = -1;
    double disk_bytes = -1;
    int32_t replicas_max = -1;
    bool given() const {
        return network_in_bytes_per_s >= 0 || network_out_bytes_per_s >= 0 || disk_bytes >= 0 || replicas_max >= 0;
    }
    bool operator==(const BrokerCapacity&) const = default;
};

struct BrokerSpec {
    int32_t id = -1;
    std::string rack;
    bool running = true;  // false: defined but not started (start it with an event)
    BrokerCapacity capacity;
    bool operator==(const BrokerSpec&) const = default;
};

/// How a topic's traffic is split over its partitions when the scenario
/// gives no explicit `partition_weights`: evenly, or by weights drawn from
/// the scenario's seed and the topic's name (`skew_weights`).
struct TrafficSkew {
    enum class Kind : uint8_t {
        none,       // evenly
        zipf,       // the partition of rank k (a seeded shuffle) weighs 1 / k^s
        lognormal,  // each partition weighs exp(sigma x N(0, 1)), drawn independently
    };
    Kind kind = Kind::none;
    double s = 1;      // zipf exponent
    double sigma = 1;  // lognormal: standard deviation of the log-weight
    bool operator==(const TrafficSkew&) const = default;
};

struct TopicSpec {
    std::string name;
    int32_t partitions = 1;
    int32_t replication_factor = 1;
    /// Explicit replica lists, one per partition (leader first). Empty:
    /// round robin over the running brokers, as Kafka places a new topic;
    /// rack-aware when those brokers span two or more racks (each
    /// partition's replicas on distinct racks while racks remain).
    std::vector<std::vector<int32_t>> assignment;
    /// The whole topic's traffic; split evenly over its partitions unless
    /// `partition_weights` or `skew` say otherwise.
    TrafficProfile traffic;
    /// Per partition, a weight on its share of the topic's traffic (empty:
    /// all equal, or by `skew`). Normalized: the topic's total stays `traffic`.
    std::vector<double> partition_weights;
    /// Drawn weights instead of explicit ones (a file gives one or the other).
    TrafficSkew skew;
    double initial_size_bytes = 0;  // of each partition at the start
    /// Kafka's retention.bytes: a partition stops growing here (old segments
    /// are deleted as new ones are written); 0: it grows without bound.
    double retention_bytes = 0;
    bool operator==(const TopicSpec&) const = default;
};

/// Which partitions a traffic change applies to.
struct PartitionSelector {
    std::string topic;
    std::vector<int32_t> partitions;  // empty: all of the topic (or those led_by)
    int32_t led_by = -1;              // >= 0: those whose leader is this broker at that time
    bool operator==(const PartitionSelector&) const = default;
};

struct TimedEvent {
    enum class Kind : uint8_t {
        stop_broker,    // the process stops: fenced after the session timeout
        start_broker,   // a stopped broker starts again, or a defined one starts
        fence_broker,   // the controller fences a running broker (cut off from it): the process runs on
        unfence_broker, // the controller hears from it again: unfenced, its replicas rejoin
        add_broker,     // a new broker registers
        remove_broker,  // a stopped broker is unregistered (decommissioned)
        scale_traffic,  // multiply the selected partitions' rates by `scale`
        set_traffic,    // give the selected partitions a new profile (the topic total split over them)
        create_topic,
        delete_topic,
        drain_broker,   // an operator command
        pause,
        resume,
    };
    int64_t at_ms = 0;
    Kind kind = Kind::stop_broker;
    int32_t broker_id = -1;   // brokers, drain
    BrokerSpec broker;        // add_broker
    PartitionSelector select; // traffic
    double scale = 1;         // scale_traffic
    TrafficProfile profile;   // set_traffic
    TopicSpec topic;          // create_topic; delete_topic uses topic.name
    bool operator==(const TimedEvent&) const = default;
};

/// Faults, each drawn from the scenario's seed.
struct Faults {
    double submit_failure_ratio = 0;   // a submitted action fails (retriable)
    double stuck_ratio = 0;            // a submitted move never finishes (the engine times it out)
    int64_t admin_delay_ms = 0;        // extra time before any admin call takes effect
    double metrics_loss_ratio = 0;     // a broker's report is lost
    double metrics_late_ratio = 0;     // a broker's report arrives late ...
    int64_t metrics_late_by_ms = 15'000;  // ... by this much
    /// Engine crashes: from each of these times the engine is crashed at an
    /// actor message drawn from the seed (tools/driver/sim_runner.h), no
    /// draining, and recovered from its journal.
    std::vector<int64_t> engine_kills_ms;
    /// Each crash is also a power cut: every journal write not yet synced
    /// is lost (store::PowerCutFileSystem).
    bool engine_kills_cut_power = false;
    /// The faults above (not the kills) stop at this time; -1: never.
    int64_t until_ms = -1;
    bool active(int64_t now_ms) const { return until_ms < 0 || now_ms < until_ms; }
    bool operator==(const Faults&) const = default;
};

struct Scenario {
    std::string name;
    std::string description;
    Flavor flavor = Flavor::automq;
    uint64_t seed = 1;
    int64_t duration_ms = 600'000;
    int64_t tick_interval_ms = 1'000;
    int64_t report_interval_ms = 10'000;  // AutoMQ's metrics reporter default
    int64_t session_timeout_ms = 9'000;   // a stopped broker is fenced after this
    int64_t automq_move_ms = 1'500;
    double apache_throttle_bytes_per_s = 50.0 * (1 << 20);
    int64_t leader_election_ms = 200;
    std::vector<BrokerSpec> brokers;
    std::vector<TopicSpec> topics;
    std::vector<TimedEvent> events;  // sorted by at_ms (stable)
    Faults faults;
    /// Engine settings, "key" -> "value", applied before any --set.
    std::map<std::string, std::string> settings;
    bool operator==(const Scenario&) const = default;
};

/// "10m", "90s", "1500ms", "1.5s", "2h", or a bare number of ms.
events::Result<int64_t> parse_duration_ms(std::string_view text);

/// Parses a scenario from JSON text; `origin` (a file name) prefixes every
/// error, with the path of the field that is wrong (events counted in file
/// order): "node-change.json: events[2].stop_broker: broker 7 is not defined".
events::Result<Scenario> parse_scenario_json(std::string_view text, const std::string& origin);

/// Parses a scenario from TOML text: the same fields as JSON (tables for
/// objects, `[[brokers]]` / `[[topics]]` / `[[events]]` for the lists), the
/// same values and errors, and the line where TOML knows it:
/// "node-change.toml:14: events[1].stop_broker: broker 7 is not defined";
/// a syntax error gives line and column.
events::Result<Scenario> parse_scenario_toml(std::string_view text, const std::string& origin);

/// The weights `skew` gives a topic's partitions, normalized to sum to 1:
/// a pure function of the scenario's seed, the topic's name and the
/// partition count (adding a topic changes no other topic's draws), the
/// same on every platform (the draws use no standard distribution).
/// `kind == none`: all equal.
std::vector<double> skew_weights(const TrafficSkew& skew, uint64_t seed, std::string_view topic, int32_t partitions);

/// Reads a scenario file, JSON or TOML by its extension (.json, .toml; any
/// other is an error that names the file).
events::Result<Scenario> load_scenario_file(const std::string& path);

/// Checks what the file's types cannot: ids unique, brokers known, replica
/// lists distinct and on defined brokers, times inside the run. `events`
/// must be sorted by time (as every parser and `random_scenario` leave it).
events::Status validate(const Scenario& scenario);

const char* flavor_name(Flavor flavor);

}  // namespace ballast::sim
