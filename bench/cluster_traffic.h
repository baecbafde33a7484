#pragma once

/// A synthetic cluster's traffic, reported the way the Kafka adapter reports
/// it: the metrics events a journal receives from a 100,000-partition cluster
/// every 10 s. For the journal's size benchmarks (journal_size_bench.cc),
/// where what matters is that values look like a real cluster's: a compact
/// sample codec (values rounded to a relative precision, partition ids
/// run-length coded, RocksDB's compression on top) gains nothing from
/// constant or repeating values that it would not gain in service, and loses
/// nothing real either.
///
/// The cluster (seeded, deterministic; splitmix64, no std:: distribution,
/// whose output differs between standard libraries):
///   - `topics` topics of varied partition counts (log-uniform 1..4,096, then
///     scaled to `partitions` in all): many small topics, a few of thousands;
///     names like "payments.card-authorizations" (".v2" on a name taken);
///   - each partition's leader round robin from a per-topic start broker (as
///     Kafka assigns a topic created without racks), its followers the next
///     brokers after a per-topic shift;
///   - each partition a base bytes-in rate, log-uniform 1 KiB/s .. 50 MiB/s;
///     every interval a multiplicative random walk (+-3% a step, pulled back
///     1% a step towards the base, so it wanders ~+-12% and never drifts off)
///     times its topic's daily cycle (+-30%, its own phase): no two samples of
///     a partition repeat;
///   - per topic a fan-out (1..3, real: consumers that read part of a topic)
///     and a record size (log-uniform 100 B .. 10 KiB): bytes out = bytes in x
///     fan-out, messages in = bytes in / record size, each with its own +-2%
///     (measured at other moments than bytes in);
///   - size grows by bytes in x the interval; each topic has a segment size
///     (128 MiB, 512 MiB or 1 GiB, Kafka's default) and a retention (6 h,
///     1 d, 3 d or 7 d of its base rate): past retention + a segment, the
///     oldest segment goes (a sawtooth). Sizes start at a random point of it.
///
/// How the adapter batches samples (adapters/kafka/sampler_book.cc, and the
/// AutoMQ and Cruise Control sources, automq_metrics.cc and
/// cruise_control_metrics.cc, the same way): each round gives one
/// PartitionMetrics per broker, brokers in id order, holding a sample for
/// every partition that broker leads (~1,000 here: 100,000 partitions over
/// 100 brokers), topics in name order (the cluster state is a std::map by
/// name) and partitions in id order within a topic; each report lists a topic
/// name once, at its first sample, and samples refer to it by index. Each
/// PartitionMetrics is followed by the broker's BrokerMetrics (one sample of
/// totals). sample_time_ms is when the broker's DescribeLogDirs answer came
/// (spread over a second here, broker after broker); the events' time_ms the
/// report's. The
/// sampler itself reports bytes out 0 (consumers are invisible without broker
/// metrics) and AutoMQ's source messages in 0; Cruise Control's fills all
/// three, as here: the costliest case for a codec.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "events/event.h"

namespace ballast::bench {

/// splitmix64: tiny, fast, and the same sequence everywhere.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : _state(seed) {}
    uint64_t next() {
        uint64_t z = (_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1), 53 bits.
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [low, high).
    double uniform(double low, double high) { return low + (high - low) * unit(); }
    /// Log-uniform in [low, high).
    double log_uniform(double low, double high) { return std::exp(uniform(std::log(low), std::log(high))); }
    /// Uniform integer in [0, n).
    uint64_t below(uint64_t n) { return next() % n; }

private:
    uint64_t _state;
};

struct TrafficShape {
    int32_t partitions = 100'000;
    int32_t topics = 200;
    int32_t brokers = 100;
    int32_t replication_factor = 3;  // the followers matter only to a snapshot's records
    int64_t interval_ms = 10'000;    // ballast.metrics.sample.interval.ms's default
    uint64_t seed = 1;
};

class ClusterTraffic {
public:
    struct Topic {
        std::string name;
        int32_t partitions = 0;
        int32_t first_broker = 0;  // index (0-based) of partition 0's leader
        int32_t follower_shift = 0;
        double fanout = 1;
        double record_bytes = 1000;
        uint64_t segment_bytes = 1ull << 30;
        double retention_s = 7 * 86'400.0;
        double daily_phase = 0;  // radians
    };
    struct Partition {
        uint32_t topic = 0;
        int32_t id = 0;
        int32_t leader = 0;  // broker id (1-based)
        double base_bytes_in_per_s = 0;
        double walk = 1;                // the random walk's factor
        uint64_t size_bytes = 0;
        uint64_t retention_bytes = 0;   // base rate x the topic's retention
        events::PartitionSample last;   // the newest sample (for snapshots)
    };

