#include "goals/planning_state.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>

#include "goals/broker_stability.h"
#include "goals/copy_estimate.h"

namespace ballast::goals {
namespace {

/// totals_version's source: unique across states, so that a cache keyed by
/// it never takes one state's totals for another's.
std::atomic<uint64_t> totals_versions{0};

/// The most (topic, broker) counts kept dense (PlanningState::_topic_dense):
/// 16 MiB of counts, 4,000 topics on 1,000 brokers.
constexpr size_t topic_dense_max = size_t{4} << 20;

}  // namespace

PlanningState::PlanningState(const ClusterModel& model, const PlannerConfig& config,
                             bool track_topics)
    : _model(model), _config(config), _tracks_topics(track_topics) {
    build_brokers();
    _rack_eligible.assign(std::max<size_t>(1, _model.racks.size()), 0);
    for (const BrokerState& broker : _brokers) _rack_eligible[broker.rack] += broker.eligible;
    _rack_eligible_with_budget = _rack_eligible;
    start_rack_open();
    build_overlay();
    finish_aggregates();
    // No action yet: every eligible broker has its whole budget.
    _broker_actions.assign(_brokers.size(), 0);
    _eligible_with_budget = _eligible_count;
}

void PlanningState::reserve_actions() {
    _actions.reserve(std::min<size_t>(_config.actions_max, _model.partitions.size()));
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
    _marks.assign(partition_count, 0);
    _holder_epoch.assign(_brokers.size(), 0);
    // One estimate per partition per plan: a few flops each, and the flags
    // cost a byte a partition only where copies are throttled.
    const bool throttled = _config.flavor == Flavor::apache && _config.replication_throttle_bytes_per_s > 0;
    _uncopyable.assign(throttled ? partition_count : 0, 0);
    for (size_t p = 0; throttled && p < partition_count; p++) {
        _uncopyable[p] = estimate_copy(_model.partitions[p], _config).verdict != CopyVerdict::fits;
    }
    // One pass over the partitions (a large model's partitions outgrow the
    // caches, so each further pass reads them from memory again): the leaders and
    // fixed partitions, the replicas per broker, the brokers' sums (in
    // partition order, then slot order, as recompute_aggregates adds them),
    // rack_open, and per topic its first partition and counts.
    std::vector<uint32_t> per_broker(brokers + 1, 0);
    clear_sums();
    TopicCounter topics(*this);
    for (size_t p = 0; p < partition_count; p++) {
        const Partition& partition = _model.partitions[p];
        if (partition.leader >= 0) _leader[p] = static_cast<int32_t>(index(partition.leader));
        if (partition.excluded || in_flight(static_cast<uint32_t>(p)) || cooling_down(static_cast<uint32_t>(p))) {
            _marks[p] = fixed_mark;
        }
        topics.start(static_cast<uint32_t>(p));
        for (uint32_t b : replicas(static_cast<uint32_t>(p))) {
            per_broker[b + 1]++;
            add_to_sums(partition, b, _leader[p] == static_cast<int32_t>(b));
            topics.count(b);
        }
        rack_open_add(static_cast<uint32_t>(p), +1);
    }
    topics.finish();
    // Compressed rows: the model's partitions of each broker, in partition order.
    for (uint32_t b = 0; b < brokers; b++) per_broker[b + 1] += per_broker[b];
    fill_rows(std::move(per_broker));
}

void PlanningState::fill_rows(std::vector<uint32_t> begin) {
    _broker_partition_begin = begin;
    _broker_partitions.resize(_model.replicas.size());
    for (uint32_t p = 0; p < partition_count(); p++) {
        for (uint32_t b : replicas(p)) _broker_partitions[begin[b]++] = p;
    }
}

void PlanningState::start_next_round() {
    assert(_actions.empty() && _trials == 0);
    const uint32_t brokers = broker_count();
    for (uint8_t& mark : _marks) mark &= fixed_mark;
    std::fill(_holder_epoch.begin(), _holder_epoch.end(), 0);
    _undone = 0;
    _undo.clear();
    std::fill(_broker_actions.begin(), _broker_actions.end(), 0);
    _eligible_with_budget = _eligible_count;
    _rack_eligible_with_budget = _rack_eligible;
    std::vector<uint32_t> begin(brokers + 1, 0);
    for (uint32_t b = 0; b < brokers; b++) begin[b + 1] = begin[b] + static_cast<uint32_t>(_brokers[b].replica_count);
    fill_rows(std::move(begin));
}

PlanningState::TopicCounter::TopicCounter(PlanningState& state)
    : _state(state), _scratch(state._tracks_topics ? state.broker_count() : 0, 0) {
    const uint32_t topics = static_cast<uint32_t>(state._model.topics.size());
    state._topic_begin.assign(static_cast<size_t>(topics) + 1, 0);
    if (!state._tracks_topics) return;
    state._topic_counts.assign(topics, {});
    state._topic_eligible.assign(topics, 0);
    const size_t dense = static_cast<size_t>(topics) * state.broker_count();
    state._topic_dense.assign(dense <= topic_dense_max ? dense : 0, 0);
    state._topic_stale.assign(state._topic_dense.empty() ? 0 : topics, 0);
}

void PlanningState::TopicCounter::start(uint32_t p) {
    // Partitions are sorted by topic: topic t starts at the first partition
    // whose topic is >= t, and ends where the next one starts.
    const uint32_t topic = _state._model.partitions[p].topic;
    if (topic < _next) {
        assert(topic + 1 == _next && "ClusterModel: partitions sorted by topic");
        return;
    }
    if (_next > 0) flush(_next - 1);
    while (_next <= topic) _state._topic_begin[_next++] = p;
}

void PlanningState::TopicCounter::finish() {
    if (_next > 0) flush(_next - 1);
    const uint32_t topics = static_cast<uint32_t>(_state._topic_begin.size() - 1);
    while (_next <= topics) _state._topic_begin[_next++] = _state.partition_count();
}

void PlanningState::TopicCounter::flush(uint32_t t) {
    if (!_state._tracks_topics) return;
    const uint32_t brokers = _state.broker_count();
    std::vector<TopicBrokerCount>& counts = _state._topic_counts[t];
    counts.reserve(_seen.size());
    if (!_state._topic_dense.empty()) {
        for (uint32_t b : _seen) _state._topic_dense[static_cast<size_t>(t) * brokers + b] = _scratch[b];
    }
    if (_seen.size() * 16 > brokers) {
        // Spread over many brokers: one pass in broker order beats a sort.
        for (uint32_t b = 0; b < brokers; b++) {
            if (_scratch[b] != 0) counts.push_back({b, _scratch[b]});
            _scratch[b] = 0;
        }
    } else {
        std::sort(_seen.begin(), _seen.end());
        for (uint32_t b : _seen) {
            counts.push_back({b, _scratch[b]});
            _scratch[b] = 0;
        }
    }
    _seen.clear();
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

double PlanningState::eligible_total(Resource resource) const {
    return load_of(_eligible_load, resource);
}

std::span<const TopicBrokerCount> PlanningState::topic_counts(uint32_t t) const {
    assert(_tracks_topics);
    std::vector<TopicBrokerCount>& counts = _topic_counts[t];
    if (!_topic_stale.empty() && _topic_stale[t] != 0) {
        // Listed again from the dense counts, in broker order as kept.
        _topic_stale[t] = 0;
        counts.clear();
        const int32_t* row = _topic_dense.data() + static_cast<size_t>(t) * broker_count();
        for (uint32_t b = 0; b < broker_count(); b++) {
            if (row[b] != 0) counts.push_back({b, row[b]});
        }
    }
    return counts;
}

int32_t PlanningState::topic_count_on(uint32_t t, uint32_t b) const {
    assert(_tracks_topics);
    if (!_topic_dense.empty()) return _topic_dense[static_cast<size_t>(t) * broker_count() + b];
    const std::vector<TopicBrokerCount>& counts = _topic_counts[t];
    auto it = std::lower_bound(counts.begin(), counts.end(), b,
                               [](const TopicBrokerCount& c, uint32_t key) { return c.broker < key; });
    return (it != counts.end() && it->broker == b) ? it->count : 0;
}

BrokerLoad PlanningState::broker_load(uint32_t b) const {
    return {_brokers[b].load, _brokers[b].replica_count, _brokers[b].leader_count};
}

// ---------------------------------------------------------------- aggregates

void PlanningState::clear_sums() {
    for (BrokerState& broker : _brokers) {
        broker.load = Load{};
        broker.replica_count = 0;
        broker.leader_count = 0;
    }
}

void PlanningState::recompute_aggregates() {
    clear_sums();
    // Partition order, then slot order: the same additions in the same order
    // as for a model built from the plan's result, so the sums are identical.
    for (uint32_t p = 0; p < partition_count(); p++) {
        const Partition& partition = _model.partitions[p];
        for (uint32_t b : replicas(p)) add_to_sums(partition, b, _leader[p] == static_cast<int32_t>(b));
    }
    finish_aggregates();
}

void PlanningState::finish_aggregates() {
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
    totals_changed();
}

void PlanningState::totals_changed() {
    _totals_version = totals_versions.fetch_add(1, std::memory_order_relaxed) + 1;
}

bool PlanningState::rack_closed(uint32_t p) const {
    const std::span<const uint32_t> holders = replicas(p);
    const uint32_t limit = rack_limit(p);
    // Too few replicas to give every rack with an eligible broker its limit
    // (RF 3 over four racks): open, at a glance.
    if (holders.size() < _eligible_racks.size() * limit) return false;
    std::array<uint32_t, 8> racks;
    if (holders.size() > racks.size()) return false;  // open: only a speed-up is lost
    for (size_t i = 0; i < holders.size(); i++) racks[i] = _brokers[holders[i]].rack;
    auto in_rack = [&](uint32_t rack) {
        return static_cast<uint32_t>(std::count(racks.begin(), racks.begin() + holders.size(), rack));
    };
    for (uint32_t rack : _eligible_racks) {
        if (in_rack(rack) < limit) return false;
    }
    for (size_t i = 0; i < holders.size(); i++) {
        if (in_rack(racks[i]) > limit) return false;
    }
    return true;
}

void PlanningState::start_rack_open() {
    _eligible_racks.clear();
    _eligible_rack_set = 0;
    for (uint32_t rack = 0; rack < _rack_eligible.size(); rack++) {
        if (_rack_eligible[rack] == 0) continue;
        _eligible_racks.push_back(rack);
        _eligible_rack_set = rack < 31 && _eligible_rack_set != rack_set_unknown
                                 ? _eligible_rack_set | uint32_t{1} << rack
                                 : rack_set_unknown;
    }
    _rack_open.clear();
    _rack_set.clear();
    _rack_crowded = 0;
    // Only the rack goal asks, and with one rack no move changes rack.
    if (_model.racks.size() < 2 || !has_goal(_config, GoalKind::rack_aware)) return;
    _rack_open.assign(_brokers.size(), 0);  // counted by build_overlay
    _rack_set.assign(_model.partitions.size(), rack_set_unknown);  // and this
}

void PlanningState::rack_open_add(uint32_t p, int32_t sign) {
    if (_rack_open.empty()) return;
    if (sign > 0) {
        // After a build or a change: the racks as the partition now stands.
        uint32_t set = 0;
        for (uint32_t h : replicas(p)) {
            const uint32_t bit = _brokers[h].rack < 31 ? uint32_t{1} << _brokers[h].rack : 0;
            if (bit == 0 || (set & bit) != 0) {
                set = rack_set_unknown;
                break;
            }
            set |= bit;
        }
        _rack_set[p] = set;
    }
    const uint32_t set = _rack_set[p];
    if (set != rack_set_unknown && _eligible_rack_set != rack_set_unknown) {
        // One replica a rack: no excess, and closed only when each rack
        // with an eligible broker holds one at a limit of one (or there is
        // no such rack), as rack_excess and rack_closed would count (which
        // calls more than eight replicas open).
        const bool closed = replicas(p).size() <= 8 && (rack_limit(p) == 1 ? (_eligible_rack_set & ~set) == 0
                                                                             : _eligible_rack_set == 0);
        if (closed) return;
        for (uint32_t h : replicas(p)) _rack_open[h] += sign;
        return;
    }
    if (!excluded(p) && rack_excess(p) > 0) _rack_crowded += sign;
    if (rack_closed(p)) return;
    for (uint32_t h : replicas(p)) _rack_open[h] += sign;
}

uint32_t PlanningState::rack_excess(uint32_t p) const {
    const std::span<const uint32_t> holders = replicas(p);
    const size_t n = holders.size();
    if (n <= 1) return 0;  // one replica never crowds a rack
    const uint32_t limit = rack_limit(p);
    // A rack's excess is its replicas past the limit-th: count each replica
    // that has at least `limit` before it in its rack. Every state build
    // asks this of every partition, so the racks are read once, into a
    // small array (RF past its size reads them in place).
    uint32_t excess = 0;
    if (n == 3) {  // the usual RF, unrolled: every build asks it of every partition
        const uint32_t r0 = _brokers[holders[0]].rack;
        const uint32_t r1 = _brokers[holders[1]].rack;
        const uint32_t r2 = _brokers[holders[2]].rack;
        const uint32_t before_second = r0 == r1;
        const uint32_t before_third = static_cast<uint32_t>(r0 == r2) + static_cast<uint32_t>(r1 == r2);
        return static_cast<uint32_t>(before_second >= limit) + static_cast<uint32_t>(before_third >= limit);
    }
    if (n <= 8) {
        uint32_t racks[8];
        for (size_t i = 0; i < n; i++) racks[i] = _brokers[holders[i]].rack;
        for (size_t i = 1; i < n; i++) {
            uint32_t before = 0;
            for (size_t j = 0; j < i; j++) before += racks[j] == racks[i];
            excess += before >= limit;
        }
        return excess;
    }
    for (size_t i = 1; i < n; i++) {
        const uint32_t rack = _brokers[holders[i]].rack;
        uint32_t before = 0;
        for (size_t j = 0; j < i; j++) before += _brokers[holders[j]].rack == rack;
        excess += before >= limit;
    }
    return excess;
}

void PlanningState::rack_open_change(const Candidate& c, int32_t sign) {
    if (c.kind == ActionKind::leader) return;
    rack_open_add(c.partition, sign);
    if (c.kind == ActionKind::swap) rack_open_add(c.swap_partition, sign);
}

void PlanningState::holders_changed(const Candidate& c) {
    for (uint32_t h : replicas(c.partition)) _holder_epoch[h]++;
    _holder_epoch[c.destination]++;  // a move's: holds it after, not before
    if (c.kind == ActionKind::swap) {
        for (uint32_t h : replicas(c.swap_partition)) _holder_epoch[h]++;
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
        rekey(b);
    }
}

void PlanningState::restore_broker(uint32_t b, const Load& load, int32_t replica_delta, int32_t leader_delta) {
    BrokerState& broker = _brokers[b];
    broker.load = load;
    broker.replica_count += replica_delta;
    broker.leader_count += leader_delta;
    assert(broker.replica_count >= 0 && broker.leader_count >= 0);
    if (broker.eligible) {
        _eligible_replicas += replica_delta;
        _eligible_leaders += leader_delta;
        rekey(b);
    }
}

void PlanningState::rekey(uint32_t b) {
    const BrokerState& broker = _brokers[b];
    // A rekey to an unchanged key (a follower's move leaves out and the
    // leader count where they were) compares and stays.
    _by_in.rekey(b, broker.load.bytes_in_per_s / broker.in_divisor);
    _by_out.rekey(b, broker.load.bytes_out_per_s / broker.out_divisor);
    _by_replicas.rekey(b, broker.replica_count);
    _by_leaders.rekey(b, broker.leader_count);
}

void PlanningState::topic_add(uint32_t t, uint32_t b, int32_t delta) {
    if (!_tracks_topics) return;
    if (_brokers[b].eligible) _topic_eligible[t] += delta;
    if (!_topic_dense.empty()) {
        // The list waits for the next topic_counts(t): an apply and its undo
        // (most tries of a group) change the same counts back and forth.
        int32_t& count = _topic_dense[static_cast<size_t>(t) * broker_count() + b];
        count += delta;
        assert(count >= 0);
        _topic_stale[t] = 1;
        return;
    }
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
}

}  // namespace ballast::goals
