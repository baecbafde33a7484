#include "adapters/kafka/metadata/cluster_state.h"

#include <algorithm>
#include <set>

#include "actors/admin_port.h"

namespace ballast::kafka::metadata {

namespace {

std::vector<int32_t> without(const std::vector<int32_t>& list, const std::vector<int32_t>& drop) {
    std::vector<int32_t> out;
    for (const int32_t id : list) {
        if (!actors::lists_broker(drop, id)) out.push_back(id);
    }
    return out;
}

std::vector<int32_t> only(const std::vector<int32_t>& list, const std::vector<int32_t>& keep) {
    std::vector<int32_t> out;
    for (const int32_t id : list) {
        if (actors::lists_broker(keep, id)) out.push_back(id);
    }
    return out;
}

std::map<int32_t, BrokerState> build_brokers(const Observation& o, const ClusterState& previous) {
    std::map<int32_t, const wire::messages::DescribeClusterBroker*> registered;
    if (o.registered) {
        for (const wire::messages::DescribeClusterBroker& b : *o.registered) registered[b.broker_id] = &b;
    }
    auto rack_of = [&](int32_t id) -> std::string {
        if (auto it = registered.find(id); it != registered.end()) return it->second->rack.value_or("");
        if (auto it = previous.brokers.find(id); it != previous.brokers.end()) return it->second.rack;
        return {};
    };
    std::map<int32_t, BrokerState> out;
    // Alive: what metadata lists.
    for (const MetadataBroker& b : o.metadata.brokers) {
        out[b.id] = BrokerState{b.id, b.host, b.port, rack_of(b.id), false};
    }
    if (o.registered) {
        // Registered but not in metadata: fenced. Known before but no longer
        // registered: gone (left out).
        for (const auto& [id, b] : registered) {
            if (!out.count(id)) out[id] = BrokerState{id, b->host, b->port, b->rack.value_or(""), true};
        }
    } else {
        // Without DescribeCluster every broker metadata stopped listing is fenced.
        for (const auto& [id, b] : previous.brokers) {
            if (out.count(id)) continue;
            BrokerState fenced = b;
            fenced.fenced = true;
            out[id] = fenced;
        }
    }
    return out;
}

PartitionState build_partition(const MetadataPartition& p, const wire::messages::OngoingPartitionReassignment* moving) {
    PartitionState state;
    state.leader = p.leader;
    state.leader_epoch = p.leader_epoch;
    state.replicas = p.replicas;
    state.isr = p.isr;
    if (moving) {
        state.reassigning = true;
        state.adding = moving->adding_replicas;
        // The union minus the replicas being added: the current replicas.
        state.replicas = without(p.replicas, moving->adding_replicas);
        if (state.replicas.empty()) state.replicas = p.replicas;  // never report no replica at all
        state.isr = only(p.isr, state.replicas);
    }
    return state;
}

}  // namespace

const PartitionState* ClusterState::partition(const std::string& topic, int32_t partition) const {
    auto t = topics.find(topic);
    if (t == topics.end()) return nullptr;
    auto p = t->second.partitions.find(partition);
    return p == t->second.partitions.end() ? nullptr : &p->second;
}

ClusterState build_state(const Observation& o, const ClusterState& previous) {
    ClusterState state;
    state.brokers = build_brokers(o, previous);
    for (const MetadataTopic& t : o.metadata.topics) {
        auto before = previous.topics.find(t.name);
        if (t.error_code != 0) {
            // Being created or deleted: keep the last report, if any.
            if (before != previous.topics.end()) state.topics[t.name] = before->second;
            continue;
        }
        TopicState& topic = state.topics[t.name];
        for (const MetadataPartition& p : t.partitions) {
            const wire::messages::OngoingPartitionReassignment* moving =
                o.reassignments ? o.reassignments->find(t.name, p.id) : nullptr;
            PartitionState built = build_partition(p, moving);
            const PartitionState* last = nullptr;
            if (before != previous.topics.end()) {
                auto it = before->second.partitions.find(p.id);
                if (it != before->second.partitions.end()) last = &it->second;
            }
            if (moving && last && actors::same_replica_set(last->replicas, built.replicas)) {
                // Kafka lists the union target-first, which loses the old
                // order; the current replicas keep the order last reported.
                built.replicas = last->replicas;
                built.isr = only(p.isr, built.replicas);
            }
            if (!o.reassignments && before != previous.topics.end()) {
                // Reassignments unknown this poll: a partition listing more
                // replicas than before, or that was being moved, is likely
                // mid-move; keep its last report rather than the union.
                if (last && (last->reassigning || p.replicas.size() > last->replicas.size())) built = *last;
            }
            topic.partitions[p.id] = std::move(built);
        }
    }
    return state;
}

namespace {

/// The topic names a diff looks at: every name of either report, or only
/// those given (sorted either way, so the events come in the same order).
template <class OnTopic>
void for_each_topic(const ClusterState& before, const ClusterState& after, const std::set<std::string>* scope,
                    OnTopic&& on_topic) {
    if (scope) {
        for (const std::string& name : *scope) on_topic(name);
        return;
    }
    auto b = before.topics.begin();
    auto a = after.topics.begin();
    while (b != before.topics.end() || a != after.topics.end()) {
        if (a == after.topics.end() || (b != before.topics.end() && b->first < a->first)) {
            on_topic((b++)->first);
        } else if (b == before.topics.end() || a->first < b->first) {
            on_topic((a++)->first);
        } else {
            on_topic(a->first);
            ++a;
            ++b;
        }
    }
}

const TopicState* find_topic(const ClusterState& state, const std::string& name) {
    auto it = state.topics.find(name);
    return it == state.topics.end() ? nullptr : &it->second;
}

std::vector<events::Body> diff_in(const ClusterState& before, const ClusterState& after,
                                  const std::set<std::string>* scope) {
    std::vector<events::Body> out;
    auto registration = [](const BrokerState& b) {
        // Metadata lists the endpoint of the listener the poller came in
        // through; the listener's name is not in the response.
        return events::BrokerRegistered{b.id, b.rack, {events::Endpoint{"", b.host, b.port}}};
    };
    for (const auto& [id, b] : after.brokers) {
        auto was = before.brokers.find(id);
        if (was == before.brokers.end()) {
            out.push_back(registration(b));
        } else if (!b.fenced && (was->second.rack != b.rack || was->second.host != b.host ||
                                 was->second.port != b.port)) {
            out.push_back(registration(b));  // re-registered elsewhere or with another rack
        }
    }
    for (const auto& [id, b] : after.brokers) {
        auto was = before.brokers.find(id);
        if (was != before.brokers.end() && was->second.fenced && !b.fenced) {
            out.push_back(events::BrokerUnfenced{id});
        }
    }
    for_each_topic(before, after, scope, [&](const std::string& name) {
        const TopicState* t = find_topic(after, name);
        if (!t || find_topic(before, name)) return;
        size_t replication_factor = 0;
        for (const auto& [id, p] : t->partitions) replication_factor = std::max(replication_factor, p.replicas.size());
        out.push_back(events::TopicCreated{name, {}, static_cast<int32_t>(t->partitions.size()),
                                           static_cast<int16_t>(replication_factor)});
    });
    for_each_topic(before, after, scope, [&](const std::string& name) {
        const TopicState* t = find_topic(after, name);
        if (!t) return;
        const TopicState* was_topic = find_topic(before, name);
        for (const auto& [id, p] : t->partitions) {
            const PartitionState* was = nullptr;
            if (was_topic) {
                auto it = was_topic->partitions.find(id);
                if (it != was_topic->partitions.end()) was = &it->second;
            }
            if (was && was->replicas == p.replicas && was->leader == p.leader && was->isr == p.isr &&
                was->leader_epoch == p.leader_epoch) {
                continue;
            }
            out.push_back(events::PartitionChanged{name, id, p.replicas, p.leader, p.isr, p.leader_epoch});
        }
    });
    for_each_topic(before, after, scope, [&](const std::string& name) {
        if (find_topic(before, name) && !find_topic(after, name)) out.push_back(events::TopicDeleted{name});
    });
    for (const auto& [id, b] : after.brokers) {
        auto was = before.brokers.find(id);
        const bool was_fenced = was != before.brokers.end() && was->second.fenced;
        if (b.fenced && !was_fenced) out.push_back(events::BrokerFenced{id});
    }
    for (const auto& [id, b] : before.brokers) {
        if (!after.brokers.count(id)) out.push_back(events::BrokerUnregistered{id});
    }
    return out;
}

}  // namespace

std::vector<events::Body> diff(const ClusterState& before, const ClusterState& after) {
    return diff_in(before, after, nullptr);
}

std::vector<events::Body> diff_topics(const ClusterState& before, const ClusterState& after,
                                      const std::set<std::string>& topics) {
    return diff_in(before, after, &topics);
}

}  // namespace ballast::kafka::metadata
