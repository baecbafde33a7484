#include "actors/engine_config.h"
#include <algorithm>

namespace ballast::actors {

EngineSettings settings_from(const events::Config& c) {
    EngineSettings s;
    goals::PlannerConfig& p = s.planner;
    p.goals.clear();
    for (const std::string& name : c.get_goals()) {
        // The config accepts exactly the planner's goal names.
        const std::optional<goals::GoalKind> kind = goals::goal_from_name(name);
        assert(kind.has_value());
        p.goals.push_back(*kind);
    }
    p.flavor = c.get_string("ballast.cluster.flavor") == "automq" ? goals::Flavor::automq
                                                                   : goals::Flavor::apache;
    const std::string prefix = "autobalancer.controller.";
    p.network_in_avg_deviation = c.get_double(prefix + "network.in.distribution.detect.avg.deviation");
    p.network_out_avg_deviation = c.get_double(prefix + "network.out.distribution.detect.avg.deviation");
    p.network_in_detect_threshold_bytes_per_s =
        static_cast<double>(c.get_int64(prefix + "network.in.usage.distribution.detect.threshold"));
    p.network_out_detect_threshold_bytes_per_s =
        static_cast<double>(c.get_int64(prefix + "network.out.usage.distribution.detect.threshold"));
    p.network_in_trivial_change_ratio = c.get_double(prefix + "network.in.trivial.change.ratio");
    p.network_out_trivial_change_ratio = c.get_double(prefix + "network.out.trivial.change.ratio");
    p.capacity_threshold = c.get_double("ballast.capacity.threshold");
    p.broker_failure_grace_ms = c.get_int64("ballast.broker.failure.grace.ms");
    p.broker_failure_grace_max_ms = c.get_int64("ballast.broker.failure.grace.max.ms");
    p.broker_flap_fences = static_cast<uint32_t>(c.get_int32("ballast.broker.flap.fences"));
    p.broker_flap_window_ms = c.get_int64("ballast.broker.flap.window.ms");
    p.broker_stable_ms = c.get_int64("ballast.broker.stable.ms");
    p.metrics_delay_ms = c.get_int64(prefix + "metrics.delay.ms");
    p.partition_cooldown_ms = c.get_int64("ballast.partition.cooldown.ms");
    p.return_block_ms = c.get_int64("ballast.partition.return.block.ms");
    const std::vector<std::string>& kinds = c.get_string_list("ballast.planner.actions");
    p.swaps_allowed = std::find(kinds.begin(), kinds.end(), "swap") != kinds.end();
    p.leader_changes_allowed = std::find(kinds.begin(), kinds.end(), "leader") != kinds.end();
    const auto concurrency = static_cast<uint32_t>(c.get_int32(prefix + "execution.concurrency"));
    // Plan a few rounds ahead of what the gate lets through, bounded.
    // A round need not propose more than a few gate-fulls: the rest would be
    // planned again on fresher state anyway. ballast.planner.actions.max
    // raises (or lowers) it, for a dry run that wants the whole plan.
    const int32_t actions_max = c.get_int32("ballast.planner.actions.max");
    p.actions_max = actions_max > 0 ? static_cast<uint32_t>(actions_max) : std::min<uint32_t>(concurrency * 4, 100'000);

    goals::GateConfig& g = s.gate;
    g.concurrency_max = concurrency;
    g.broker_inflight_max = static_cast<uint32_t>(c.get_int32("ballast.broker.max.inflight.moves"));
    g.execution_interval_ms = c.get_int64(prefix + "execution.interval.ms");
    g.partition_cooldown_ms = p.partition_cooldown_ms;
    // A plan spreads over brokers instead of queuing behind one: no broker
    // takes part in more of its actions than the gate lets run on it.
    p.broker_actions_max = g.broker_inflight_max;

    s.executor.action_timeout_ms = c.get_int64("ballast.action.timeout.ms");
    // A move that cannot catch up before the executor would time it out is
    // not planned (goals/copy_estimate.h).
    p.replication_throttle_bytes_per_s = c.get_double("ballast.replication.throttle.bytes.per.s");
    p.copy_time_max_ms = s.executor.action_timeout_ms;
    s.executor.retries_max = static_cast<uint32_t>(c.get_int32("ballast.action.retries.max"));
    s.executor.retry_backoff_ms = c.get_int64("ballast.action.retry.backoff.ms");
    // A move that hung for a whole timeout is not tried again sooner than it
    // took to fail (see the scheduler's backoff).
    s.executor.hold_base_ms = std::max(p.partition_cooldown_ms, s.executor.action_timeout_ms);
    s.executor.backoff_memory_ms = 64 * s.executor.hold_base_ms;

    s.execution_enabled = c.get_bool(prefix + "enable");
    s.load_window.window_ms = c.get_int64("ballast.metrics.window.ms");
    const std::string& aggregate = c.get_string("ballast.metrics.window.aggregate");
    s.load_window.percentile = aggregate == "mean" ? 0 : aggregate == "max" ? 100 : std::stoi(aggregate.substr(1));
    s.detect_interval_ms = c.get_int64(prefix + "anomaly.detect.interval.ms");
    s.decision_delay_ms = c.get_int64("ballast.planner.decision.delay.ms");
    s.snapshot_interval_events = static_cast<uint64_t>(c.get_int64("ballast.snapshot.interval.events"));
    s.snapshot_interval_samples = static_cast<uint64_t>(c.get_int64("ballast.snapshot.interval.samples"));
    s.retention_ms = c.get_int64("ballast.journal.retention.ms");
    s.retention_bytes = static_cast<uint64_t>(c.get_int64("ballast.journal.retention.bytes"));
    s.snapshot_spacing_ms = c.get_int64("ballast.journal.snapshot.spacing.ms");
    s.default_capacity.network_in_bytes_per_s =
        c.get_double("ballast.broker.capacity.network.in.bytes.per.s");
    s.default_capacity.network_out_bytes_per_s =
        c.get_double("ballast.broker.capacity.network.out.bytes.per.s");
    s.default_capacity.disk_bytes = c.get_double("ballast.broker.capacity.disk.bytes");
    s.default_capacity.replicas_max = c.get_int32("ballast.broker.capacity.replicas.max");
    for (const std::string& element : c.get_string_list("ballast.broker.capacity.overrides")) {
        // Checked when the value was set: every element parses.
        const events::Result<events::CapacityOverride> o = events::parse_capacity_override(element);
        assert(o.ok());
        goals::Capacity capacity = s.default_capacity;
        if (auto it = s.broker_capacity.find(o->broker_id); it != s.broker_capacity.end()) {
            capacity = it->second;  // listed twice: the later fields win
        }
        if (o->network_in_bytes_per_s >= 0) capacity.network_in_bytes_per_s = o->network_in_bytes_per_s;
        if (o->network_out_bytes_per_s >= 0) capacity.network_out_bytes_per_s = o->network_out_bytes_per_s;
        if (o->disk_bytes >= 0) capacity.disk_bytes = o->disk_bytes;
        if (o->replicas_max >= 0) capacity.replicas_max = o->replicas_max;
        s.broker_capacity[o->broker_id] = capacity;
    }
    s.excluded_broker_ids = c.get_int_list(prefix + "exclude.broker.ids");
    s.excluded_topics = c.get_string_list(prefix + "exclude.topics");
    return s;
}

goals::Capacity capacity_of(const EngineSettings& settings, int32_t id) {
    const auto it = settings.broker_capacity.find(id);
    return it == settings.broker_capacity.end() ? settings.default_capacity : it->second;
}

std::vector<std::string> apply_config_change(events::Config& config,
                                             const events::ConfigChanged& change,
                                             const std::vector<std::string>& overrides) {
    std::vector<std::string> problems;
    for (const events::ConfigEntry& entry : change.entries) {
        if (entry.reset) {
            const events::KeySpec* spec = events::find_key(entry.key);
            if (!spec) {
                problems.push_back("unknown config key '" + entry.key + "'");
                continue;
            }
            (void)config.set(entry.key, spec->default_value, "default");
            continue;
        }
        if (events::Status status = config.set(entry.key, entry.value, "ConfigChanged"); !status) {
            problems.push_back(status.error().message);
        }
    }
    for (const std::string& assignment : overrides) {
        if (events::Status status = config.apply_override(assignment); !status) {
            problems.push_back(status.error().message);
        }
    }
    return problems;
}

events::ConfigChanged full_config_event(const events::Config& config) {
    events::ConfigChanged change;
    for (auto& [key, value] : config.journal_entries()) change.entries.push_back({key, value, false});
    return change;
}

}  // namespace ballast::actors