    explicit ClusterTraffic(const TrafficShape& shape) : _shape(shape), _random(shape.seed) {
        make_topics();
        make_partitions();
        make_reports();
    }

    const TrafficShape& shape() const { return _shape; }
    const std::vector<Topic>& topics() const { return _topics; }
    const std::vector<Partition>& partitions() const { return _partitions; }
    int32_t broker_id(int32_t index) const { return index + 1; }
    /// Replica `k` (0: the leader) of partition `p`, as a broker id.
    int32_t replica(const Partition& p, int32_t k) const {
        if (k == 0) return p.leader;
        // The leader's next brokers after the topic's shift: never the leader.
        const int32_t n = _shape.brokers;
        return (p.leader + (_topics[p.topic].follower_shift + k - 1) % (n - 1)) % n + 1;
    }

    /// Advances every partition by one interval and writes this round's
    /// reports, as the adapter batches them (see the top of the file), into
    /// `out`: a PartitionMetrics per broker, each followed by its
    /// BrokerMetrics when `with_broker_metrics`. `out` is reused from round to
    /// round (its samples are overwritten in place: no allocation after the
    /// first round). Reports are stamped `report_time_ms`; each broker's
    /// sample_time_ms is up to a second before it.
    void next_round(int64_t report_time_ms, bool with_broker_metrics, std::vector<events::Event>& out) {
        step(report_time_ms);
        const size_t per_broker = with_broker_metrics ? 2 : 1;
        if (out.size() != _reports.size() * per_broker) {
            out.clear();
            for (const Report& r : _reports) {
                events::PartitionMetrics metrics;
                metrics.broker_id = r.broker_id;
                metrics.topics = r.topics;
                metrics.samples.resize(r.partitions.size());
                out.push_back(events::Event{0, 0, events::Source::kafka_metrics, std::move(metrics)});
                if (with_broker_metrics) {
                    out.push_back(events::Event{0, 0, events::Source::kafka_metrics,
                                                events::BrokerMetrics{0, {events::BrokerSample{r.broker_id}}}});
                }
            }
        }
        for (size_t b = 0; b < _reports.size(); b++) {
            const Report& r = _reports[b];
            // The brokers' answers arrive one after another over the round's first second.
            const int64_t sample_time_ms = report_time_ms - 1000 + static_cast<int64_t>(b) * 1000 /
                                                                       static_cast<int64_t>(_reports.size());
            events::Event& event = out[b * per_broker];
            event.seq = 0;
            event.time_ms = report_time_ms;
            auto& metrics = std::get<events::PartitionMetrics>(event.body);
            metrics.sample_time_ms = sample_time_ms;
            events::BrokerSample totals{r.broker_id};
            for (size_t i = 0; i < r.partitions.size(); i++) {
                const Partition& p = _partitions[r.partitions[i]];
                events::PartitionSample& s = metrics.samples[i];
                s = p.last;
                s.topic_index = r.topic_index[i];
                totals.bytes_in_per_s += s.bytes_in_per_s;
                totals.bytes_out_per_s += s.bytes_out_per_s;
                totals.messages_in_per_s += s.messages_in_per_s;
                totals.size_bytes += s.size_bytes;
            }
            if (with_broker_metrics) {
                // Followers take the produce traffic in too (replication), as the
                // sampler counts it: a broker holds ~RF times the partitions it leads.
                totals.bytes_in_per_s *= _shape.replication_factor;
                totals.size_bytes *= static_cast<uint64_t>(_shape.replication_factor);
                events::Event& broker = out[b * per_broker + 1];
                broker.seq = 0;
                broker.time_ms = report_time_ms;
                auto& broker_metrics = std::get<events::BrokerMetrics>(broker.body);
                broker_metrics.sample_time_ms = sample_time_ms;
                broker_metrics.samples[0] = totals;
            }
        }
    }

