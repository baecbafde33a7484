#include "tools/driver/sim_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/driver/journal_replay.h"
#include "tools/driver/text_format.h"

namespace ballast::driver {

namespace {

/// The run must end with this long free of actions: the engine has settled.
constexpr int64_t settle_window_ms = 120'000;

bool is_hard_goal_name(const std::string& goal) {
    return goal == "Evacuation" || goal == "RackAwareGoal" || goal == "ReplicaCapacityGoal" ||
           goal == "NetworkInCapacityGoal" || goal == "NetworkOutCapacityGoal" || goal == "DiskCapacityGoal";
}

std::string partition_name(const std::string& topic, int32_t partition) {
    return topic + "-" + std::to_string(partition);
}

}  // namespace

SimChecker::SimChecker(const sim::Scenario& scenario, const events::Config& config, int64_t quiet_from_ms)
    : _scenario(scenario),
      _capacity(config, scenario.flavor),
      _settings(actors::settings_from(config)),
      _cooldown_ms(config.get_int64("ballast.partition.cooldown.ms")),
      _grace_ms(config.get_int64("ballast.broker.failure.grace.ms")),
      _concurrency_max(static_cast<uint32_t>(config.get_int32("autobalancer.controller.execution.concurrency"))),
      _broker_inflight_max(static_cast<uint32_t>(config.get_int32("ballast.broker.max.inflight.moves"))),
      _avg_deviation_in(config.get_double("autobalancer.controller.network.in.distribution.detect.avg.deviation")),
      _avg_deviation_out(config.get_double("autobalancer.controller.network.out.distribution.detect.avg.deviation")),
      _settle_window_ms(settle_window_ms),
      _quiet_from_ms(quiet_from_ms),
      _return_block_ms(config.get_int64("ballast.partition.return.block.ms")) {
    _verdict.scenario = scenario.name;
    for (const sim::BrokerSpec& b : scenario.brokers) _racks[b.id] = b.rack;
    for (const sim::TimedEvent& e : scenario.events) {
        if (e.kind == sim::TimedEvent::Kind::add_broker) _racks[e.broker.id] = e.broker.rack;
    }
    std::set<std::string> racks;
    for (const auto& [id, rack] : _racks) racks.insert(rack);
    _multi_rack = racks.size() > 1;
    // Topics read at different fanouts couple bytes in and out: a placement
    // that puts both in their bands need not exist (the greedy goals, in
    // guarding each other, then stop short). Balance is judged only where
    // every topic has the same fanout.
    std::set<double> fanouts;
    for (const sim::TopicSpec& t : scenario.topics) fanouts.insert(t.traffic.fanout);
    for (const sim::TimedEvent& e : scenario.events) {
        if (e.kind == sim::TimedEvent::Kind::create_topic) fanouts.insert(e.topic.traffic.fanout);
        if (e.kind == sim::TimedEvent::Kind::set_traffic) fanouts.insert(e.profile.fanout);
    }
    if (fanouts.size() > 1) _spread_possible = false;
}

bool SimChecker::alive(int32_t id) const {
    auto it = _brokers.find(id);
    return it != _brokers.end() && it->second.registered && it->second.down_since_ms < 0;
}

bool SimChecker::dead(int32_t id, int64_t now_ms) const {
    auto it = _brokers.find(id);
    if (it == _brokers.end() || !it->second.registered) return true;
    return it->second.down_since_ms >= 0 && now_ms - it->second.down_since_ms >= _grace_ms;
}

goals::Broker SimChecker::broker_as_of(int32_t id, int64_t time_ms, bool inclusive) const {
    // The broker actor's rule (goals::change_liveness), replayed up to `time_ms`.
    goals::Broker b;
    b.id = id;
    auto it = _liveness_changes.find(id);
    if (it == _liveness_changes.end()) return b;
    for (const LivenessChange& c : it->second) {
        if (c.time_ms > time_ms || (!inclusive && c.time_ms == time_ms)) break;
        goals::change_liveness(b.liveness, b.liveness_changed_ms, b.fenced_ms, c.liveness, c.time_ms);
    }
    return b;
}

void SimChecker::fail(int64_t time_ms, const std::string& what) {
    // A broken invariant usually breaks many times in a row: keep the first ones.
    constexpr size_t breaks_kept_max = 20;
    if (_verdict.breaks.size() < breaks_kept_max) _verdict.breaks.push_back(format_time_ms(time_ms) + " " + what);
}

void SimChecker::step(const SimStep& step) {
    // Partitions an engine action finished on this step: their metadata
    // changes are the engine's doing (a failover's are not).
    std::set<std::pair<std::string, int32_t>> acted_on;
    for (const events::Event& e : step.fed) {
        const auto* done = std::get_if<events::ActionCompleted>(&e.body);
        if (!done) continue;
        auto it = _actions.find(done->action_id);
        if (it == _actions.end()) continue;
        acted_on.insert({it->second.topic, it->second.partition});
        if (it->second.kind == events::ActionKind::swap) acted_on.insert({it->second.swap_topic, it->second.swap_partition});
    }
    _last_step_ms = step.now_ms;
    for (const events::Event& e : step.fed) {
        _capacity.observe_fed(e);
        if (const auto* r = std::get_if<events::BrokerRegistered>(&e.body)) {
            _brokers[r->broker_id] = {true, -1};
            _liveness_changes[r->broker_id].push_back({e.time_ms, goals::Liveness::alive});
        } else if (const auto* f = std::get_if<events::BrokerFenced>(&e.body)) {
            Liveness& l = _brokers[f->broker_id];
            if (l.down_since_ms < 0) l.down_since_ms = e.time_ms;
            _liveness_changes[f->broker_id].push_back({e.time_ms, goals::Liveness::fenced});
        } else if (const auto* u = std::get_if<events::BrokerUnfenced>(&e.body)) {
            _brokers[u->broker_id].down_since_ms = -1;
            _liveness_changes[u->broker_id].push_back({e.time_ms, goals::Liveness::alive});
        } else if (const auto* g = std::get_if<events::BrokerUnregistered>(&e.body)) {
            Liveness& l = _brokers[g->broker_id];
            if (l.down_since_ms < 0) l.down_since_ms = e.time_ms;
            _liveness_changes[g->broker_id].push_back({e.time_ms, goals::Liveness::gone});
        } else if (const auto* c = std::get_if<events::OperatorCommand>(&e.body)) {
            if (c->command == events::CommandKind::drain_brokers) _draining.insert(c->broker_ids.begin(), c->broker_ids.end());
        } else if (const auto* changed = std::get_if<events::PartitionChanged>(&e.body)) {
            const std::pair<std::string, int32_t> key{changed->topic, changed->partition};
            std::vector<int32_t> set = changed->replicas;
            std::sort(set.begin(), set.end());
            std::vector<int32_t>& last = _last_set[key];
            if (set == last) {
                // Leadership alone: the same ping-pong rule for who leads.
                int32_t& leader = _last_leader[key];
                if (changed->leader < 0) {
                    // Offline: who led before is history (the engine remembers
                    // the broker that lost it now, as the checker does).
                    _before_last_leader[key] = leader;
                    _leader_changed_by_engine[key] = false;
                    leader = -1;
                    continue;
                }
                if (changed->leader == leader) continue;
                const auto goal = _last_goal.find(key);
                const bool balancing = goal == _last_goal.end() || !is_hard_goal_name(goal->second);
                const auto before = _before_last_leader.find(key);
                const auto when = _leader_change_ms.find(key);
                const bool by_engine = acted_on.count(key) > 0;
                if (balancing && by_engine && _leader_changed_by_engine[key] && _quiet_from_ms >= 0 &&
                    e.time_ms >= _quiet_from_ms && before != _before_last_leader.end() &&
                    before->second == changed->leader && when != _leader_change_ms.end() &&
                    e.time_ms - when->second < _return_block_ms) {
                    fail(e.time_ms, "thrash: " + partition_name(changed->topic, changed->partition) +
                                        " handed leadership straight back to broker " + std::to_string(changed->leader));
                }
                _before_last_leader[key] = leader;
                _leader_change_ms[key] = e.time_ms;
                _leader_changed_by_engine[key] = by_engine;
                leader = changed->leader;
                continue;
            }
            // A move changes leadership too (the new first replica may lead).
            // A leader that left the ISR lost it to a failure, whoever moved
            // the partition at the same time: the engine may hand it back.
            if (_last_leader.count(key) && _last_leader[key] != changed->leader) {
                const int32_t was = _last_leader[key];
                const bool was_in_sync = std::find(changed->isr.begin(), changed->isr.end(), was) != changed->isr.end();
                _before_last_leader[key] = was;
                _leader_change_ms[key] = e.time_ms;
                _leader_changed_by_engine[key] = acted_on.count(key) > 0 && was_in_sync;
            }
            _last_leader[key] = changed->leader;
            if (_quiet_from_ms >= 0 && e.time_ms >= _quiet_from_ms) {
                // Ping-pong: straight back to the replicas it just left, within
                // the engine's return block (longer cycles are bounded by settling).
                const auto before = _before_last_set.find(key);
                const auto left = _last_change_ms.find(key);
                // Hard goals and evacuations may send it back (a broker returned, a rack is usable again).
                const auto goal = _last_goal.find(key);
                const bool balancing = goal == _last_goal.end() || !is_hard_goal_name(goal->second);
                if (balancing && before != _before_last_set.end() && before->second == set &&
                    left != _last_change_ms.end() && e.time_ms - left->second < _return_block_ms) {
                    fail(e.time_ms, "thrash: " + partition_name(changed->topic, changed->partition) +
                                        " went straight back to the replicas it left " +
                                        std::to_string((e.time_ms - left->second) / 1000) + " s before");
                }
            }
            _before_last_set[key] = last;
            _last_change_ms[key] = e.time_ms;
            last = set;
        } else if (const auto* done = std::get_if<events::ActionCompleted>(&e.body)) {
            auto it = _actions.find(done->action_id);
            // A second completion of one action (a resubmission after a
            // restart, done again by the cluster) is not a second move.
            if (it == _actions.end() || !_completed.insert(done->action_id).second) continue;
            _last_moved[{it->second.topic, it->second.partition}] = e.time_ms;
            if (it->second.kind == events::ActionKind::swap) {
                _last_moved[{it->second.swap_topic, it->second.swap_partition}] = e.time_ms;
            }
        }
    }
    // Cancels the cluster has carried out are no longer pending.
    const std::vector<uint64_t> running = step.cluster.running_action_ids();
    for (auto it = _cancelled.begin(); it != _cancelled.end();) {
        it = std::binary_search(running.begin(), running.end(), *it) ? std::next(it) : _cancelled.erase(it);
    }
    // A tick's timeouts come before its barrier: the plan saw them.
    for (const events::Event& e : step.decided) _capacity.observe_ended(e);
    for (const events::Event& e : step.decided) {
        if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
            check_plan(step, *plan, e.time_ms);
        } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
            _cancelled.insert(t->action_id);
        } else if (const auto* c = std::get_if<events::ActionCancelled>(&e.body)) {
            _cancelled.insert(c->action_id);
        }
    }

    _final_loads = step.cluster.broker_loads();
    _largest_partition_in = 0;
    _largest_partition_out = 0;
    for (const sim::SimPartition& p : step.cluster.partitions()) {
        const double in = step.cluster.bytes_in_per_s(p);
        _largest_partition_in = std::max(_largest_partition_in, in);
        _largest_partition_out = std::max(
            _largest_partition_out, in * p.profile.fanout + in * static_cast<double>(p.replicas.size() - 1));
        // Rack placement bounds the spread of replicated partitions.
        if (p.replicas.size() > 1 && _multi_rack) _spread_possible = false;
    }
}

