#include "tools/driver/sim_capacity_check.h"

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "tools/driver/text_format.h"

namespace ballast::driver {

namespace {

/// A plan's sums and the checker's may round differently; the goals accept
/// with a margin of 1e-12 below the limit, so a break is a load more than
/// this far above it, never a last-bit difference.
constexpr double over_tolerance = 1e-9;

/// Indexes into CapacityCheck::Totals.
enum class Resource : uint8_t { replicas = 0, network_in, network_out, disk };
constexpr Resource resources[] = {Resource::replicas, Resource::network_in, Resource::network_out, Resource::disk};

const char* goal_of(Resource r) {
    switch (r) {
        case Resource::replicas: return "ReplicaCapacityGoal";
        case Resource::network_in: return "NetworkInCapacityGoal";
        case Resource::network_out: return "NetworkOutCapacityGoal";
        case Resource::disk: return "DiskCapacityGoal";
    }
    return "?";
}

double resource_capacity(const goals::Capacity& c, Resource r) {
    switch (r) {
        case Resource::replicas: return c.replicas_max;
        case Resource::network_in: return c.network_in_bytes_per_s;
        case Resource::network_out: return c.network_out_bytes_per_s;
        case Resource::disk: return c.disk_bytes;
    }
    return 0;
}

/// The goal's limit: replicas_max as it is; a load capacity x threshold.
double limit_of(const goals::Capacity& c, Resource r, double threshold) {
    return r == Resource::replicas ? resource_capacity(c, r) : resource_capacity(c, r) * threshold;
}

std::string amount(Resource r, double value) {
    char text[48];
    switch (r) {
        case Resource::replicas: std::snprintf(text, sizeof text, "%.0f replicas", value); break;
        case Resource::network_in:
        case Resource::network_out: return mib_per_s(value);
        case Resource::disk: std::snprintf(text, sizeof text, "%.1f MiB", value / (1 << 20)); break;
    }
    return text;
}

bool any_capacity(const goals::Capacity& c) {
    return c.replicas_max > 0 || c.network_in_bytes_per_s > 0 || c.network_out_bytes_per_s > 0 || c.disk_bytes > 0;
}

size_t at(Resource r) { return static_cast<size_t>(r); }

bool touches(const events::Action& a, int32_t broker_id) {
    const auto in = [&](const std::vector<int32_t>& list) {
        return std::find(list.begin(), list.end(), broker_id) != list.end();
    };
    return a.source_broker == broker_id || a.destination_broker == broker_id || in(a.replicas_before) ||
           in(a.replicas_after) || in(a.swap_replicas_before) || in(a.swap_replicas_after);
}

}  // namespace

CapacityCheck::CapacityCheck(const events::Config& config, sim::Flavor flavor)
    : _settings(actors::settings_from(config)), _flavor(flavor) {
    _active = any_capacity(_settings.default_capacity);
    for (const auto& [id, capacity] : _settings.broker_capacity) _active = _active || any_capacity(capacity);
}

bool CapacityCheck::fresh(int32_t broker_id, int64_t now_ms) const {
    // The planner's rule (goals/planning_state.cc).
    auto it = _brokers.find(broker_id);
    if (it == _brokers.end() || it->second.metrics_time_ms < 0) return false;
    return it->second.metrics_time_ms >= now_ms - _settings.planner.metrics_delay_ms;
}

void CapacityCheck::end(uint64_t action_id) {
    if (_inflight.erase(action_id) == 0) _ended.insert(action_id);
}

void CapacityCheck::observe_fed(const events::Event& e) {
    if (const auto* r = std::get_if<events::BrokerRegistered>(&e.body)) {
        _brokers[r->broker_id].alive = true;
    } else if (const auto* f = std::get_if<events::BrokerFenced>(&e.body)) {
        _brokers[f->broker_id].alive = false;
    } else if (const auto* u = std::get_if<events::BrokerUnfenced>(&e.body)) {
        _brokers[u->broker_id].alive = true;
    } else if (const auto* g = std::get_if<events::BrokerUnregistered>(&e.body)) {
        _brokers[g->broker_id].alive = false;
    } else if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) {
        Placement& p = _reported[{c->topic, c->partition}];
        p.replicas = c->replicas;
        // The router's rule: a leader outside the replicas is no leader.
        const bool listed = std::find(c->replicas.begin(), c->replicas.end(), c->leader) != c->replicas.end();
        p.leader = listed ? c->leader : -1;
    } else if (const auto* d = std::get_if<events::TopicDeleted>(&e.body)) {
        // A topic created again under the name starts with no load.
        const auto drop = [&](auto& by_key) {
            by_key.erase(by_key.lower_bound({d->topic, INT32_MIN}), by_key.upper_bound({d->topic, INT32_MAX}));
        };
        drop(_reported);
        drop(_samples);
        drop(_windows);
        drop(_sample_time_ms);
    } else if (const auto* m = std::get_if<events::PartitionMetrics>(&e.body)) {
        if (m->broker_id >= 0) {
            int64_t& t = _brokers[m->broker_id].metrics_time_ms;
            t = std::max(t, m->sample_time_ms);
        }
        for (const events::PartitionSample& s : m->samples) {
            assert(s.topic_index < m->topics.size());
            const Key key{m->topics[s.topic_index], s.partition};
            // A late sample never replaces a newer one (the partition actor's rule).
            auto [it, first] = _sample_time_ms.try_emplace(key, m->sample_time_ms);
            if (!first && m->sample_time_ms < it->second) continue;
            it->second = m->sample_time_ms;
            events::PartitionSample& load = _samples[key] = s;
            const actors::LoadWindowSettings& w = _settings.load_window;
            _windows[key].take(actors::LoadWindow::bucket_ms_of(w.window_ms), w.percentile, m->sample_time_ms,
                               s.bytes_in_per_s, s.bytes_out_per_s, &load.bytes_in_per_s, &load.bytes_out_per_s);
        }
    } else if (const auto* b = std::get_if<events::BrokerMetrics>(&e.body)) {
        for (const events::BrokerSample& s : b->samples) {
            int64_t& t = _brokers[s.broker_id].metrics_time_ms;
            t = std::max(t, b->sample_time_ms);
        }
    } else if (const auto* done = std::get_if<events::ActionCompleted>(&e.body)) {
        end(done->action_id);
    } else if (const auto* failed = std::get_if<events::ActionFailed>(&e.body)) {
        // The executor retries a retriable failure up to retries_max attempts.
        if (!failed->retriable || failed->attempt > _settings.executor.retries_max) end(failed->action_id);
    }
}

