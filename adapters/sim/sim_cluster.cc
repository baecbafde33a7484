#include "adapters/sim/sim_cluster.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

#include "adapters/sim/sim_port.h"

namespace ballast::sim {

namespace {

/// A restarted broker registers with the controller and is unfenced about a
/// second later.
constexpr int64_t unfence_after_start_ms = 1'000;

/// Where a new topic's replicas go when the scenario gives no assignment:
/// Kafka's round robin over the running brokers from a drawn start. When
/// those brokers span two or more racks it is Kafka's rack-aware round
/// robin: the brokers in rack-alternating order (the first of each rack by
/// rack name, then the second of each, ...), and each follower the next
/// broker in that order on a rack the partition does not use yet, until
/// every rack is used. One rack (or none given: every rack "") is the plain
/// round robin over the brokers by id.
class DefaultPlacement {
public:
    DefaultPlacement(const std::vector<int32_t>& running, const std::vector<SimBroker>& brokers) : _order(running) {
        std::map<std::string, std::vector<int32_t>> by_rack;  // ids ascending within each rack
        for (int32_t id : running) {
            const auto it = std::find_if(brokers.begin(), brokers.end(), [&](const SimBroker& b) { return b.id == id; });
            by_rack[it->rack].push_back(id);
            _rack[id] = it->rack;
        }
        _racks = by_rack.size();
        if (_racks < 2) return;
        _order.clear();
        for (size_t k = 0; _order.size() < running.size(); k++) {
            for (const auto& [rack, ids] : by_rack) {
                if (k < ids.size()) _order.push_back(ids[k]);
            }
        }
    }