void SimChecker::check_plan(const SimStep& step, const events::ActionsPlanned& plan, int64_t time_ms) {
    _verdict.rounds++;
    _verdict.actions += plan.actions.size();
    const sim::SimCluster& cluster = step.cluster;
    // What the cluster is moving now, as it knows it.
    std::set<std::pair<std::string, int32_t>> moving;
    for (const sim::SimPartition& p : cluster.partitions()) {
        if (!p.deleted && p.reassignment != 0 && !_cancelled.count(p.reassignment)) {
            moving.insert({cluster.topics()[p.topic].name, p.partition});
        }
    }
    auto find = [&](const std::string& topic, int32_t partition) -> const sim::SimPartition* {
        for (const sim::SimPartition& p : cluster.partitions()) {
            if (!p.deleted && p.partition == partition && cluster.topics()[p.topic].name == topic) return &p;
        }
        return nullptr;
    };
    // Racks that can hold replicas: those of alive, non-draining brokers.
    std::set<std::string> usable_racks;
    for (const auto& [id, rack] : _racks) {
        if (alive(id) && !_draining.count(id)) usable_racks.insert(rack);
    }
    auto rack_ok = [&](const std::vector<int32_t>& replicas) {
        if (usable_racks.empty()) return true;
        const size_t limit = (replicas.size() + usable_racks.size() - 1) / usable_racks.size();
        std::map<std::string, size_t> per_rack;
        for (int32_t id : replicas) {
            auto it = _racks.find(id);
            if (it != _racks.end() && ++per_rack[it->second] > limit) return false;
        }
        return true;
    };

    std::map<int32_t, uint32_t> per_broker;
    uint32_t total = 0;
    auto count = [&](const events::Action& a) {
        total++;
        if (a.destination_broker >= 0) per_broker[a.destination_broker]++;
        if (a.source_broker >= 0 && alive(a.source_broker)) per_broker[a.source_broker]++;
    };
    for (uint64_t id : cluster.running_action_ids()) {
        auto it = _actions.find(id);
        if (it != _actions.end() && !_cancelled.count(id)) count(it->second);
    }

    for (const std::string& broken : _capacity.check(plan, time_ms)) fail(time_ms, broken);
    for (const auto& [id, changes] : _liveness_changes) {
        if (goals::broker_stability(broker_as_of(id, time_ms, true), time_ms, _settings.planner).unstable) {
            _verdict.unstable_plans++;
            break;
        }
    }
    for (const events::Action& a : plan.actions) {
        _actions[a.action_id] = a;
        count(a);
        if (a.goal.ends_with("CapacityGoal")) _verdict.capacity_actions++;
        switch (a.kind) {
            case events::ActionKind::move: _verdict.move_actions++; break;
            case events::ActionKind::swap: _verdict.swap_actions++; break;
            case events::ActionKind::leader: _verdict.leader_actions++; break;
        }
        const bool evacuation = dead(a.source_broker, time_ms) || _draining.count(a.source_broker) > 0;
        std::vector<std::tuple<std::string, int32_t, const std::vector<int32_t>*>> touched{
            {a.topic, a.partition, &a.replicas_after}};
        if (a.kind == events::ActionKind::swap) touched.emplace_back(a.swap_topic, a.swap_partition, &a.swap_replicas_after);
        for (const auto& [topic, partition, after] : touched) {
            _last_goal[{topic, partition}] = a.goal;
            const std::string name = partition_name(topic, partition);
            const sim::SimPartition* p = find(topic, partition);
            if (!p) {
                fail(time_ms, "unknown partition: " + describe_action(a) + " names " + name);
                continue;
            }
            if (moving.count({topic, partition})) {
                fail(time_ms, "in flight: " + describe_action(a) + " while " + name + " is being moved");
            }
            auto last = _last_moved.find({topic, partition});
            if (!evacuation && last != _last_moved.end() && time_ms - last->second < _cooldown_ms) {
                fail(time_ms, "cooldown: " + describe_action(a) + ", " + std::to_string((time_ms - last->second) / 1000) +
                                  " s after its last move (cooldown " + std::to_string(_cooldown_ms / 1000) + " s)");
            }
            if (rack_ok(p->replicas) && !rack_ok(*after)) {
                fail(time_ms, "rack awareness: " + describe_action(a) + " crowds a rack for " + name);
            }
        }
        if (a.kind != events::ActionKind::leader && a.destination_broker >= 0 && !alive(a.destination_broker)) {
            fail(time_ms, "destination not alive: " + describe_action(a));
        }
        if (a.kind != events::ActionKind::leader) {
            for (const auto& [topic, partition, after] : touched) {
                const std::pair<std::string, int32_t> key{topic, partition};
                if (++_moves[key] > _verdict.most_moves) {
                    _verdict.most_moves = _moves[key];
                    _verdict.most_moved = partition_name(topic, partition);
                }
            }
        }
        if (a.destination_broker >= 0) {
            // Unstable as of the plan's clock whether or not a liveness change
            // stamped with that same time came before the round.
            const goals::BrokerStability before =
                goals::broker_stability(broker_as_of(a.destination_broker, time_ms, false), time_ms, _settings.planner);
            const goals::BrokerStability at =
                goals::broker_stability(broker_as_of(a.destination_broker, time_ms, true), time_ms, _settings.planner);
            if (before.unstable && at.unstable) {
                fail(time_ms, "stability: " + describe_action(a) + " gives load to broker " +
                                  std::to_string(a.destination_broker) + ", " + at.note);
            }
        }
    }
    // Caps bind what is released: a broker that comes back while moves off
    // it run (they did not count: it was dead) is over no cap of its own doing.
    std::set<int32_t> touched_now;
    for (const events::Action& a : plan.actions) {
        if (a.destination_broker >= 0) touched_now.insert(a.destination_broker);
        if (a.source_broker >= 0 && alive(a.source_broker)) touched_now.insert(a.source_broker);
    }
    if (!plan.actions.empty() && total > _concurrency_max) {
        fail(time_ms, "concurrency: " + std::to_string(total) + " actions in flight, cap " + std::to_string(_concurrency_max));
    }
    for (const auto& [id, n] : per_broker) {
        if (touched_now.count(id) && n > _broker_inflight_max) {
            fail(time_ms, "broker cap: broker " + std::to_string(id) + " in " + std::to_string(n) +
                              " actions at once, cap " + std::to_string(_broker_inflight_max));
        }
    }
    if (!plan.actions.empty()) _verdict.last_action_ms = time_ms;
}

