#include "actors/scheduler_model.h"

#include <algorithm>
#include <numeric>

namespace ballast::actors {

namespace {

bool topic_excluded(const SchedulerState& st, const std::string& topic) {
    const auto& listed = st.settings.excluded_topics;
    return std::find(listed.begin(), listed.end(), topic) != listed.end() ||
           st.memory.operator_excluded_topics.count(topic) > 0;
}

void fill_partition(const SchedulerState& st, const PartitionRecord& record, uint32_t topic,
                    const std::string& topic_name, goals::Partition& p) {
    p.topic = topic;
    p.partition = record.partition;
    p.leader = record.leader;
    p.replica_count = record.replica_count;
    // Kafka elects only an in-sync replica: the planner hands leadership to no other.
    static_assert(replicas_max <= 8, "out_of_sync_slots holds one bit per replica");
    p.out_of_sync_slots = 0;
    for (uint8_t i = 0; i < record.replica_count; i++) {
        const auto isr_end = record.isr.begin() + record.isr_count;
        if (std::find(record.isr.begin(), isr_end, record.replicas[i]) == isr_end) {
            p.out_of_sync_slots = static_cast<uint8_t>(p.out_of_sync_slots | 1u << i);
        }
    }
    p.load.bytes_in_per_s = record.bytes_in_per_s;
    p.load.bytes_out_per_s = record.bytes_out_per_s;
    p.load.size_bytes = record.size_bytes;
    p.last_moved_ms = record.last_moved_ms;
    p.left_broker = record.left_broker;
    p.left_ms = record.left_ms;
    p.left_leader = record.left_leader;
    p.left_leader_ms = record.left_leader_ms;
    p.held_until_ms = -1;  // set from the executor's backoff afterwards
    p.in_flight = false;  // overlaid from the executor's view afterwards
    p.excluded = topic_excluded(st, topic_name);
}

/// Router topic index -> rank of its name among all router topics, and the
/// indexes in name order. The model orders partitions by (rank, partition).
struct TopicRanks {
    std::vector<uint32_t> by_name;
    std::vector<uint64_t> rank;
};

TopicRanks rank_topics(const std::vector<std::string>& names) {
    TopicRanks out;
    out.by_name.resize(names.size());
    std::iota(out.by_name.begin(), out.by_name.end(), 0u);
    std::sort(out.by_name.begin(), out.by_name.end(),
              [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
    out.rank.resize(names.size());
    for (size_t i = 0; i < out.by_name.size(); i++) out.rank[out.by_name[i]] = i;
    return out;
}

/// Models up to this many partitions check each structure merge against a
/// rebuild (debug and debugoptimized builds).
constexpr size_t merge_checked_max = 20'000;

struct Keyed {
    uint64_t key;  // rank << 32 | partition
    uint32_t slot;
    bool operator<(const Keyed& o) const { return key < o.key; }
};

/// Rebuilds the partition arrays from every live slot, sorted by (topic
/// name, partition). Needed only when partitions appear, disappear or change
/// replication factor: O(P log P), rare. Slots are read as of the barrier
/// (the actors may be running ahead), in two passes: which exist, then
/// their contents.
void rebuild_partitions(SchedulerState& st, const PlanInput& input) {
    const uint32_t slots = input.slot_count;
    // Order by (topic name, partition) through integer keys: each router
    // topic's rank by name, then the partition. Slots are mostly added in
    // that order already, so the sort usually finds them sorted (1M
    // partitions: a few ms instead of ~300 ms of string compares).
    const TopicRanks ranks = rank_topics(st.router_topics);
    const std::vector<uint64_t>& rank = ranks.rank;
    std::vector<Keyed> keyed;
    keyed.reserve(slots);
    for (uint32_t slot = 0; slot < slots; slot++) {
        st.table->visit(slot, input.epoch, [&](const PartitionRecord& r) {
            if (r.exists && r.topic < st.router_topics.size()) {
                keyed.push_back({rank[r.topic] << 32 | static_cast<uint32_t>(r.partition), slot});
            }
        });
    }
    if (!std::is_sorted(keyed.begin(), keyed.end())) std::sort(keyed.begin(), keyed.end());
    std::vector<uint32_t> live;
    live.reserve(keyed.size());
    for (const Keyed& k : keyed) live.push_back(k.slot);
    goals::ClusterModel& m = st.model;
    m.topics.clear();
    m.partitions.assign(live.size(), goals::Partition{});
    m.replicas.clear();
    st.model_slots = live;
    st.slot_to_model.assign(slots, UINT32_MAX);
    uint32_t last_router_topic = UINT32_MAX;
    for (uint32_t i = 0; i < live.size(); i++) {
        st.table->visit(live[i], input.epoch, [&](const PartitionRecord& r) {
            if (r.topic != last_router_topic) {
                m.topics.push_back(st.router_topics[r.topic]);
                last_router_topic = r.topic;
            }
            goals::Partition& p = m.partitions[i];
            fill_partition(st, r, static_cast<uint32_t>(m.topics.size() - 1), m.topics.back(), p);
            p.replica_begin = static_cast<uint32_t>(m.replicas.size());
            m.replicas.insert(m.replicas.end(), r.replicas.begin(), r.replicas.begin() + r.replica_count);
        });
        st.slot_to_model[live[i]] = i;
    }
    st.structure_dirty = false;
}

/// Projections and holds of the last barrier: back to what the slots say.
/// A partition whose replication factor changed is left to the structure
/// merge (its replica slice no longer fits).
void restore_projected(SchedulerState& st, const PlanInput& input) {
    for (const uint32_t index : st.projected) {
        const PartitionRecord r = st.table->read(st.model_slots[index], input.epoch);
        goals::Partition& p = st.model.partitions[index];
        if (r.replica_count != p.replica_count) continue;
        fill_partition(st, r, p.topic, st.model.topics[p.topic], p);
        std::copy(r.replicas.begin(), r.replicas.begin() + r.replica_count,
                  st.model.replicas.begin() + p.replica_begin);
    }
    st.projected.clear();
}

/// Partitions appeared (`added`: slots), disappeared or changed replication
/// factor (`removed`: model indexes; a resized one is in both): one merge of
/// the sorted model with the sorted additions, O(P + A log A), instead of a
/// rebuild that reads and sorts every slot. Topic churn (a storm's mixed
/// pattern creates and deletes dozens of topics a second) would make every
/// round at 1M partitions a rebuild. The result is the model a rebuild makes;
/// builds with asserts check that on small models.
void merge_structure(SchedulerState& st, const PlanInput& input, const std::vector<uint32_t>& added,
                     const std::vector<uint32_t>& removed) {
    goals::ClusterModel& m = st.model;
    const TopicRanks ranks = rank_topics(st.router_topics);
    // The model's topics are router topics, in name order: walk both.
    std::vector<uint64_t> model_rank(m.topics.size());
    size_t j = 0;
    for (size_t t = 0; t < m.topics.size(); t++) {
        while (j < ranks.by_name.size() && st.router_topics[ranks.by_name[j]] != m.topics[t]) j++;
        assert(j < ranks.by_name.size() && "a model topic the router does not know");
        model_rank[t] = j;
    }
    std::vector<uint8_t> gone(m.partitions.size(), 0);
    for (const uint32_t index : removed) gone[index] = 1;
    std::vector<Keyed> additions;
    additions.reserve(added.size());
    for (const uint32_t slot : added) {
        st.table->visit(slot, input.epoch, [&](const PartitionRecord& r) {
            additions.push_back({ranks.rank[r.topic] << 32 | static_cast<uint32_t>(r.partition), slot});
        });
    }
    std::sort(additions.begin(), additions.end());

    std::vector<std::string> topics;
    std::vector<goals::Partition> partitions;
    std::vector<int32_t> replicas;
    std::vector<uint32_t> slots;
    partitions.reserve(m.partitions.size() + additions.size());
    replicas.reserve(m.replicas.size() + additions.size() * replicas_max);
    slots.reserve(partitions.capacity());
    st.slot_to_model.assign(input.slot_count, UINT32_MAX);
    uint64_t last_rank = UINT64_MAX;
    auto topic_of = [&](uint64_t rank) {
        if (rank != last_rank) {
            topics.push_back(st.router_topics[ranks.by_name[rank]]);
            last_rank = rank;
        }
        return static_cast<uint32_t>(topics.size() - 1);
    };
    auto keep = [&](uint32_t index) {
        const goals::Partition& old = m.partitions[index];
        goals::Partition p = old;
        p.topic = topic_of(model_rank[old.topic]);
        p.replica_begin = static_cast<uint32_t>(replicas.size());
        replicas.insert(replicas.end(), m.replicas.begin() + old.replica_begin,
                        m.replicas.begin() + old.replica_begin + old.replica_count);
        st.slot_to_model[st.model_slots[index]] = static_cast<uint32_t>(partitions.size());
        slots.push_back(st.model_slots[index]);
        partitions.push_back(p);
    };
    auto add = [&](const Keyed& k) {
        goals::Partition p;
        st.table->visit(k.slot, input.epoch, [&](const PartitionRecord& r) {
            const uint32_t topic = topic_of(k.key >> 32);
            fill_partition(st, r, topic, topics[topic], p);
            p.replica_begin = static_cast<uint32_t>(replicas.size());
            replicas.insert(replicas.end(), r.replicas.begin(), r.replicas.begin() + r.replica_count);
        });
        st.slot_to_model[k.slot] = static_cast<uint32_t>(partitions.size());
        slots.push_back(k.slot);
        partitions.push_back(p);
    };
    size_t next = 0;  // into additions
    for (uint32_t index = 0; index < m.partitions.size(); index++) {
        if (gone[index]) continue;
        const goals::Partition& old = m.partitions[index];
        const uint64_t key = model_rank[old.topic] << 32 | static_cast<uint32_t>(old.partition);
        while (next < additions.size() && additions[next].key < key) add(additions[next++]);
        // (topic, partition) names one live partition: never kept and added.
        assert(next == additions.size() || additions[next].key != key);
        keep(index);
    }
    while (next < additions.size()) add(additions[next++]);
    m.topics = std::move(topics);
    m.partitions = std::move(partitions);
    m.replicas = std::move(replicas);
    st.model_slots = std::move(slots);

#ifndef NDEBUG
    // The invariant that makes this a rebuild's equal, checked against one
    // where that is cheap: the clusters of the tests and the fault
    // simulation, not a storm's (asserts are on in the optimized build too).
    if (m.partitions.size() > merge_checked_max) return;
    const std::vector<std::string> merged_topics = m.topics;
    const std::vector<goals::Partition> merged = m.partitions;
    const std::vector<int32_t> merged_replicas = m.replicas;
    const std::vector<uint32_t> merged_slots = st.model_slots;
    rebuild_partitions(st, input);
    assert(m.topics == merged_topics && m.partitions == merged && m.replicas == merged_replicas &&
           st.model_slots == merged_slots && "structure merge differs from a rebuild");
#endif
}

/// Plans as if every action in flight completes: the partition's replicas
/// (and leader) are the action's target, so its load already counts on the
/// brokers it is going to. Without this a round that runs while earlier
/// moves are still copying sees their destinations as emptier than they
/// are, plans more moves onto them, and the next rounds swing back: the
/// oscillation Cruise Control and Redpanda avoid the same way. A target of
/// another replication factor (the partition changed under the action) is
/// not projected.
void project(SchedulerState& st, uint32_t index, const events::Action& action, bool swap_side) {
    const std::vector<int32_t>& target = swap_side ? action.swap_replicas_after : action.replicas_after;
    goals::Partition& p = st.model.partitions[index];
    if (target.size() != p.replica_count) return;
    int32_t* replicas = st.model.replicas.data() + p.replica_begin;
    // The out-of-sync bits follow their brokers into the target's order; a
    // replica the action adds counts as caught up, as the projection does.
    uint8_t out_of_sync = 0;
    for (size_t r = 0; r < target.size(); r++) {
        for (size_t old = 0; old < target.size(); old++) {
            if (replicas[old] == target[r] && (p.out_of_sync_slots >> old & 1u)) {
                out_of_sync = static_cast<uint8_t>(out_of_sync | 1u << r);
            }
        }
    }
    bool leader_stays = false;
    for (size_t r = 0; r < target.size(); r++) {
        replicas[r] = target[r];
        leader_stays = leader_stays || target[r] == p.leader;
    }
    p.out_of_sync_slots = out_of_sync;
    // A leader change elects the first replica; a move keeps a leader that stays.
    if (action.kind == events::ActionKind::leader || !leader_stays) p.leader = target.empty() ? -1 : target[0];
    st.projected.push_back(index);
}

}  // namespace

void update_partitions(SchedulerState& st, const PlanInput& input) {
    if (input.topics.size() != st.router_topics.size()) st.router_topics = input.topics;
    if (st.structure_dirty) {
        rebuild_partitions(st, input);
    } else {
        // Projections and holds of the last barrier first, while the model
        // indexes they name still hold.
        restore_projected(st, input);
        std::vector<uint32_t> added;    // slots
        std::vector<uint32_t> removed;  // model indexes
        for (const uint32_t slot : input.dirty_slots) {
            const PartitionRecord r = st.table->read(slot, input.epoch);
            const uint32_t index = slot < st.slot_to_model.size() ? st.slot_to_model[slot] : UINT32_MAX;
            const bool live = r.exists && r.topic < st.router_topics.size();
            if (index == UINT32_MAX) {
                if (live) added.push_back(slot);
                continue;
            }
            goals::Partition& p = st.model.partitions[index];
            if (!live || p.replica_count != r.replica_count) {
                removed.push_back(index);
                if (live) added.push_back(slot);
                continue;
            }
            fill_partition(st, r, p.topic, st.model.topics[p.topic], p);
            std::copy(r.replicas.begin(), r.replicas.begin() + r.replica_count,
                      st.model.replicas.begin() + p.replica_begin);
        }
        if (!added.empty() || !removed.empty()) merge_structure(st, input, added, removed);
    }
    st.projected.clear();

    // In flight: what the executor runs, as of this barrier.
    for (goals::Partition& p : st.model.partitions) p.in_flight = false;
    for (const TrackedAction& tracked : input.executor->inflight) {
        for (size_t i = 0; i < tracked.partition_slots.size(); i++) {
            const uint32_t slot = tracked.partition_slots[i];
            if (slot >= st.slot_to_model.size() || st.slot_to_model[slot] == UINT32_MAX) continue;
            const uint32_t index = st.slot_to_model[slot];
            st.model.partitions[index].in_flight = true;
            project(st, index, tracked.action, i == 1);
        }
    }
    // Backoff: a partition whose moves keep ending unfinished is held for
    // base x 2^(failures-1) from its last failure: no action on it, not even
    // an evacuation (one that timed out would otherwise be resubmitted at
    // once, forever). Restored like a projection at the next barrier.
    //
    // The base is the longer of the cooldown and the action timeout: a move
    // that hung for a whole timeout (an apache copy that cannot catch up with
    // its producers) is not worth trying again sooner than it took to fail,
    // and while it is in flight every plan counts it as done, so each try
    // moves other partitions to match a state that never comes, and moves
    // them back after the timeout: partitions traded between brokers.
    const int64_t hold_base_ms = st.settings.executor.hold_base_ms;
    for (const auto& [slot, backoff] : input.executor->backoff) {
        if (slot >= st.slot_to_model.size() || st.slot_to_model[slot] == UINT32_MAX) continue;
        assert(backoff.failures >= 1);
        const uint32_t index = st.slot_to_model[slot];
        const int64_t hold_ms = hold_base_ms << std::min<uint32_t>(backoff.failures - 1, 6);
        goals::Partition& p = st.model.partitions[index];
        p.held_until_ms = backoff.last_failed_ms + hold_ms;
        st.projected.push_back(index);
    }
}

}  // namespace ballast::actors
