#include "adapters/kafka/sampler_book.h"

#include <algorithm>
#include <limits>

namespace ballast::kafka {

namespace {

bool contains(const std::vector<int32_t>& ids, int32_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

/// Growth per second between two readings; -1 when it cannot be told.
double rate_per_s(double before, int64_t before_ms, double after, int64_t after_ms) {
    if (before_ms < 0 || after_ms <= before_ms || after < before) return -1;
    return (after - before) * 1000.0 / static_cast<double>(after_ms - before_ms);
}

}  // namespace

void SamplerBook::add_sizes(int32_t broker_id, int64_t time_ms, const wire::messages::DescribeLogDirsResponse& response) {
    Broker& broker = _brokers[broker_id];
    std::map<PartitionKey, Replica> next;
    for (const wire::messages::DescribeLogDirsResult& dir : response.results) {
        if (!dir.error.ok()) continue;  // an offline directory reports nothing
        for (const wire::messages::DescribeLogDirsTopic& topic : dir.topics) {
            for (const wire::messages::DescribeLogDirsPartition& p : topic.partitions) {
                if (p.is_future_key) continue;  // a copy being made to another directory
                const PartitionKey key{topic.name, p.partition_index};
                Replica replica;
                replica.size_bytes = static_cast<uint64_t>(std::max<int64_t>(p.partition_size, 0));
                replica.time_ms = time_ms;
                if (auto was = broker.replicas.find(key); was != broker.replicas.end()) {
                    const double rate = rate_per_s(static_cast<double>(was->second.size_bytes), was->second.time_ms,
                                                   static_cast<double>(replica.size_bytes), time_ms);
                    if (rate >= 0) {
                        replica.growth_bytes_per_s = rate;
                        replica.growth_since_ms = was->second.time_ms;
                    } else {  // shrunk (retention) or no time passed: keep what it had
                        replica.growth_bytes_per_s = was->second.growth_bytes_per_s;
                        replica.growth_since_ms = was->second.growth_since_ms;
                    }
                }
                next[key] = replica;
            }
        }
    }
    // Replicas the broker no longer holds are forgotten.
    broker.replicas = std::move(next);
    broker.time_ms = time_ms;
    broker.samples++;
    broker.fresh = true;
}

void SamplerBook::add_end_offsets(int64_t time_ms, const std::vector<metadata::PartitionOffset>& offsets) {
    for (const metadata::PartitionOffset& o : offsets) {
        if (o.error_code != 0 || o.offset < 0) continue;
        Offsets& entry = _offsets[{o.topic, o.partition}];
        const double rate = rate_per_s(static_cast<double>(entry.end_offset), entry.time_ms,
                                       static_cast<double>(o.offset), time_ms);
        // An end offset never goes back, unless the topic was recreated: start over.
        entry.messages_in_per_s = rate >= 0 ? rate : (o.offset < entry.end_offset ? -1 : entry.messages_in_per_s);
        entry.fresh = rate >= 0;
        entry.end_offset = o.offset;
        entry.time_ms = time_ms;
    }
}

const SamplerBook::Replica* SamplerBook::replica(int32_t broker_id, const PartitionKey& key) const {
    auto b = _brokers.find(broker_id);
    if (b == _brokers.end()) return nullptr;
    auto r = b->second.replicas.find(key);
    return r == b->second.replicas.end() ? nullptr : &r->second;
}

std::vector<events::Body> SamplerBook::report(const metadata::ClusterState& state) {
    struct Estimate {
        double bytes_in_per_s = -1;  // -1: nothing known, not reported
        double bytes_out_per_s = 0;  // consumers'
        double messages_in_per_s = 0;
        uint64_t size_bytes = 0;
        bool size_known = false;
    };
    // The first sample of a broker that `state` can vouch for: its newest if
    // taken since the last report (after `state` was), else any later one.
    auto first_sample_after_state = [this](int32_t broker_id) {
        auto b = _brokers.find(broker_id);
        if (b == _brokers.end() || b->second.time_ms < 0) return std::numeric_limits<int64_t>::min();
        return b->second.fresh ? b->second.time_ms : b->second.time_ms + 1;
    };
    std::map<PartitionKey, Estimate> estimates;
    std::map<PartitionKey, Trail> trails;  // partitions no longer in `state` are forgotten
    for (const auto& [topic, t] : state.topics) {
        for (const auto& [id, p] : t.partitions) {
            const PartitionKey key{topic, id};
            Trail trail;
            if (auto was = _trails.find(key); was != _trails.end()) trail = was->second;
            const bool leader_in_sync = p.leader >= 0 && contains(p.isr, p.leader);
            if (!leader_in_sync) {
                trail.leader = -1;
            } else if (trail.leader != p.leader) {
                trail.leader = p.leader;
                trail.steady_since_ms = first_sample_after_state(p.leader);
            }
            const Replica* leader = p.leader >= 0 ? replica(p.leader, key) : nullptr;
            const auto o = _offsets.find(key);
            const bool messages_known = o != _offsets.end() && o->second.messages_in_per_s >= 0;
            Estimate e;
            if (messages_known) e.messages_in_per_s = o->second.messages_in_per_s;

            if (leader_in_sync && leader && leader->growth_bytes_per_s >= 0 &&
                leader->growth_since_ms >= trail.steady_since_ms) {
                e.bytes_in_per_s = leader->growth_bytes_per_s;
                trail.trusted_bytes_in_per_s = e.bytes_in_per_s;
                // Learned only from a growth and an offsets rate of the same round.
                if (messages_known && o->second.fresh && e.messages_in_per_s > 0 && _brokers.at(p.leader).fresh) {
                    trail.bytes_per_message = e.bytes_in_per_s / e.messages_in_per_s;
                }
            } else if (messages_known && trail.bytes_per_message >= 0) {
                e.bytes_in_per_s = e.messages_in_per_s * trail.bytes_per_message;
            } else {
                e.bytes_in_per_s = trail.trusted_bytes_in_per_s;
            }

            if (auto consumed = _messages_out.find(key); consumed != _messages_out.end()) {
                double bytes_per_message = trail.bytes_per_message;
                if (bytes_per_message < 0 && e.bytes_in_per_s > 0 && e.messages_in_per_s > 0) {
                    bytes_per_message = e.bytes_in_per_s / e.messages_in_per_s;
                }
                if (bytes_per_message > 0) e.bytes_out_per_s = consumed->second * bytes_per_message;
            }

            if (leader) {
                e.size_bytes = leader->size_bytes;
                e.size_known = true;
            } else {
                for (const int32_t b : p.isr) {
                    if (const Replica* r = replica(b, key)) {
                        e.size_bytes = std::max(e.size_bytes, r->size_bytes);
                        e.size_known = true;
                    }
                }
            }
            estimates[key] = e;
            trails[key] = trail;
        }
    }
    _trails = std::move(trails);
    for (auto& [key, o] : _offsets) o.fresh = false;

    std::vector<events::Body> out;
    for (auto& [broker_id, broker] : _brokers) {
        const bool reportable = broker.fresh && broker.samples >= 2;
        broker.fresh = false;
        auto alive = state.brokers.find(broker_id);
        if (!reportable || alive == state.brokers.end() || alive->second.fenced) continue;

        events::PartitionMetrics report;
        report.broker_id = broker_id;
        report.sample_time_ms = broker.time_ms;
        events::BrokerSample totals;
        totals.broker_id = broker_id;
        std::map<std::string, uint32_t> topic_index;
        for (const auto& [topic, t] : state.topics) {
            for (const auto& [id, p] : t.partitions) {
                if (!contains(p.replicas, broker_id)) continue;
                const Estimate& e = estimates[{topic, id}];
                if (e.bytes_in_per_s < 0) continue;  // no rate known
                // Every replica takes the produce traffic in (followers by replication).
                totals.bytes_in_per_s += e.bytes_in_per_s;
                if (p.leader != broker_id) continue;
                totals.bytes_out_per_s +=
                    e.bytes_in_per_s * static_cast<double>(p.replicas.size() - 1) + e.bytes_out_per_s;
                totals.messages_in_per_s += e.messages_in_per_s;
                if (!e.size_known) continue;  // no replica to size it by: better no sample than a size of 0
                auto [slot, inserted] = topic_index.emplace(topic, static_cast<uint32_t>(report.topics.size()));
                if (inserted) report.topics.push_back(topic);
                report.samples.push_back(
                    {slot->second, id, e.bytes_in_per_s, e.bytes_out_per_s, e.messages_in_per_s, e.size_bytes});
            }
        }
        for (const auto& [key, r] : broker.replicas) totals.size_bytes += r.size_bytes;
        out.push_back(std::move(report));
        out.push_back(events::BrokerMetrics{broker.time_ms, {totals}});
    }
    return out;
}

}  // namespace ballast::kafka