SimVerdict SimChecker::finish(const std::string& journal, const SimRunSummary& summary) {
    for (const std::string& d : summary.recovery_divergences) fail(_scenario.duration_ms, "recovery: " + d);
    SimVerdict v = _verdict;
    v.settled = v.last_action_ms < _scenario.duration_ms - _settle_window_ms;
    // An even spread is possible when every broker ever started runs at the
    // end and no rack rule pins replicas.
    bool all_running = true;
    double in_total = 0;
    double out_total = 0;
    int running = 0;
    for (const sim::BrokerLoad& l : _final_loads) {
        if (l.state == sim::BrokerState::defined) continue;
        if (l.state != sim::BrokerState::running) {
            all_running = false;
            continue;
        }
        in_total += l.bytes_in_per_s;
        out_total += l.bytes_out_per_s;
        running++;
    }
    // A capacity limit that leaves a broker no room for one more replica may
    // be what holds the load outside the band.
    v.capacity_binds = !_capacity.leaves_room(_last_step_ms);
    v.capacity_plans_checked = _capacity.plans_checked();
    v.balance_checked = all_running && _spread_possible && !v.capacity_binds && running > 0;
    if (v.balance_checked) {
        // Usage as the distribution goals judge it (goals::PlanningState::
        // usage): utilization, load / capacity, when every running broker's
        // capacity of the resource is known, else load.
        bool in_relative = true;
        bool out_relative = true;
        std::map<int32_t, goals::Capacity> capacities;
        for (const sim::BrokerLoad& l : _final_loads) {
            if (l.state != sim::BrokerState::running) continue;
            const goals::Capacity capacity = actors::capacity_of(_settings, l.id);
            in_relative = in_relative && capacity.network_in_bytes_per_s > 0;
            out_relative = out_relative && capacity.network_out_bytes_per_s > 0;
            capacities[l.id] = capacity;
        }
        const auto in_divisor = [&](int32_t id) { return in_relative ? capacities[id].network_in_bytes_per_s : 1.0; };
        const auto out_divisor = [&](int32_t id) {
            return out_relative ? capacities[id].network_out_bytes_per_s : 1.0;
        };
        double in_divisors = 0;
        double out_divisors = 0;
        double in_divisor_min = std::numeric_limits<double>::infinity();
        double out_divisor_min = std::numeric_limits<double>::infinity();
        for (const auto& [id, unused] : capacities) {
            in_divisors += in_divisor(id);
            out_divisors += out_divisor(id);
            in_divisor_min = std::min(in_divisor_min, in_divisor(id));
            out_divisor_min = std::min(out_divisor_min, out_divisor(id));
        }
        const double in_mean = in_total / in_divisors;
        const double out_mean = out_total / out_divisors;
        // The band, widened by the heaviest partition on either side (a
        // broker one partition over and another one under is as close as
        // whole partitions get; the detect threshold of one resource can
        // also refuse the last move the other wants); a partition's share
        // of the smallest broker, when relative. Quiet below the threshold
        // of load per broker.
        const double threshold = 1 << 20;
        const auto within = [&](double value, double mean, double per_broker, double deviation, double largest) {
            if (per_broker < threshold) return true;
            const double allowed = deviation + 2 * largest / mean;
            return std::abs(value - mean) <= allowed * mean;
        };
        const double largest_in = _largest_partition_in / in_divisor_min;
        const double largest_out = _largest_partition_out / out_divisor_min;
        double worst_in = 0;
        double worst_out = 0;
        for (const sim::BrokerLoad& l : _final_loads) {
            if (l.state != sim::BrokerState::running) continue;
            const double in = l.bytes_in_per_s / in_divisor(l.id);
            const double out = l.bytes_out_per_s / out_divisor(l.id);
            v.balanced = v.balanced && within(in, in_mean, in_total / running, _avg_deviation_in, largest_in) &&
                         within(out, out_mean, out_total / running, _avg_deviation_out, largest_out);
            worst_in = std::max(worst_in, in);
            worst_out = std::max(worst_out, out);
        }
        v.spread_relative = in_relative;
        v.spread_in = in_mean > 0 ? worst_in / in_mean : 0;
        v.spread_out = out_mean > 0 ? worst_out / out_mean : 0;
        v.spread_allowed = in_mean > 0 ? 1 + _avg_deviation_in + 2 * largest_in / in_mean : 0;
    }
    if (!journal.empty()) {
        v.replay_checked = true;
        events::Result<ReplayComparison> replay = replay_and_compare(journal);
        if (!replay) {
            v.replay_error = replay.error().to_string();
        } else {
            v.replay_decisions = replay->journaled;
            v.replay_identical = replay->ok();
            if (!replay->ok()) {
                v.replay_error = std::to_string(replay->identical) + " of " + std::to_string(replay->journaled) +
                                 " journaled decisions identical, " + std::to_string(replay->replayed) +
                                 " replayed; first difference at decision " +
                                 std::to_string(replay->first_difference.value_or(replay->identical) + 1);
            }
        }
    }
    return v;
}