void CapacityCheck::observe_ended(const events::Event& e) {
    if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
        end(t->action_id);
    } else if (const auto* c = std::get_if<events::ActionCancelled>(&e.body)) {
        end(c->action_id);
    }
}

goals::Partition CapacityCheck::partition_load(const Key& key, size_t replica_count) const {
    goals::Partition p;
    p.replica_count = static_cast<uint16_t>(replica_count);
    if (auto it = _samples.find(key); it != _samples.end()) {
        p.load.bytes_in_per_s = it->second.bytes_in_per_s;
        p.load.bytes_out_per_s = it->second.bytes_out_per_s;
        p.load.size_bytes = static_cast<double>(it->second.size_bytes);
    }
    return p;
}

std::map<int32_t, CapacityCheck::Totals> CapacityCheck::totals(const std::map<Key, Placement>& placement) const {
    std::map<int32_t, Totals> out;
    for (const auto& [key, p] : placement) {
        const goals::Partition partition = partition_load(key, p.replicas.size());
        for (int32_t id : p.replicas) {
            const goals::Load l = goals::replica_load(partition, id == p.leader);
            Totals& t = out.try_emplace(id, Totals{}).first->second;
            t[at(Resource::replicas)] += 1;
            t[at(Resource::network_in)] += l.bytes_in_per_s;
            t[at(Resource::network_out)] += l.bytes_out_per_s;
            t[at(Resource::disk)] += l.size_bytes;
        }
    }
    return out;
}

std::map<CapacityCheck::Key, CapacityCheck::Placement> CapacityCheck::projected() const {
    // The scheduler's projection (actors/scheduler_actor.cc, project): the
    // target replicas, the leader kept if it stays, else the first target;
    // a target of another replication factor is not projected.
    std::map<Key, Placement> placement = _reported;
    const auto project = [&](const std::string& topic, int32_t partition, const std::vector<int32_t>& target,
                             bool leader_action) {
        auto it = placement.find({topic, partition});
        if (it == placement.end() || target.size() != it->second.replicas.size()) return;
        Placement& p = it->second;
        const bool leader_stays = std::find(target.begin(), target.end(), p.leader) != target.end();
        p.replicas = target;
        if (leader_action || !leader_stays) p.leader = target.empty() ? -1 : target[0];
    };
    for (const auto& [id, a] : _inflight) {
        project(a.topic, a.partition, a.replicas_after, a.kind == events::ActionKind::leader);
        if (a.kind == events::ActionKind::swap) project(a.swap_topic, a.swap_partition, a.swap_replicas_after, false);
    }
    return placement;
}