    /// Samples in one round.
    uint64_t samples_per_round() const { return _partitions.size(); }

private:
    /// One broker's report layout, fixed for the run: which partitions, in
    /// what order, and the topic list with each sample's index into it.
    struct Report {
        int32_t broker_id = 0;
        std::vector<std::string> topics;
        std::vector<uint32_t> partitions;   // indexes into _partitions
        std::vector<uint32_t> topic_index;  // per sample, into topics
    };

    void make_topics() {
        // Names of the kind teams give topics: domain.entity[.version]; each unique.
        static constexpr std::array<const char*, 16> domains = {
            "payments", "orders", "inventory", "shipping", "users", "search", "ads", "billing",
            "fraud", "catalog", "checkout", "notifications", "analytics", "pricing", "reviews", "logistics"};
        static constexpr std::array<const char*, 20> entities = {
            "card-authorizations", "events", "clicks", "page-views", "updates", "ledger-entries",
            "status-changes", "audit-log", "cdc.public.accounts", "cdc.public.line_items", "metrics",
            "impressions", "sessions", "commands", "snapshots", "dead-letter", "enriched", "raw",
            "changelog", "retries"};
        std::vector<double> weights;
        double weight_sum = 0;
        std::set<std::string> taken;
        for (int32_t t = 0; t < _shape.topics; t++) {
            Topic topic;
            const std::string base = std::string(domains[_random.below(domains.size())]) + "." +
                                     entities[_random.below(entities.size())];
            // A name taken already gets the next version, as teams version a topic.
            topic.name = base;
            for (int version = 2; !taken.insert(topic.name).second; version++) {
                topic.name = base + ".v" + std::to_string(version);
            }
            topic.first_broker = static_cast<int32_t>(_random.below(static_cast<uint64_t>(_shape.brokers)));
            topic.follower_shift = static_cast<int32_t>(_random.below(static_cast<uint64_t>(_shape.brokers - 1)));
            topic.fanout = _random.uniform(1.0, 3.0);
            topic.record_bytes = _random.log_uniform(100.0, 10'240.0);
            static constexpr std::array<uint64_t, 4> segments = {128ull << 20, 512ull << 20, 1ull << 30, 1ull << 30};
            topic.segment_bytes = segments[_random.below(segments.size())];
            static constexpr std::array<double, 4> retention_hours = {6, 24, 72, 168};
            topic.retention_s = retention_hours[_random.below(retention_hours.size())] * 3600;
            topic.daily_phase = _random.uniform(0, 2 * std::numbers::pi);
            const double weight = _random.log_uniform(1.0, 4096.0);
            weights.push_back(weight);
            weight_sum += weight;
            _topics.push_back(std::move(topic));
        }
        int32_t given = 0;
        for (size_t t = 0; t < _topics.size(); t++) {
            _topics[t].partitions = std::max<int32_t>(
                1, static_cast<int32_t>(std::lround(weights[t] / weight_sum * _shape.partitions)));
            given += _topics[t].partitions;
        }
        // The rounding's remainder goes to (or comes from) the largest topic.
        auto largest = std::max_element(_topics.begin(), _topics.end(),
                                        [](const Topic& a, const Topic& b) { return a.partitions < b.partitions; });
        largest->partitions += _shape.partitions - given;
    }

    void make_partitions() {
        _partitions.reserve(static_cast<size_t>(_shape.partitions));
        for (uint32_t t = 0; t < _topics.size(); t++) {
            const Topic& topic = _topics[t];
            for (int32_t id = 0; id < topic.partitions; id++) {
                Partition p;
                p.topic = t;
                p.id = id;
                p.leader = (topic.first_broker + id) % _shape.brokers + 1;
                p.base_bytes_in_per_s = _random.log_uniform(1024.0, 50.0 * 1024 * 1024);
                p.walk = _random.uniform(0.9, 1.1);
                p.retention_bytes = static_cast<uint64_t>(p.base_bytes_in_per_s * topic.retention_s);
                p.size_bytes = static_cast<uint64_t>(
                    _random.unit() * static_cast<double>(p.retention_bytes + topic.segment_bytes));
                p.last.partition = id;
                _partitions.push_back(p);
            }
        }
    }

    void make_reports() {
        // Topics by name, partitions by id: the order of the adapter's std::maps.
        std::vector<uint32_t> by_name(_topics.size());
        for (uint32_t t = 0; t < by_name.size(); t++) by_name[t] = t;
        std::sort(by_name.begin(), by_name.end(),
                  [&](uint32_t a, uint32_t b) { return _topics[a].name < _topics[b].name; });
        std::vector<uint32_t> first_partition(_topics.size());
        for (uint32_t i = 0, t = 0; t < _topics.size(); t++) {
            first_partition[t] = i;
            i += static_cast<uint32_t>(_topics[t].partitions);
        }
        _reports.resize(static_cast<size_t>(_shape.brokers));
        for (int32_t b = 0; b < _shape.brokers; b++) _reports[static_cast<size_t>(b)].broker_id = broker_id(b);
        for (const uint32_t t : by_name) {
            for (int32_t id = 0; id < _topics[t].partitions; id++) {
                const uint32_t index = first_partition[t] + static_cast<uint32_t>(id);
                Report& r = _reports[static_cast<size_t>(_partitions[index].leader - 1)];
                if (r.topics.empty() || r.topics.back() != _topics[t].name) r.topics.push_back(_topics[t].name);
                r.partitions.push_back(index);
                r.topic_index.push_back(static_cast<uint32_t>(r.topics.size() - 1));
            }
        }
    }

    /// One interval of every partition's traffic.
    void step(int64_t time_ms) {
        const double interval_s = static_cast<double>(_shape.interval_ms) / 1000;
        const double day_fraction = static_cast<double>(time_ms % 86'400'000) / 86'400'000.0;
        std::vector<double>& daily = _daily;
        daily.resize(_topics.size());
        for (size_t t = 0; t < _topics.size(); t++) {
            daily[t] = 1 + 0.3 * std::sin(2 * std::numbers::pi * day_fraction + _topics[t].daily_phase);
        }
        for (Partition& p : _partitions) {
            const Topic& topic = _topics[p.topic];
            const uint64_t bits = _random.next();
            // Two 32-bit uniforms make a triangular step in (-3%, +3%).
            const double u1 = static_cast<double>(bits & 0xffffffffu) * 0x1.0p-32;
            const double u2 = static_cast<double>(bits >> 32) * 0x1.0p-32;
            p.walk += 0.01 * (1 - p.walk);
            p.walk *= 1 + 0.03 * (u1 + u2 - 1);
            const double bytes_in_per_s = p.base_bytes_in_per_s * p.walk * daily[p.topic];
            const uint64_t noise = _random.next();
            const double out_noise = 1 + 0.02 * (static_cast<double>(noise & 0xffffffffu) * 0x1.0p-31 - 1);
            const double messages_noise = 1 + 0.02 * (static_cast<double>(noise >> 32) * 0x1.0p-31 - 1);
            p.size_bytes += static_cast<uint64_t>(std::llround(bytes_in_per_s * interval_s));
            while (p.size_bytes > p.retention_bytes + topic.segment_bytes) p.size_bytes -= topic.segment_bytes;
            p.last.bytes_in_per_s = bytes_in_per_s;
            p.last.bytes_out_per_s = bytes_in_per_s * topic.fanout * out_noise;
            p.last.messages_in_per_s = bytes_in_per_s / topic.record_bytes * messages_noise;
            p.last.size_bytes = p.size_bytes;
        }
    }

    TrafficShape _shape;
    SplitMix64 _random;
    std::vector<Topic> _topics;
    std::vector<Partition> _partitions;
    std::vector<Report> _reports;
    std::vector<double> _daily;
};

}  // namespace ballast::bench
