#pragma once

/// What a simulated run looks like for people: a timeline of what happened
/// (broker changes, rounds with actions, outcomes), broker load tables, the
/// partition table in `kafka-topics --describe` shape, and a summary.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "adapters/sim/sim_cluster.h"
#include "tools/driver/sim_runner.h"

namespace ballast::tools {

/// Prints the notable things of each step as they happen (`out` null:
/// prints nothing), and keeps the counts the summary needs.
class TimelinePrinter {
public:
    explicit TimelinePrinter(std::FILE* out, size_t actions_listed_max = 8)
        : _out(out), _actions_listed_max(actions_listed_max) {}
    void step(const driver::SimStep& step);

    uint64_t moves_completed() const { return _moves_completed; }
    uint64_t actions_failed() const { return _actions_failed; }
    int64_t first_action_ms() const { return _first_action_ms; }
    int64_t last_completion_ms() const { return _last_completion_ms; }
    /// The final loads (set at every step).
    const std::vector<sim::BrokerLoad>& final_loads() const { return _loads; }

private:
    std::FILE* _out;
    size_t _actions_listed_max;
    uint64_t _moves_completed = 0;
    uint64_t _actions_failed = 0;
    int64_t _first_action_ms = -1;
    int64_t _last_completion_ms = -1;
    std::vector<sim::BrokerLoad> _loads;
};

/// One line per broker: state, in/out MiB/s, replicas, leaders.
std::string format_broker_loads(const std::vector<sim::BrokerLoad>& loads);

/// max / mean of the running brokers' bytes in (out: `out` true); 0 when
/// there is no traffic.
double load_spread(const std::vector<sim::BrokerLoad>& loads, bool out);

/// Kafka's own shape: "Topic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2".
std::string describe_topic(const sim::SimCluster& cluster, const std::string& topic);

std::string format_summary(const driver::SimRunSummary& summary, const TimelinePrinter& timeline);

}  // namespace ballast::tools