std::string SimVerdict::report() const {
    std::string out = "check " + scenario + ": " + (ok() ? "ok" : "FAILED") + " (" + std::to_string(rounds) +
                      " rounds, " + std::to_string(actions) + " actions: " + std::to_string(move_actions) +
                      " moves, " + std::to_string(swap_actions) + " swaps, " + std::to_string(leader_actions) +
                      " leader changes)\n";
    for (const std::string& b : breaks) out += "  broken: " + b + "\n";
    if (most_moves > 0) out += "  moves: at most " + std::to_string(most_moves) + " of one partition (" + most_moved + ")\n";
    if (unstable_plans > 0) out += "  flapping: " + std::to_string(unstable_plans) + " plans with an unstable broker\n";
    if (capacity_plans_checked > 0) {
        out += "  capacity: " + std::to_string(capacity_plans_checked) + " plans judged against the limits, " +
               std::to_string(capacity_actions) + " actions by the capacity goals\n";
    }
    out += settled ? "  settled: no action in the last " + std::to_string(settle_window_ms / 1000) + " s\n"
                   : "  NOT settled: an action at " + format_time_ms(last_action_ms) + ", inside the last " +
                         std::to_string(settle_window_ms / 1000) + " s\n";
    if (balance_checked) {
        char text[160];
        std::snprintf(text, sizeof text, "  %s: spread max/mean of %s in %.3f, out %.3f (allowed in %.3f)\n",
                      balanced ? "balanced" : "NOT balanced", spread_relative ? "utilization" : "load", spread_in,
                      spread_out, spread_allowed);
        out += text;
    } else {
        out += capacity_binds ? "  balance not judged (a capacity limit leaves a broker no room)\n"
                              : "  balance not judged (a broker is down at the end, or racks pin the replicas)\n";
    }
    if (replay_checked) {
        out += replay_identical ? "  replay: all " + std::to_string(replay_decisions) + " decisions identical\n"
                                : "  replay DIFFERS: " + replay_error + "\n";
    }
    return out;
}

}  // namespace ballast::driver