    /// The replicas of the partition whose leader is the `at`-th broker of
    /// the round robin (modulo their number), leader first.
    std::vector<int32_t> replicas(size_t at, int32_t replication_factor) const {
        std::vector<int32_t> out;
        const size_t n = _order.size();
        if (n == 0) return out;
        if (_racks < 2) {
            for (int32_t r = 0; r < replication_factor; r++) out.push_back(_order[(at + static_cast<size_t>(r)) % n]);
            return out;
        }
        std::set<std::string> racks_used;
        for (int32_t r = 0; r < replication_factor; r++) {
            for (size_t step = 0; step < n; step++) {
                const int32_t id = _order[(at + step) % n];
                if (actors::lists_broker(out, id)) continue;
                if (racks_used.size() < _racks && racks_used.count(_rack.at(id))) continue;
                out.push_back(id);
                racks_used.insert(_rack.at(id));
                break;
            }
        }
        return out;
    }

private:
    std::vector<int32_t> _order;
    std::map<int32_t, std::string> _rack;
    size_t _racks = 0;
};

}  // namespace

const char* broker_state_name(BrokerState state) {
    switch (state) {
        case BrokerState::defined: return "defined";
        case BrokerState::running: return "running";
        case BrokerState::stopped: return "stopped";
        case BrokerState::fenced: return "fenced";
        case BrokerState::isolated: return "isolated";
        case BrokerState::unregistered: return "unregistered";
    }
    return "unknown";
}

SimCluster::SimCluster(Scenario scenario)
    : _scenario(std::move(scenario)), _port(std::make_unique<Port>()), _random(_scenario.seed) {
    for (const BrokerSpec& spec : _scenario.brokers) {
        SimBroker b;
        b.id = spec.id;
        b.rack = spec.rack;
        _brokers.push_back(b);
    }
    for (const TimedEvent& e : _scenario.events) {
        if (e.kind == TimedEvent::Kind::add_broker) {
            SimBroker b;
            b.id = e.broker.id;
            b.rack = e.broker.rack;
            _brokers.push_back(b);
        }
    }
    std::sort(_brokers.begin(), _brokers.end(),
              [](const SimBroker& a, const SimBroker& b) { return a.id < b.id; });
}

SimCluster::~SimCluster() = default;

actors::AdminPort& SimCluster::port() { return *_port; }

SimBroker* SimCluster::broker(int32_t id) {
    auto it = std::lower_bound(_brokers.begin(), _brokers.end(), id,
                               [](const SimBroker& b, int32_t v) { return b.id < v; });
    return it != _brokers.end() && it->id == id ? &*it : nullptr;
}

const SimBroker* SimCluster::broker(int32_t id) const {
    return const_cast<SimCluster*>(this)->broker(id);
}

bool SimCluster::is_running(int32_t id) const {
    const SimBroker* b = broker(id);
    return b && b->state == BrokerState::running;
}

/// Kafka's rule: the first replica in preference order that is in the ISR
/// and alive; none: offline.
int32_t SimCluster::elect_leader(const SimPartition& p) const {
    for (int32_t id : p.replicas) {
        if (actors::lists_broker(p.isr, id) && is_running(id)) return id;
    }
    return -1;
}

void SimCluster::schedule(int64_t at_ms, std::function<void()> what) {
    assert(at_ms >= _now_ms);
    _scheduled.push({at_ms, _scheduled_count++, std::move(what)});
}

void SimCluster::emit(int64_t time_ms, events::Body body, events::Source source) {
    if (const auto* done = std::get_if<events::ActionCompleted>(&body)) _outcomes[done->action_id] = body;
    if (const auto* failed = std::get_if<events::ActionFailed>(&body)) _outcomes[failed->action_id] = body;
    _out.push_back(events::Event{0, time_ms, source, std::move(body)});
}

std::vector<events::Event> SimCluster::resync() {
    for (const SimBroker& b : _brokers) {
        if (b.state == BrokerState::defined) continue;
        if (b.state == BrokerState::unregistered) {
            emit(_now_ms, events::BrokerUnregistered{b.id});
            continue;
        }
        emit(_now_ms, events::BrokerRegistered{b.id, b.rack, {{"PLAINTEXT", "127.0.0.1", 9092 + b.id}}});
        if (b.state == BrokerState::fenced || b.state == BrokerState::isolated) {
            emit(_now_ms, events::BrokerFenced{b.id});
        }
    }
    for (const SimTopic& t : _topics) {
        if (t.deleted) {
            emit(_now_ms, events::TopicDeleted{t.name});
            continue;
        }
        const auto rf = t.partitions.empty() ? 0 : _partitions[t.partitions[0]].replicas.size();
        emit(_now_ms, events::TopicCreated{t.name, {}, static_cast<int32_t>(t.partitions.size()),
                                           static_cast<int16_t>(rf)});
        for (const uint32_t index : t.partitions) emit_partition(_now_ms, _partitions[index]);
    }
    return std::move(_out);
}

void SimCluster::emit_partition(int64_t time_ms, const SimPartition& p) {
    emit(time_ms, events::PartitionChanged{_topics[p.topic].name, p.partition, p.replicas, p.leader,
                                           p.isr, p.leader_epoch});
}

std::vector<events::Event> SimCluster::start() {
    assert(!_started);
    _started = true;
    for (const BrokerSpec& spec : _scenario.brokers) {
        if (spec.running) start_broker(spec.id, 0);
    }
    for (const TopicSpec& topic : _scenario.topics) create_topic(topic, 0);
    for (const TimedEvent& e : _scenario.events) {
        schedule(e.at_ms, [this, &e] { apply_timed_event(e); });
    }
    report_metrics(0);
    _next_report_ms = _scenario.report_interval_ms;
    emit(0, events::Tick{0}, events::Source::clock);
    return std::move(_out);
}

std::vector<events::Event> SimCluster::advance(int64_t to_ms) {
    assert(_started && to_ms > _now_ms);
    _out.clear();
    take_requests();
    while (true) {
        const bool item_due = !_scheduled.empty() && _scheduled.top().at_ms <= to_ms;
        const bool report_due = _next_report_ms <= to_ms;
        if (!item_due && !report_due) break;
        if (report_due && (!item_due || _next_report_ms <= _scheduled.top().at_ms)) {
            _now_ms = _next_report_ms;
            report_metrics(_now_ms);
            _next_report_ms += _scenario.report_interval_ms;
            continue;
        }
        ScheduledItem item = _scheduled.top();
        _scheduled.pop();
        _now_ms = std::max(_now_ms, item.at_ms);
        item.what();
    }
    _now_ms = to_ms;
    // Moves that were ready but blocked (no live source, a target down) try again.
    std::vector<uint64_t> waiting;
    for (const auto& [id, running] : _running) {
        bool ready = !running.stuck;
        for (const Running::Part& part : running.parts) ready = ready && part.ready_ms <= to_ms;
        if (ready) waiting.push_back(id);
    }
    for (uint64_t id : waiting) try_complete(id);
    emit(to_ms, events::Tick{to_ms}, events::Source::clock);
    return std::move(_out);
}

void SimCluster::apply_timed_event(const TimedEvent& e) {
    const int64_t t = _now_ms;
    switch (e.kind) {
        case TimedEvent::Kind::stop_broker: stop_broker(e.broker_id, t); break;
        case TimedEvent::Kind::start_broker:
        case TimedEvent::Kind::add_broker: start_broker(e.broker_id, t); break;
        case TimedEvent::Kind::fence_broker: isolate_broker(e.broker_id, t); break;
        case TimedEvent::Kind::unfence_broker: reconnect_broker(e.broker_id); break;
        case TimedEvent::Kind::remove_broker: {
            SimBroker* b = broker(e.broker_id);
            if (!b || b->state == BrokerState::unregistered) break;
            if (b->state == BrokerState::running || b->state == BrokerState::isolated) stop_broker(b->id, t);
            if (b->state == BrokerState::stopped) fence_broker(b->id, b->incarnation, t);
            b->state = BrokerState::unregistered;
            emit(t, events::BrokerUnregistered{b->id});
            break;
        }
        case TimedEvent::Kind::scale_traffic:
        case TimedEvent::Kind::set_traffic: apply_traffic_event(e); break;
        case TimedEvent::Kind::create_topic: create_topic(e.topic, t); break;
        case TimedEvent::Kind::delete_topic: delete_topic(e.topic.name, t); break;
        case TimedEvent::Kind::drain_broker: {
            events::OperatorCommand command;
            command.command = events::CommandKind::drain_brokers;
            command.broker_ids = {e.broker_id};
            command.reason = "scenario";
            emit(t, command, events::Source::operator_);
            break;
        }
        case TimedEvent::Kind::pause:
        case TimedEvent::Kind::resume: {
            events::OperatorCommand command;
            command.command = e.kind == TimedEvent::Kind::pause ? events::CommandKind::pause
                                                                : events::CommandKind::resume;
            command.reason = "scenario";
            emit(t, command, events::Source::operator_);
            break;
        }
    }
}

void SimCluster::start_broker(int32_t id, int64_t time_ms) {
    SimBroker* b = broker(id);
    assert(b);  // validated: every broker an event names is defined
    const BrokerState was = b->state;
    if (was == BrokerState::running || was == BrokerState::isolated) return;  // the process runs already
    b->state = BrokerState::running;
    b->incarnation++;
    if (was == BrokerState::defined || was == BrokerState::unregistered) {
        emit(time_ms, events::BrokerRegistered{b->id, b->rack, {{"PLAINTEXT", "127.0.0.1", 9092 + b->id}}});
    }
    if (was == BrokerState::stopped || was == BrokerState::defined) return;  // never fenced: in every ISR still
    // Fenced before: unfenced shortly, then each replica rejoins its ISR once caught up.
    const uint32_t incarnation = b->incarnation;
    schedule(time_ms + unfence_after_start_ms, [this, id, incarnation] { unfence_broker(id, incarnation); });
}

void SimCluster::unfence_broker(int32_t id, uint32_t incarnation) {
    SimBroker* b = broker(id);
    if (!b || b->incarnation != incarnation || b->state != BrokerState::running) return;
    emit(_now_ms, events::BrokerUnfenced{id});
    for (uint32_t index = 0; index < _partitions.size(); index++) {
        SimPartition& p = _partitions[index];
        if (p.deleted || !actors::lists_broker(p.replicas, id)) continue;
        if (actors::lists_broker(p.isr, id)) {
            // It was the last in sync: the partition waited for it, and it leads again.
            if (p.leader < 0) {
                p.leader = elect_leader(p);
                p.leader_epoch++;
                emit_partition(_now_ms, p);
            }
            continue;
        }
        int64_t catch_up_ms = 0;
        if (_scenario.flavor == Flavor::apache && b->stopped_ms >= 0) {
            // The bytes written while it was away, at the throttle rate.
            const double missed = profile_rate(p, _now_ms) * static_cast<double>(_now_ms - b->stopped_ms) / 1000;
            catch_up_ms = static_cast<int64_t>(1000 * missed / _scenario.apache_throttle_bytes_per_s);
        }
        schedule(_now_ms + catch_up_ms, [this, id, index, incarnation] {
            SimPartition& p = _partitions[index];
            const SimBroker* b = broker(id);
            if (p.deleted || !b || b->incarnation != incarnation || b->state != BrokerState::running ||
                !actors::lists_broker(p.replicas, id) || actors::lists_broker(p.isr, id)) {
                return;
            }
            p.isr.push_back(id);
            std::stable_sort(p.isr.begin(), p.isr.end(), [&](int32_t x, int32_t y) {
                return std::find(p.replicas.begin(), p.replicas.end(), x) <
                       std::find(p.replicas.begin(), p.replicas.end(), y);
            });
            if (p.leader < 0) {
                p.leader = elect_leader(p);
                p.leader_epoch++;
            }
            emit_partition(_now_ms, p);
        });
    }
}

void SimCluster::stop_broker(int32_t id, int64_t time_ms) {
    SimBroker* b = broker(id);
    assert(b);
    if (b->state == BrokerState::isolated) {
        // Fenced already (and out of the ISRs since): now the process is down too.
        b->state = BrokerState::fenced;
        return;
    }
    if (b->state != BrokerState::running) return;
    b->state = BrokerState::stopped;
    b->stopped_ms = time_ms;
    const uint32_t incarnation = b->incarnation;
    schedule(time_ms + _scenario.session_timeout_ms,
             [this, id, incarnation] { fence_broker(id, incarnation, _now_ms); });
}

void SimCluster::fence_broker(int32_t id, uint32_t incarnation, int64_t time_ms) {
    SimBroker* b = broker(id);
    if (!b || b->incarnation != incarnation || b->state != BrokerState::stopped) return;
    b->state = BrokerState::fenced;
    emit(time_ms, events::BrokerFenced{id});
    leave_isrs(id, time_ms);
}

void SimCluster::isolate_broker(int32_t id, int64_t time_ms) {
    SimBroker* b = broker(id);
    assert(b);
    if (b->state != BrokerState::running) return;  // only a live broker can be cut off
    b->state = BrokerState::isolated;
    b->stopped_ms = time_ms;  // what it misses from here it copies when it rejoins
    emit(time_ms, events::BrokerFenced{id});
    leave_isrs(id, time_ms);
}

void SimCluster::reconnect_broker(int32_t id) {
    SimBroker* b = broker(id);
    assert(b);
    if (b->state != BrokerState::isolated) return;
    b->state = BrokerState::running;
    b->incarnation++;  // what was scheduled for it while cut off is void
    // The controller hears from it again at once: no registration, no delay.
    unfence_broker(id, b->incarnation);
}

void SimCluster::leave_isrs(int32_t id, int64_t time_ms) {
    for (SimPartition& p : _partitions) {
        if (p.deleted || !actors::lists_broker(p.isr, id)) continue;
        bool changed = false;
        // Kafka keeps the last ISR member: the partition waits for it (or a move).
        if (p.isr.size() > 1) {
            p.isr.erase(std::find(p.isr.begin(), p.isr.end(), id));
            changed = true;
        }
        if (p.leader == id) {
            p.leader = elect_leader(p);
            p.leader_epoch++;
            changed = true;
        }
        if (changed) emit_partition(time_ms, p);
    }
}

void SimCluster::create_topic(const TopicSpec& spec, int64_t time_ms) {
    if (_topic_index.count(spec.name)) return;
    const uint32_t topic = static_cast<uint32_t>(_topics.size());
    _topics.push_back(SimTopic{spec.name, {}, false});
    _topic_index[spec.name] = topic;
    std::vector<int32_t> running;
    for (const SimBroker& b : _brokers) {
        if (b.state == BrokerState::running) running.push_back(b.id);
    }
    // Kafka starts the round robin at a random broker.
    const size_t start = running.empty() ? 0 : std::uniform_int_distribution<size_t>(0, running.size() - 1)(_random);
    const DefaultPlacement placement(running, _brokers);
    std::vector<double> weights = spec.partition_weights;
    if (weights.empty() && spec.skew.kind != TrafficSkew::Kind::none) {
        weights = skew_weights(spec.skew, _scenario.seed, spec.name, spec.partitions);
    }
    double weight_total = 0;
    for (double w : weights) weight_total += w;
    emit(time_ms, events::TopicCreated{spec.name, {}, spec.partitions,
                                       static_cast<int16_t>(spec.replication_factor)});
    for (int32_t i = 0; i < spec.partitions; i++) {
        SimPartition p;
        p.topic = topic;
        p.partition = i;
        if (!spec.assignment.empty()) {
            p.replicas = spec.assignment[static_cast<size_t>(i)];
        } else {
            p.replicas = placement.replicas(start + static_cast<size_t>(i), spec.replication_factor);
        }
        for (int32_t id : p.replicas) {
            if (is_running(id)) p.isr.push_back(id);
        }
        if (p.isr.empty() && !p.replicas.empty()) p.isr.push_back(p.replicas[0]);
        p.leader = elect_leader(p);
        p.profile = spec.traffic;
        p.share = weight_total > 0 ? weights[static_cast<size_t>(i)] / weight_total : 1.0 / spec.partitions;
        p.size_bytes = spec.initial_size_bytes;
        p.retention_bytes = spec.retention_bytes;
        _topics[topic].partitions.push_back(static_cast<uint32_t>(_partitions.size()));
        _partitions.push_back(p);
        emit_partition(time_ms, _partitions.back());
    }
}

void SimCluster::delete_topic(const std::string& name, int64_t time_ms) {
    auto it = _topic_index.find(name);
    if (it == _topic_index.end()) return;
    SimTopic& topic = _topics[it->second];
    topic.deleted = true;
    for (uint32_t index : topic.partitions) {
        SimPartition& p = _partitions[index];
        p.deleted = true;
        if (p.reassignment != 0) {
            const uint64_t id = p.reassignment;
            auto running = _running.find(id);
            if (running != _running.end()) {
                const uint32_t attempt = running->second.attempt;
                for (const Running::Part& part : running->second.parts) _partitions[part.partition].reassignment = 0;
                _running.erase(running);
                fail(id, attempt, kafka_unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION",
                     "topic " + name + " was deleted during the move", false, time_ms);
            }
        }
    }
    _topic_index.erase(it);
    emit(time_ms, events::TopicDeleted{name});
}

}  // namespace ballast::sim
