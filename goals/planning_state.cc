#include "goals/planning_state.h"

#include <algorithm>
#include <cassert>

#include "goals/broker_stability.h"
#include "goals/copy_estimate.h"

namespace ballast::goals {

PlanningState::PlanningState(const ClusterModel& model, const PlannerConfig& config,
                             bool track_topics)
    : _model(model), _config(config), _tracks_topics(track_topics) {
    build_brokers();
    build_overlay();
    build_topics();
    recompute_aggregates();
    count_topics();
    // No action yet: every eligible broker has its whole budget.
    _broker_actions.assign(_brokers.size(), 0);
    _eligible_with_budget = _eligible_count;
    _rack_eligible.assign(std::max<size_t>(1, _model.racks.size()), 0);
    for (const BrokerState& broker : _brokers) _rack_eligible[broker.rack] += broker.eligible;
    _rack_eligible_with_budget = _rack_eligible;
}

void PlanningState::build_brokers() {
    const int64_t now_ms = _model.now_ms;
    _brokers.resize(_model.brokers.size());
    _sorted_ids.resize(_model.brokers.size());
    uint32_t rack_index_max = 0;
    for (size_t b = 0; b < _model.brokers.size(); b++) {
        const Broker& in = _model.brokers[b];
        BrokerState& out = _brokers[b];
        out.rack = in.rack;
        const BrokerStability stability = broker_stability(in, now_ms, _config);
        out.alive = in.liveness == Liveness::alive;
        out.dead = !out.alive && now_ms - in.liveness_changed_ms >= stability.grace_ms;
        out.unstable = stability.unstable;
        out.fresh = in.metrics_time_ms >= 0 && in.metrics_time_ms >= now_ms - _config.metrics_delay_ms;
        out.excluded = in.excluded;
        out.draining = in.draining;
        out.eligible = out.alive && out.fresh && !out.excluded && !out.draining && !out.unstable;
        if (!stability.note.empty()) _broker_notes.push_back({in.id, stability.note});
        _replan_at_ms = std::min(_replan_at_ms, stability.changes_at_ms);
        _sorted_ids[b] = in.id;
        rack_index_max = std::max(rack_index_max, in.rack);
    }
    // Relative to capacity when every eligible broker's is known: one
    // broker of unknown size would leave its share undefined.
    bool any_eligible = false;
    bool in_known = true;
    bool out_known = true;
    for (size_t b = 0; b < _model.brokers.size(); b++) {
        if (!_brokers[b].eligible) continue;
        any_eligible = true;
        in_known = in_known && _model.brokers[b].capacity.network_in_bytes_per_s > 0;
        out_known = out_known && _model.brokers[b].capacity.network_out_bytes_per_s > 0;
    }
    _relative_in = any_eligible && in_known;
    _relative_out = any_eligible && out_known;
    _eligible_divisor_in = _eligible_divisor_out = 0;
    for (size_t b = 0; b < _model.brokers.size(); b++) {
        BrokerState& broker = _brokers[b];
        const Capacity& capacity = _model.brokers[b].capacity;
        broker.in_divisor = _relative_in && capacity.network_in_bytes_per_s > 0 ? capacity.network_in_bytes_per_s : 1;
        broker.out_divisor =
            _relative_out && capacity.network_out_bytes_per_s > 0 ? capacity.network_out_bytes_per_s : 1;
        if (!broker.eligible) continue;
        _eligible_divisor_in += broker.in_divisor;
        _eligible_divisor_out += broker.out_divisor;
    }
    // Racks that can still hold replicas: an alive broker that is not being
    // drained stands in them (excluded brokers count: they hold replicas).
    std::vector<uint8_t> rack_seen(static_cast<size_t>(rack_index_max) + 1, 0);
    _racks_usable = 0;
    for (const BrokerState& broker : _brokers) {
        if (!broker.alive || broker.draining || rack_seen[broker.rack]) continue;
        rack_seen[broker.rack] = 1;
        _racks_usable++;
    }
}

uint32_t PlanningState::broker_index(int32_t id) const {
    auto it = std::lower_bound(_sorted_ids.begin(), _sorted_ids.end(), id);
    if (it == _sorted_ids.end() || *it != id) return no_broker;
    return static_cast<uint32_t>(it - _sorted_ids.begin());
}

void PlanningState::build_overlay() {
    const size_t partition_count = _model.partitions.size();
    const uint32_t brokers = broker_count();
    // Broker ids are usually small and dense: a direct table avoids a binary
    // search per replica (3M of them at 1M partitions RF3).
    const int32_t id_max = _sorted_ids.empty() ? -1 : _sorted_ids.back();
    const bool dense = !_sorted_ids.empty() && _sorted_ids.front() >= 0 &&
                       id_max <= static_cast<int32_t>(16 * brokers + 4096);
    std::vector<uint32_t> index_of_id;
    if (dense) {
        index_of_id.assign(static_cast<size_t>(id_max) + 1, no_broker);
        for (uint32_t b = 0; b < brokers; b++) index_of_id[_sorted_ids[b]] = b;
    }
    auto index = [&](int32_t id) -> uint32_t {
        if (dense) return (id >= 0 && id <= id_max) ? index_of_id[id] : no_broker;
        return broker_index(id);
    };

    _replicas.resize(_model.replicas.size());
    for (size_t i = 0; i < _model.replicas.size(); i++) {
        _replicas[i] = index(_model.replicas[i]);
        assert(_replicas[i] != no_broker && "check_input: every replica names a known broker");
    }
    _leader.assign(partition_count, no_leader);
    _fixed.assign(partition_count, 0);
    _touched.assign(partition_count, 0);
    // One estimate per partition per plan: a few flops each, and the flags
    // cost a byte a partition only where copies are throttled.
    const bool throttled = _config.flavor == Flavor::apache && _config.replication_throttle_bytes_per_s > 0;
    _uncopyable.assign(throttled ? partition_count : 0, 0);
    for (size_t p = 0; throttled && p < partition_count; p++) {
        _uncopyable[p] = estimate_copy(_model.partitions[p], _config).verdict != CopyVerdict::fits;
    }
    std::vector<uint32_t> per_broker(brokers + 1, 0);
    for (size_t p = 0; p < partition_count; p++) {
        const Partition& partition = _model.partitions[p];
        if (partition.leader >= 0) _leader[p] = static_cast<int32_t>(index(partition.leader));
        _fixed[p] = partition.excluded || in_flight(static_cast<uint32_t>(p)) || cooling_down(static_cast<uint32_t>(p));
        for (uint32_t b : replicas(static_cast<uint32_t>(p))) per_broker[b + 1]++;
    }
    // Compressed rows: the model's partitions of each broker, in partition order.
    for (uint32_t b = 0; b < brokers; b++) per_broker[b + 1] += per_broker[b];
    _broker_partition_begin = per_broker;
    _broker_partitions.resize(_model.replicas.size());
    for (size_t p = 0; p < partition_count; p++) {
        for (uint32_t b : replicas(static_cast<uint32_t>(p))) {
            _broker_partitions[per_broker[b]++] = static_cast<uint32_t>(p);
        }
    }
}

void PlanningState::build_topics() {
    const uint32_t topics = static_cast<uint32_t>(_model.topics.size());
    _topic_begin.assign(static_cast<size_t>(topics) + 1, 0);
    // Partitions are sorted by topic: topic t starts at the first partition whose topic is >= t.
    uint32_t p = 0;
    for (uint32_t t = 0; t <= topics; t++) {
        while (p < partition_count() && _model.partitions[p].topic < t) p++;
        _topic_begin[t] = p;
    }
    assert(_topic_begin[topics] == partition_count());
}

std::span<const uint32_t> PlanningState::model_partitions_of(uint32_t b) const {
    return {_broker_partitions.data() + _broker_partition_begin[b],
            _broker_partition_begin[b + 1] - _broker_partition_begin[b]};
}

uint32_t PlanningState::slot_of(uint32_t p, uint32_t b) const {
    std::span<const uint32_t> slots = replicas(p);
    for (uint32_t i = 0; i < slots.size(); i++) {
        if (slots[i] == b) return i;
    }
    assert(false && "slot_of: broker does not hold the partition");
    return 0;
}

Load PlanningState::replica_load_on(uint32_t p, uint32_t b) const {
    return replica_load(_model.partitions[p], _leader[p] == static_cast<int32_t>(b));
}

bool PlanningState::returns_early(uint32_t p, uint32_t b) const {
    const Partition& partition = _model.partitions[p];
    return partition.left_broker >= 0 && partition.left_broker == broker_id(b) &&
           _model.now_ms - partition.left_ms < _config.return_block_ms;
}

bool PlanningState::leadership_returns_early(uint32_t p, uint32_t b) const {
    const Partition& partition = _model.partitions[p];
    return partition.left_leader >= 0 && partition.left_leader == broker_id(b) &&
           _model.now_ms - partition.left_leader_ms < _config.return_block_ms;
}

bool PlanningState::in_sync(uint32_t p, uint32_t b) const {
    const Partition& partition = _model.partitions[p];
    const int32_t* ids = _model.replicas_of(partition);
    for (uint32_t slot = 0; slot < partition.replica_count; slot++) {
        if (ids[slot] != broker_id(b)) continue;
        return slot >= 8 || (partition.out_of_sync_slots >> slot & 1u) == 0;
    }
    return false;
}

std::string PlanningState::copy_refusal(uint32_t p) const {
    assert(!copyable(p));
    const Partition& partition = _model.partitions[p];
    return goals::copy_refusal(partition, _config, estimate_copy(partition, _config));
}

bool PlanningState::cooling_down(uint32_t p) const {
    const int64_t moved_ms = _model.partitions[p].last_moved_ms;
    return moved_ms >= 0 && _model.now_ms - moved_ms < _config.partition_cooldown_ms;
}

double PlanningState::eligible_total(Resource resource) const {
    return load_of(_eligible_load, resource);
}

const PlanningState::LoadOrder& PlanningState::order_by(Resource resource) const {
    assert(resource != Resource::disk && "no disk order is kept");
    return resource == Resource::network_in ? _by_in : _by_out;
}

std::span<const TopicBrokerCount> PlanningState::topic_counts(uint32_t t) const {
    assert(_tracks_topics);
    return _topic_counts[t];
}

int32_t PlanningState::topic_count_on(uint32_t t, uint32_t b) const {
    assert(_tracks_topics);
    const std::vector<TopicBrokerCount>& counts = _topic_counts[t];
    auto it = std::lower_bound(counts.begin(), counts.end(), b,
                               [](const TopicBrokerCount& c, uint32_t key) { return c.broker < key; });
    return (it != counts.end() && it->broker == b) ? it->count : 0;
}

BrokerLoad PlanningState::broker_load(uint32_t b) const {
    return {_brokers[b].load, _brokers[b].replica_count, _brokers[b].leader_count};
}

// ---------------------------------------------------------------- aggregates

void PlanningState::recompute_aggregates() {
    for (BrokerState& broker : _brokers) {
        broker.load = Load{};
        broker.replica_count = 0;
        broker.leader_count = 0;
    }
    // Partition order, then slot order: the same additions in the same order
    // as for a model built from the plan's result, so the sums are identical.
    for (uint32_t p = 0; p < partition_count(); p++) {
        const Partition& partition = _model.partitions[p];
        for (uint32_t b : replicas(p)) {
            const bool leads = _leader[p] == static_cast<int32_t>(b);
            const Load load = replica_load(partition, leads);
            BrokerState& broker = _brokers[b];
            broker.load.bytes_in_per_s += load.bytes_in_per_s;
            broker.load.bytes_out_per_s += load.bytes_out_per_s;
            broker.load.size_bytes += load.size_bytes;
            broker.replica_count++;
            broker.leader_count += leads;
        }
    }
    _eligible_count = 0;
    _eligible_load = Load{};
    _eligible_replicas = 0;
    _eligible_leaders = 0;
    _by_in.reset(broker_count());
    _by_out.reset(broker_count());
    _by_replicas.reset(broker_count());
    _by_leaders.reset(broker_count());
    for (uint32_t b = 0; b < broker_count(); b++) {
        const BrokerState& broker = _brokers[b];
        if (!broker.eligible) continue;
        _eligible_count++;
        _eligible_load = _eligible_load + broker.load;
        _eligible_replicas += broker.replica_count;
        _eligible_leaders += broker.leader_count;
        index_add(b);
    }
    _by_in.sort();
    _by_out.sort();
    _by_replicas.sort();
    _by_leaders.sort();
}

void PlanningState::count_topics() {
    if (!_tracks_topics) return;
    const uint32_t topics = topic_count();
    _topic_counts.assign(topics, {});
    _topic_eligible.assign(topics, 0);
    std::vector<int32_t> scratch(broker_count(), 0);
    std::vector<uint32_t> seen;
    for (uint32_t t = 0; t < topics; t++) {
        seen.clear();
        for (uint32_t p = _topic_begin[t]; p < _topic_begin[t + 1]; p++) {
            for (uint32_t b : replicas(p)) {
                if (scratch[b]++ == 0) seen.push_back(b);
                if (_brokers[b].eligible) _topic_eligible[t]++;
            }
        }
        std::vector<TopicBrokerCount>& counts = _topic_counts[t];
        counts.reserve(seen.size());
        if (seen.size() * 16 > broker_count()) {
            // Spread over many brokers: one pass in broker order beats a sort.
            for (uint32_t b = 0; b < broker_count(); b++) {
                if (scratch[b] != 0) counts.push_back({b, scratch[b]});
                scratch[b] = 0;
            }
            continue;
        }
        std::sort(seen.begin(), seen.end());
        for (uint32_t b : seen) {
            counts.push_back({b, scratch[b]});
            scratch[b] = 0;
        }
    }
}

void PlanningState::index_add(uint32_t b) {
    const BrokerState& broker = _brokers[b];
    _by_in.add(broker.load.bytes_in_per_s / broker.in_divisor, b);
    _by_out.add(broker.load.bytes_out_per_s / broker.out_divisor, b);
    _by_replicas.add(broker.replica_count, b);
    _by_leaders.add(broker.leader_count, b);
}

void PlanningState::change_broker(uint32_t b, const Load& delta, int32_t replica_delta,
                                  int32_t leader_delta) {
    BrokerState& broker = _brokers[b];
    broker.load = broker.load + delta;
    broker.replica_count += replica_delta;
    broker.leader_count += leader_delta;
    assert(broker.replica_count >= 0 && broker.leader_count >= 0);
    if (broker.eligible) {
        _eligible_load = _eligible_load + delta;
        _eligible_replicas += replica_delta;
        _eligible_leaders += leader_delta;
        // A rekey to an unchanged key (a follower's move leaves out and the
        // leader count where they were) compares and stays.
        _by_in.rekey(b, broker.load.bytes_in_per_s / broker.in_divisor);
        _by_out.rekey(b, broker.load.bytes_out_per_s / broker.out_divisor);
        _by_replicas.rekey(b, broker.replica_count);
        _by_leaders.rekey(b, broker.leader_count);
    }
}

void PlanningState::topic_add(uint32_t t, uint32_t b, int32_t delta) {
    if (!_tracks_topics) return;
    std::vector<TopicBrokerCount>& counts = _topic_counts[t];
    auto it = std::lower_bound(counts.begin(), counts.end(), b,
                               [](const TopicBrokerCount& c, uint32_t key) { return c.broker < key; });
    if (it == counts.end() || it->broker != b) {
        assert(delta > 0);
        it = counts.insert(it, {b, 0});
    }
    it->count += delta;
    assert(it->count >= 0);
    if (it->count == 0) counts.erase(it);
    if (_brokers[b].eligible) _topic_eligible[t] += delta;
}

// ---------------------------------------------------------------- candidates

Candidate PlanningState::move(uint32_t p, uint32_t source, uint32_t destination,
                              bool evacuation) const {
    Candidate c;
    c.kind = ActionKind::move;
    c.partition = p;
    c.source = source;
    c.destination = destination;
    c.evacuation = evacuation;
    const Partition& partition = _model.partitions[p];
    const bool source_leads = _leader[p] == static_cast<int32_t>(source);
    // The destination takes the source's slot. If the source led, the
    // destination leads after (Kafka elects the first in-sync target
    // replica). An offline partition evacuated on shared storage comes back
    // online on its destination.
    const bool revives = _leader[p] == no_leader && evacuation && _config.flavor == Flavor::automq;
    c.leader_after = (source_leads || revives) ? static_cast<int32_t>(destination) : _leader[p];
    const bool destination_leads = c.leader_after == static_cast<int32_t>(destination);
    c.load_delta[0] = Load{} - replica_load(partition, source_leads);
    c.load_delta[1] = replica_load(partition, destination_leads);
    c.replica_delta[0] = -1;
    c.replica_delta[1] = +1;
    c.leader_delta[0] = source_leads ? -1 : 0;
    c.leader_delta[1] = destination_leads ? +1 : 0;
    return c;
}

Candidate PlanningState::swap(uint32_t p, uint32_t source, uint32_t q, uint32_t destination) const {
    Candidate c;
    c.kind = ActionKind::swap;
    c.partition = p;
    c.swap_partition = q;
    c.source = source;
    c.destination = destination;
    const bool p_led = _leader[p] == static_cast<int32_t>(source);
    const bool q_led = _leader[q] == static_cast<int32_t>(destination);
    c.leader_after = p_led ? static_cast<int32_t>(destination) : _leader[p];
    c.swap_leader_after = q_led ? static_cast<int32_t>(source) : _leader[q];
    const Load p_load = replica_load(_model.partitions[p], p_led);
    const Load q_load = replica_load(_model.partitions[q], q_led);
    c.load_delta[0] = q_load - p_load;
    c.load_delta[1] = p_load - q_load;
    c.leader_delta[0] = static_cast<int32_t>(q_led) - static_cast<int32_t>(p_led);
    c.leader_delta[1] = -c.leader_delta[0];
    return c;
}

Candidate PlanningState::leader_change(uint32_t p, uint32_t source, uint32_t destination) const {
    Candidate c;
    c.kind = ActionKind::leader;
    c.partition = p;
    c.source = source;
    c.destination = destination;
    c.leader_after = static_cast<int32_t>(destination);
    const Partition& partition = _model.partitions[p];
    const Load shift = replica_load(partition, true) - replica_load(partition, false);
    c.load_delta[0] = Load{} - shift;
    c.load_delta[1] = shift;
    c.leader_delta[0] = -1;
    c.leader_delta[1] = +1;
    return c;
}

bool PlanningState::valid(const Candidate& c, bool repair) const {
    if (c.source >= broker_count() || c.destination >= broker_count()) return false;
    if (c.source == c.destination || c.partition >= partition_count()) return false;
    const BrokerState& source = _brokers[c.source];
    const BrokerState& destination = _brokers[c.destination];
    const bool source_gives = repair ? source.gives_for_repair() : source.eligible;
    switch (c.kind) {
        case ActionKind::move:
            if (!holds(c.source, c.partition) || holds(c.destination, c.partition)) return false;
            if (!copyable(c.partition)) return false;
            if (c.evacuation) {
                return source.evacuating() && destination.hosts_evacuees() &&
                       !excluded(c.partition) && !in_flight(c.partition);
            }
            return movable(c.partition) && source_gives && destination.eligible &&
                   (repair || !returns_early(c.partition, c.destination));
        case ActionKind::swap:
            if (!_config.swaps_allowed) return false;
            if (c.swap_partition >= partition_count() || c.swap_partition == c.partition) return false;
            if (!copyable(c.partition) || !copyable(c.swap_partition)) return false;
            if (!repair && (returns_early(c.partition, c.destination) || returns_early(c.swap_partition, c.source))) {
                return false;
            }
            return movable(c.partition) && movable(c.swap_partition) && source_gives &&
                   destination.eligible && holds(c.source, c.partition) &&
                   !holds(c.destination, c.partition) && holds(c.destination, c.swap_partition) &&
                   !holds(c.source, c.swap_partition);
        case ActionKind::leader:
            if (!_config.leader_changes_allowed) return false;
            if (!repair && leadership_returns_early(c.partition, c.destination)) return false;
            return movable(c.partition) && partition(c.partition).replica_count > 1 &&
                   _leader[c.partition] == static_cast<int32_t>(c.source) &&
                   holds(c.destination, c.partition) && in_sync(c.partition, c.destination) && source_gives &&
                   destination.eligible;
    }
    return false;
}

// ---------------------------------------------------------------- apply / undo

namespace {
std::vector<int32_t> ids_of(const PlanningState& state, std::span<const uint32_t> slots) {
    std::vector<int32_t> ids;
    ids.reserve(slots.size());
    for (uint32_t b : slots) ids.push_back(state.broker_id(b));
    return ids;
}
}  // namespace

Action PlanningState::describe(const Candidate& c, GoalKind goal) const {
    Action action;
    action.kind = c.kind;
    action.partition = c.partition;
    action.source = broker_id(c.source);
    action.destination = broker_id(c.destination);
    action.replicas_before = ids_of(*this, replicas(c.partition));
    if (c.kind == ActionKind::swap) {
        action.swap_partition = c.swap_partition;
        action.swap_replicas_before = ids_of(*this, replicas(c.swap_partition));
    }
    action.goal = goal;
    action.evacuation = c.evacuation;
    action.loads.push_back({broker_id(c.source), broker_load(c.source), {}});
    action.loads.push_back({broker_id(c.destination), broker_load(c.destination), {}});
    return action;
}

void PlanningState::count_action(const Candidate& c, int32_t delta) {
    for (int side = 0; side < 2; side++) {
        if (!counts_against_budget(c, side)) continue;
        const uint32_t b = c.broker(side);
        const bool before = broker_budget_left(b);
        assert(delta > 0 || _broker_actions[b] > 0);
        _broker_actions[b] = static_cast<uint32_t>(static_cast<int64_t>(_broker_actions[b]) + delta);
        const bool after = broker_budget_left(b);
        if (!_brokers[b].eligible || before == after) continue;
        uint32_t& in_rack = _rack_eligible_with_budget[_brokers[b].rack];
        if (after) {
            _eligible_with_budget++;
            in_rack++;
        } else {
            assert(_eligible_with_budget > 0 && in_rack > 0);
            _eligible_with_budget--;
            in_rack--;
        }
    }
    assert(_eligible_with_budget <= _eligible_count);
}

void PlanningState::apply(const Candidate& c, GoalKind goal) {
    assert(_trials == 0 && "a trial is taken back before anything else applies");
    Action action = describe(c, goal);
    apply_change(c);
    action.replicas_after = ids_of(*this, replicas(c.partition));
    if (c.kind == ActionKind::swap) {
        action.swap_replicas_after = ids_of(*this, replicas(c.swap_partition));
    }
    action.loads[0].after = broker_load(c.source);
    action.loads[1].after = broker_load(c.destination);
    _actions.push_back(std::move(action));
}

void PlanningState::undo_last() {
    assert(_trials == 0 && !_actions.empty());
    _actions.pop_back();
    undo_change();
}

void PlanningState::apply_trial(const Candidate& c) {
    apply_change(c);
    _trials++;
}

void PlanningState::undo_trial() {
    assert(_trials > 0);
    _trials--;
    undo_change();
}

void PlanningState::apply_change(const Candidate& c) {
    assert(valid(c, true));
    assert(within_broker_budget(c));
    Undo undo;
    undo.candidate = c;
    undo.leader_before = _leader[c.partition];
    const Partition& partition = _model.partitions[c.partition];
    uint32_t* slots = _replicas.data() + partition.replica_begin;
    switch (c.kind) {
        case ActionKind::move:
            undo.slot = slot_of(c.partition, c.source);
            slots[undo.slot] = c.destination;
            topic_add(partition.topic, c.destination, +1);
            topic_add(partition.topic, c.source, -1);
            break;
        case ActionKind::swap: {
            const Partition& other = _model.partitions[c.swap_partition];
            undo.swap_leader_before = _leader[c.swap_partition];
            undo.slot = slot_of(c.partition, c.source);
            undo.swap_slot = slot_of(c.swap_partition, c.destination);
            slots[undo.slot] = c.destination;
            _replicas[other.replica_begin + undo.swap_slot] = c.source;
            _leader[c.swap_partition] = c.swap_leader_after;
            _touched[c.swap_partition]++;
            topic_add(partition.topic, c.destination, +1);
            topic_add(partition.topic, c.source, -1);
            topic_add(other.topic, c.source, +1);
            topic_add(other.topic, c.destination, -1);
            break;
        }
        case ActionKind::leader:
            // The new leader becomes the preferred replica: first in the
            // list, the others keep their order.
            undo.slot = slot_of(c.partition, c.destination);
            std::rotate(slots, slots + undo.slot, slots + undo.slot + 1);
            break;
    }
    _leader[c.partition] = c.leader_after;
    _touched[c.partition]++;
    change_broker(c.source, c.load_delta[0], c.replica_delta[0], c.leader_delta[0]);
    change_broker(c.destination, c.load_delta[1], c.replica_delta[1], c.leader_delta[1]);
    _undo.push_back(undo);
    count_action(c, +1);
}

void PlanningState::undo_change() {
    assert(!_undo.empty());
    const Undo undo = _undo.back();
    const Candidate& c = undo.candidate;
    _undo.pop_back();
    count_action(c, -1);
    const Partition& partition = _model.partitions[c.partition];
    uint32_t* slots = _replicas.data() + partition.replica_begin;
    change_broker(c.source, Load{} - c.load_delta[0], -c.replica_delta[0], -c.leader_delta[0]);
    change_broker(c.destination, Load{} - c.load_delta[1], -c.replica_delta[1], -c.leader_delta[1]);
    switch (c.kind) {
        case ActionKind::move:
            slots[undo.slot] = c.source;
            topic_add(partition.topic, c.source, +1);
            topic_add(partition.topic, c.destination, -1);
            break;
        case ActionKind::swap: {
            const Partition& other = _model.partitions[c.swap_partition];
            slots[undo.slot] = c.source;
            _replicas[other.replica_begin + undo.swap_slot] = c.destination;
            _leader[c.swap_partition] = undo.swap_leader_before;
            _touched[c.swap_partition]--;
            topic_add(partition.topic, c.source, +1);
            topic_add(partition.topic, c.destination, -1);
            topic_add(other.topic, c.destination, +1);
            topic_add(other.topic, c.source, -1);
            break;
        }
        case ActionKind::leader:
            std::rotate(slots, slots + 1, slots + undo.slot + 1);
            break;
    }
    _leader[c.partition] = undo.leader_before;
    _touched[c.partition]--;
}

}  // namespace ballast::goals