void CapacityCheck::apply_planned(std::map<Key, Placement>& placement, const events::Action& a) const {
    // The planner's candidates (goals/planning_state.cc): the destination
    // takes the source's slot, and leads if the source led; an offline
    // partition evacuated on shared storage reopens on its destination.
    const auto apply = [&](const std::string& topic, int32_t partition, const std::vector<int32_t>& after,
                           int32_t from, int32_t to) {
        auto it = placement.find({topic, partition});
        if (it == placement.end()) return;  // named by no metadata: the main checker reports it
        Placement& p = it->second;
        const bool revives = p.leader < 0 && a.goal == "Evacuation" && _flavor == sim::Flavor::automq;
        if (a.kind == events::ActionKind::leader || p.leader == from || (revives && a.kind == events::ActionKind::move)) {
            p.leader = to;
        }
        p.replicas = after;
    };
    apply(a.topic, a.partition, a.replicas_after, a.source_broker, a.destination_broker);
    if (a.kind == events::ActionKind::swap) {
        apply(a.swap_topic, a.swap_partition, a.swap_replicas_after, a.destination_broker, a.source_broker);
    }
}

std::vector<std::string> CapacityCheck::check(const events::ActionsPlanned& plan, int64_t now_ms) {
    std::vector<std::string> breaks;
    if (_active && !plan.actions.empty()) {
        _plans_checked++;
        std::map<Key, Placement> placement = projected();
        const std::map<int32_t, Totals> before = totals(placement);
        for (const events::Action& a : plan.actions) apply_planned(placement, a);
        const std::map<int32_t, Totals> after = totals(placement);
        const double threshold = _settings.planner.capacity_threshold;
        for (const auto& [id, now] : after) {
            auto broker = _brokers.find(id);
            if (broker == _brokers.end() || !broker->second.alive) continue;
            const goals::Capacity capacity = actors::capacity_of(_settings, id);
            const auto was_it = before.find(id);
            const Totals was = was_it == before.end() ? Totals{} : was_it->second;  // held nothing
            for (const Resource r : resources) {
                const double limit = limit_of(capacity, r, threshold);
                if (limit <= 0) continue;                                 // unknown: not judged
                if (r != Resource::replicas && !fresh(id, now_ms)) continue;  // load not known
                const double was_amount = was[at(r)];
                const double now_amount = now[at(r)];
                if (was_amount > limit || now_amount <= limit * (1 + over_tolerance)) continue;
                std::string by;
                for (const events::Action& a : plan.actions) {
                    if (touches(a, id)) by += (by.empty() ? "" : ", ") + describe_action(a);
                }
                breaks.push_back("capacity: round " + std::to_string(plan.round) + " takes broker " +
                                 std::to_string(id) + " over its " + goal_of(r) + " limit of " + amount(r, limit) +
                                 ": " + amount(r, was_amount) + " -> " + amount(r, now_amount) + ", by " + by);
            }
        }
    }
    for (const events::Action& a : plan.actions) {
        if (_ended.erase(a.action_id) == 0) _inflight[a.action_id] = a;
    }
    return breaks;
}

bool CapacityCheck::leaves_room(int64_t now_ms) const {
    if (!_active) return true;
    const std::map<Key, Placement> placement = projected();
    // The largest replica of any partition (as a leader: the most it can
    // weigh), and one replica: what one balancing move could add.
    Totals largest{1, 0, 0, 0};
    for (const auto& [key, p] : placement) {
        const goals::Load l = goals::replica_load(partition_load(key, p.replicas.size()), true);
        largest[at(Resource::network_in)] = std::max(largest[at(Resource::network_in)], l.bytes_in_per_s);
        largest[at(Resource::network_out)] = std::max(largest[at(Resource::network_out)], l.bytes_out_per_s);
        largest[at(Resource::disk)] = std::max(largest[at(Resource::disk)], l.size_bytes);
    }
    const double threshold = _settings.planner.capacity_threshold;
    for (const auto& [id, t] : totals(placement)) {
        auto broker = _brokers.find(id);
        if (broker == _brokers.end() || !broker->second.alive) continue;
        const goals::Capacity capacity = actors::capacity_of(_settings, id);
        for (const Resource r : resources) {
            const double limit = limit_of(capacity, r, threshold);
            if (limit <= 0 || (r != Resource::replicas && !fresh(id, now_ms))) continue;
            if (t[at(r)] + largest[at(r)] > limit) return false;
        }
    }
    return true;
}

}  // namespace ballast::driver
