#pragma once

/// Event streams that describe a cluster, for engine tests: the setup of
/// brokers and topics, metrics reports, ticks, and seeded random streams of
/// all of them. Deterministic: the same arguments give the same events.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "events/event.h"

namespace ballast::testing {

inline events::Event at(int64_t time_ms, events::Body body,
                        events::Source source = events::Source::simulator) {
    return events::Event{0, time_ms, source, std::move(body)};
}

inline events::Event tick(int64_t time_ms) {
    return at(time_ms, events::Tick{time_ms}, events::Source::clock);
}

struct TopicSpec {
    std::string name;
    int32_t partitions = 1;
    int32_t replication_factor = 1;
};

/// Brokers 1..broker_count (rack "rack-<id % racks>"), then each topic with
/// its partitions placed round robin, leader first.
inline std::vector<events::Event> cluster_setup(int32_t broker_count, int32_t racks,
                                                const std::vector<TopicSpec>& topics,
                                                int64_t time_ms = 0) {
    std::vector<events::Event> out;
    for (int32_t b = 1; b <= broker_count; b++) {
        out.push_back(at(time_ms, events::BrokerRegistered{
                                      b, "rack-" + std::to_string(b % racks),
                                      {{"PLAINTEXT", "127.0.0.1", 9090 + b}}}));
    }
    int32_t next = 0;
    for (const TopicSpec& t : topics) {
        out.push_back(at(time_ms, events::TopicCreated{t.name, {}, t.partitions,
                                                       static_cast<int16_t>(t.replication_factor)}));
        for (int32_t p = 0; p < t.partitions; p++) {
            std::vector<int32_t> replicas;
            for (int32_t r = 0; r < t.replication_factor; r++) {
                replicas.push_back((next + r) % broker_count + 1);
            }
            next++;
            out.push_back(at(time_ms, events::PartitionChanged{t.name, p, replicas, replicas[0],
                                                               replicas, 0}));
        }
    }
    return out;
}

/// One metrics report per broker: every partition of `topic` with the given
/// rate (bytes/s in; out = in), attributed to its leader's broker.
inline std::vector<events::Event> metrics_reports(int64_t time_ms, const std::string& topic,
                                                  const std::vector<int32_t>& leaders,
                                                  const std::vector<double>& rates) {
    std::vector<events::Event> out;
    int32_t broker_max = 0;
    for (const int32_t l : leaders) broker_max = std::max(broker_max, l);
    for (int32_t b = 1; b <= broker_max; b++) {
        events::PartitionMetrics m;
        m.broker_id = b;
        m.sample_time_ms = time_ms;
        m.topics = {topic};
        for (size_t p = 0; p < leaders.size(); p++) {
            if (leaders[p] != b) continue;
            m.samples.push_back({0, static_cast<int32_t>(p), rates[p], rates[p], rates[p] / 1024,
                                 static_cast<uint64_t>(rates[p] * 60)});
        }
        out.push_back(at(time_ms, std::move(m), events::Source::kafka_metrics));
    }
    return out;
}

/// A seeded stream: a cluster of 4-6 brokers and two topics, then a minute
/// of simulated time with a tick every second, metrics every 10 s whose
/// rates drift and skew, a broker that may be fenced and come back, topics
/// and partitions that come and go, and an operator pause/resume. Open loop:
/// no action outcomes.
inline std::vector<events::Event> random_stream(uint64_t seed, int64_t duration_ms = 120'000) {
    std::mt19937_64 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    const auto brokers = static_cast<int32_t>(uniform(4, 6));
    const std::vector<TopicSpec> topics = {{"orders", static_cast<int32_t>(uniform(8, 24)), 1},
                                           {"payments", static_cast<int32_t>(uniform(4, 12)), 2}};
    std::vector<events::Event> out = cluster_setup(brokers, 3, topics);
    std::vector<std::vector<double>> rates;
    for (const TopicSpec& t : topics) {
        std::vector<double> r;
        for (int32_t p = 0; p < t.partitions; p++) r.push_back(static_cast<double>(uniform(1, 8)) * (1 << 20));
        rates.push_back(r);
    }
    const int32_t fenced = static_cast<int32_t>(uniform(1, brokers));
    const int64_t fence_at = uniform(20, 60) * 1000;
    const int64_t unfence_at = fence_at + uniform(5, 60) * 1000;
    for (int64_t t = 1000; t <= duration_ms; t += 1000) {
        if (t == fence_at) out.push_back(at(t, events::BrokerFenced{fenced}, events::Source::kafka_metadata));
        if (t == unfence_at) out.push_back(at(t, events::BrokerUnfenced{fenced}, events::Source::kafka_metadata));
        if (t % 10'000 == 0) {
            for (size_t i = 0; i < topics.size(); i++) {
                std::vector<int32_t> leaders;
                int32_t next = 0;
                for (size_t j = 0; j < i; j++) next += topics[j].partitions;
                for (int32_t p = 0; p < topics[i].partitions; p++) leaders.push_back((next + p) % brokers + 1);
                for (double& r : rates[i]) r *= 0.8 + 0.4 * static_cast<double>(uniform(0, 100)) / 100;
                for (events::Event& e : metrics_reports(t, topics[i].name, leaders, rates[i])) out.push_back(e);
            }
        }
        // Topics and partitions come and go between rounds: a topic that
        // sorts between the others appears and is deleted, one partition is
        // added, one changes replication factor.
        if (t == 30'000) {
            out.push_back(at(t, events::TopicCreated{"ledger", {}, 3, 1}, events::Source::kafka_metadata));
            for (int32_t p = 0; p < 3; p++) {
                const int32_t b = p % brokers + 1;
                out.push_back(at(t, events::PartitionChanged{"ledger", p, {b}, b, {b}, 0}, events::Source::kafka_metadata));
            }
        }
        if (t == 45'000) {
            const int32_t b = brokers;
            out.push_back(at(t, events::PartitionChanged{"payments", topics[1].partitions, {b, 1}, b, {b, 1}, 0},
                             events::Source::kafka_metadata));
        }
        if (t == 70'000) out.push_back(at(t, events::TopicDeleted{"ledger"}, events::Source::kafka_metadata));
        if (t == 80'000) {
            out.push_back(at(t, events::PartitionChanged{"orders", 0, {1, 2}, 1, {1, 2}, 1}, events::Source::kafka_metadata));
        }
        if (t == 90'000 && seed % 3 == 0) {
            out.push_back(at(t, events::OperatorCommand{events::CommandKind::pause, {}, {}, {}, "test"},
                             events::Source::operator_));
        }
        if (t == 100'000 && seed % 3 == 0) {
            out.push_back(at(t, events::OperatorCommand{events::CommandKind::resume, {}, {}, {}, "test"},
                             events::Source::operator_));
        }
        out.push_back(tick(t));
    }
    return out;
}

}  // namespace ballast::testing
