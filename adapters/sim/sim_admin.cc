/// The engine's actions, carried out as a Kafka cluster would: MOVE and SWAP
/// as partition reassignments, LEADER as a replica reorder plus a preferred
/// leader election. Outcomes come back as events in time order.

#include <algorithm>
#include <cassert>
#include <set>

#include "adapters/sim/sim_cluster.h"
#include "adapters/sim/sim_port.h"

namespace ballast::sim {

namespace {

/// Setting up a reassignment (controller round trips, fetchers) before any
/// byte moves, on apache.
constexpr int64_t apache_move_setup_ms = 500;

}  // namespace

int32_t SimCluster::find_partition(const std::string& topic, int32_t partition) const {
    auto it = _topic_index.find(topic);
    if (it == _topic_index.end()) return -1;
    for (uint32_t index : _topics[it->second].partitions) {
        if (_partitions[index].partition == partition) return static_cast<int32_t>(index);
    }
    return -1;
}

void SimCluster::take_requests() {
    for (Request& request : _port->take()) {
        if (request.kind == Request::Kind::cancel) {
            cancel(request.action);
            continue;
        }
        if (request.kind == Request::Kind::adopt) {
            // As Kafka's port finds it: one the cluster runs goes on to its
            // outcome; one it finished has its outcome reported again (the
            // engine may have crashed before journaling it); one it never
            // got (the crash came between the intent and the admin call) is
            // reported not started.
            const uint64_t id = request.action.action_id;
            if (_running.count(id)) continue;
            if (!_received.count({id, request.attempt})) {
                fail(id, request.attempt, actors::not_started_code, actors::not_started_name,
                     "adopted after a restart, never submitted", false, _now_ms);
            } else if (auto outcome = _outcomes.find(id); outcome != _outcomes.end()) {
                emit(_now_ms, outcome->second);
            }
            continue;
        }
        _received.insert({request.action.action_id, request.attempt});
        _counters.submitted++;
        if (_scenario.faults.admin_delay_ms > 0 && _scenario.faults.active(_now_ms)) {
            schedule(_now_ms + _scenario.faults.admin_delay_ms, [this, request] { begin(request); });
        } else {
            begin(request);
        }
    }
}

void SimCluster::fail(uint64_t action_id, uint32_t attempt, int32_t code, const std::string& name,
                      const std::string& message, bool retriable, int64_t time_ms) {
    _counters.failed++;
    emit(time_ms, events::ActionFailed{action_id, code, name, message, retriable, attempt});
}

/// The time a new replica takes to copy the partition from its leader
/// (apache): the bytes at the throttle rate, while the producers keep
/// writing. Too slow a throttle never catches up: the move hangs until the
/// engine times it out, as it would on a real cluster.
int64_t SimCluster::copy_time_ms(const SimPartition& p) const {
    const double catch_up_bytes_per_s = _scenario.apache_throttle_bytes_per_s - bytes_in_per_s(p);
    if (catch_up_bytes_per_s <= 0) return INT64_MAX / 4;
    return apache_move_setup_ms + static_cast<int64_t>(1000 * p.size_bytes / catch_up_bytes_per_s);
}

void SimCluster::begin(const Request& request) {
    const events::Action& a = request.action;
    const int64_t t = _now_ms;
    const Faults& faults = _scenario.faults;
    const bool faulty = faults.active(t);
    if (faulty && faults.submit_failure_ratio > 0 &&
        std::uniform_real_distribution<double>(0, 1)(_random) < faults.submit_failure_ratio) {
        fail(a.action_id, request.attempt, kafka_not_controller, "NOT_CONTROLLER",
             "injected: the controller moved; retry", true, t);
        return;
    }
    struct Target {
        int32_t index;
        std::vector<int32_t> replicas;
    };
    std::vector<Target> targets{{find_partition(a.topic, a.partition), a.replicas_after}};
    if (a.kind == events::ActionKind::swap) {
        targets.push_back({find_partition(a.swap_topic, a.swap_partition), a.swap_replicas_after});
    }
    for (const Target& target : targets) {
        if (target.index < 0) {
            fail(a.action_id, request.attempt, kafka_unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION",
                 "no partition " + a.topic + "-" + std::to_string(a.partition), false, t);
            return;
        }
        const SimPartition& p = _partitions[static_cast<size_t>(target.index)];
        if (p.reassignment != 0 && p.reassignment != a.action_id) {
            fail(a.action_id, request.attempt, kafka_reassignment_in_progress, "REASSIGNMENT_IN_PROGRESS",
                 _topics[p.topic].name + "-" + std::to_string(p.partition) + " is being moved by action " +
                     std::to_string(p.reassignment),
                 false, t);
            return;
        }
        std::set<int32_t> distinct(target.replicas.begin(), target.replicas.end());
        bool known = !target.replicas.empty() && distinct.size() == target.replicas.size();
        for (int32_t id : target.replicas) {
            const SimBroker* b = broker(id);
            known = known && b && b->state != BrokerState::defined && b->state != BrokerState::unregistered;
        }
        if (!known) {
            fail(a.action_id, request.attempt, kafka_invalid_replica_assignment, "INVALID_REPLICA_ASSIGNMENT",
                 "target replicas must be distinct registered brokers", false, t);
            return;
        }
    }
    if (_running.count(a.action_id)) return;  // already under way (a resubmission after a restart)

    if (a.kind == events::ActionKind::leader) {
        // Reorder (a reassignment to the same set completes at once), then
        // elect the preferred leader.
        const int32_t index = targets[0].index;
        const std::vector<int32_t> order = targets[0].replicas;
        const uint64_t id = a.action_id;
        const uint32_t attempt = request.attempt;
        schedule(t + _scenario.leader_election_ms, [this, index, order, id, attempt] {
            SimPartition& p = _partitions[static_cast<size_t>(index)];
            if (p.deleted) {
                fail(id, attempt, kafka_unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION",
                     "the topic was deleted", false, _now_ms);
                return;
            }
            if (!actors::same_replica_set(p.replicas, order)) {
                fail(id, attempt, kafka_invalid_replica_assignment, "INVALID_REPLICA_ASSIGNMENT",
                     "a leader change must keep the replica set", false, _now_ms);
                return;
            }
            const int32_t preferred = order[0];
            if (!is_running(preferred) || !actors::lists_broker(p.isr, preferred)) {
                fail(id, attempt, kafka_preferred_leader_not_available, "PREFERRED_LEADER_NOT_AVAILABLE",
                     "broker " + std::to_string(preferred) + " is not alive in the ISR", false, _now_ms);
                return;
            }
            p.replicas = order;
            if (p.leader != preferred) {
                p.leader = preferred;
                p.leader_epoch++;
            }
            emit_partition(_now_ms, p);
            _counters.completed++;
            emit(_now_ms, events::ActionCompleted{id});
        });
        return;
    }

    Running running;
    running.action = a;
    running.attempt = request.attempt;
    running.started_ms = t;
    running.stuck = faulty && faults.stuck_ratio > 0 &&
                    std::uniform_real_distribution<double>(0, 1)(_random) < faults.stuck_ratio;
    bool all_there = true;
    for (const Target& target : targets) {
        SimPartition& p = _partitions[static_cast<size_t>(target.index)];
        Running::Part part;
        part.partition = static_cast<uint32_t>(target.index);
        part.original = p.replicas;
        part.target = target.replicas;
        part.ready_ms = t + (_scenario.flavor == Flavor::automq ? _scenario.automq_move_ms : copy_time_ms(p));
        all_there = all_there && p.replicas == target.replicas;
        running.parts.push_back(part);
    }
    if (all_there) {
        // Kafka completes a reassignment to the replicas a partition has at once.
        _counters.completed++;
        emit(t, events::ActionCompleted{a.action_id});
        return;
    }
    int64_t ready_ms = t;
    for (const Running::Part& part : running.parts) {
        _partitions[part.partition].reassignment = a.action_id;
        ready_ms = std::max(ready_ms, part.ready_ms);
    }
    const uint64_t id = a.action_id;
    _running.emplace(id, std::move(running));
    if (ready_ms < INT64_MAX / 4) schedule(ready_ms, [this, id] { try_complete(id); });
}

/// A part completes once its time has come and the cluster can finish it:
/// every new replica's broker is up, and (apache) a live leader to copy
/// from. A part that cannot is tried again at every step.
void SimCluster::try_complete(uint64_t action_id) {
    auto it = _running.find(action_id);
    if (it == _running.end() || it->second.stuck) return;
    Running& running = it->second;
    for (Running::Part& part : running.parts) {
        if (part.done || part.ready_ms > _now_ms) continue;
        SimPartition& p = _partitions[part.partition];
        bool possible = true;
        for (int32_t id : part.target) {
            if (!actors::lists_broker(part.original, id)) possible = possible && is_running(id);
        }
        if (_scenario.flavor == Flavor::apache) possible = possible && p.leader >= 0 && is_running(p.leader);
        if (!possible) continue;
        const int32_t old_leader = p.leader;
        p.replicas = part.target;
        std::vector<int32_t> isr;
        for (int32_t id : part.target) {
            if (is_running(id)) isr.push_back(id);
        }
        if (isr.empty()) isr.push_back(part.target[0]);  // automq: reopens where it lands
        p.isr = isr;
        if (old_leader >= 0 && actors::lists_broker(p.replicas, old_leader) && is_running(old_leader)) {
            p.leader = old_leader;
        } else {
            p.leader = elect_leader(p);
            p.leader_epoch++;
        }
        p.reassignment = 0;
        part.done = true;
        _counters.partitions_moved++;
        emit_partition(_now_ms, p);
    }
    const bool all_done = std::all_of(running.parts.begin(), running.parts.end(),
                                      [](const Running::Part& part) { return part.done; });
    if (!all_done) return;
    _counters.completed++;
    emit(_now_ms, events::ActionCompleted{action_id});
    _running.erase(it);
}

/// Kafka's cancel (a reassignment to null): the replicas being added are
/// dropped and the partition keeps its original replicas. Parts already
/// finished stay finished.
void SimCluster::cancel(const events::Action& action) {
    auto it = _running.find(action.action_id);
    if (it == _running.end()) return;
    for (const Running::Part& part : it->second.parts) {
        if (!part.done) _partitions[part.partition].reassignment = 0;
    }
    _counters.cancelled++;
    _running.erase(it);
}

}  // namespace ballast::sim
