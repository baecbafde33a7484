#include "adapters/sim/storm_generator.h"

#include <algorithm>
#include <cassert>

namespace ballast::sim {

namespace {

const std::string storm_topic = "storm";
constexpr int32_t churn_partitions = 8;
/// Churn topics alive at once; the oldest is deleted when a new one starts.
constexpr size_t churn_live_max = 4;
/// A partition's produce rate: 1-8 KiB/s, skewed towards low broker ids so
/// that planning rounds find work.
double rate_of(int32_t partition, int32_t broker, int32_t brokers) {
    return 1024.0 * (1 + partition % 8) * (broker <= brokers / 4 ? 3 : 1);
}

}  // namespace

events::Result<StormPattern> parse_storm_pattern(const std::string& text) {
    if (text == "metrics-flood") return StormPattern::metrics_flood;
    if (text == "broker-flap") return StormPattern::broker_flap;
    if (text == "topic-churn") return StormPattern::topic_churn;
    if (text == "mixed") return StormPattern::mixed;
    return events::make_error(events::ErrorCode::invalid_argument,
                              "--pattern " + text + ": expected metrics-flood, broker-flap, topic-churn or mixed");
}

const char* storm_pattern_name(StormPattern pattern) {
    switch (pattern) {
        case StormPattern::metrics_flood: return "metrics-flood";
        case StormPattern::broker_flap: return "broker-flap";
        case StormPattern::topic_churn: return "topic-churn";
        case StormPattern::mixed: return "mixed";
    }
    return "unknown";
}

StormGenerator::StormGenerator(StormSpec spec) : _spec(spec), _random(spec.seed) {
    assert(spec.brokers >= 1 && spec.partitions >= 1);
    _leader.resize(static_cast<size_t>(spec.partitions));
    for (int32_t p = 0; p < spec.partitions; p++) _leader[static_cast<size_t>(p)] = p % spec.brokers + 1;
    _fenced.assign(static_cast<size_t>(spec.brokers) + 1, 0);
}

std::vector<std::vector<events::Event>> StormGenerator::setup(size_t batch_max) const {
    std::vector<std::vector<events::Event>> batches(1);
    auto add = [&](events::Event e) {
        if (batches.back().size() >= batch_max) batches.emplace_back();
        batches.back().push_back(std::move(e));
    };
    for (int32_t b = 1; b <= _spec.brokers; b++) {
        add({0, 0, events::Source::storm,
             events::BrokerRegistered{b, "rack-" + std::to_string(b % 3), {{"PLAINTEXT", "127.0.0.1", 9092}}}});
    }
    add({0, 0, events::Source::storm, events::TopicCreated{storm_topic, {}, _spec.partitions, 1}});
    for (int32_t p = 0; p < _spec.partitions; p++) {
        const int32_t b = _leader[static_cast<size_t>(p)];
        add({0, 0, events::Source::storm, events::PartitionChanged{storm_topic, p, {b}, b, {b}, 0}});
    }
    // One report per broker for every partition it leads: the planner has loads.
    std::vector<events::PartitionMetrics> reports(static_cast<size_t>(_spec.brokers));
    for (int32_t b = 1; b <= _spec.brokers; b++) {
        reports[static_cast<size_t>(b - 1)].broker_id = b;
        reports[static_cast<size_t>(b - 1)].topics = {storm_topic};
    }
    for (int32_t p = 0; p < _spec.partitions; p++) {
        const int32_t b = _leader[static_cast<size_t>(p)];
        const double rate = rate_of(p, b, _spec.brokers);
        reports[static_cast<size_t>(b - 1)].samples.push_back({0, p, rate, rate, rate / 1024, 1ull << 30});
    }
    for (events::PartitionMetrics& r : reports) {
        // Split into events of at most 1,000 samples, as reporters batch.
        for (size_t i = 0; i < r.samples.size(); i += 1000) {
            events::PartitionMetrics part = r;
            part.samples.assign(r.samples.begin() + static_cast<std::ptrdiff_t>(i),
                                r.samples.begin() + static_cast<std::ptrdiff_t>(std::min(r.samples.size(), i + 1000)));
            add({0, 0, events::Source::storm, std::move(part)});
        }
    }
    add({0, 0, events::Source::storm, broker_report(0).body});
    return batches;
}

events::Event StormGenerator::broker_report(int64_t time_ms) const {
    events::BrokerMetrics report;
    report.sample_time_ms = time_ms;
    for (int32_t b = 1; b <= _spec.brokers; b++) {
        if (!_fenced[static_cast<size_t>(b)]) report.samples.push_back({b, 0, 0, 0, 0});
    }
    return {0, time_ms, events::Source::storm, std::move(report)};
}

void StormGenerator::moved(const std::string& topic, int32_t partition, const std::vector<int32_t>& replicas) {
    if (topic != storm_topic || partition < 0 || partition >= _spec.partitions || replicas.empty()) return;
    _leader[static_cast<size_t>(partition)] = replicas[0];
}

void StormGenerator::metrics(int64_t time_ms, std::vector<events::Event>& out) {
    const int32_t p = static_cast<int32_t>(_next_metric);
    _next_metric = (_next_metric + 1) % static_cast<uint32_t>(_spec.partitions);
    const int32_t b = _leader[static_cast<size_t>(p)];
    const double rate = rate_of(p, b, _spec.brokers);
    events::PartitionMetrics m;
    m.broker_id = b;
    m.sample_time_ms = time_ms;
    m.topics = {storm_topic};
    m.samples = {{0, p, rate, rate, rate / 1024, 1ull << 30}};
    out.push_back({0, time_ms, events::Source::storm, std::move(m)});
}

void StormGenerator::flap(int64_t time_ms, std::vector<events::Event>& out) {
    const int32_t b = _next_flap;
    _next_flap = _next_flap % _spec.brokers + 1;
    uint8_t& fenced = _fenced[static_cast<size_t>(b)];
    fenced = !fenced;
    if (fenced) {
        out.push_back({0, time_ms, events::Source::storm, events::BrokerFenced{b}});
    } else {
        out.push_back({0, time_ms, events::Source::storm, events::BrokerUnfenced{b}});
    }
}

void StormGenerator::churn(int64_t time_ms, std::vector<events::Event>& out) {
    // One event per call: create, then each partition, then (once enough
    // topics live) delete the oldest.
    if (_churn_step == 0) {
        const std::string name = "churn-" + std::to_string(_churn_topics++);
        _churn_live.push_back({name, churn_partitions});
        out.push_back({0, time_ms, events::Source::storm, events::TopicCreated{name, {}, churn_partitions, 1}});
        _churn_step = 1;
        return;
    }
    if (_churn_step <= churn_partitions) {
        const std::string& name = _churn_live.back().first;
        const int32_t p = _churn_step - 1;
        const int32_t b = static_cast<int32_t>(_random() % static_cast<uint64_t>(_spec.brokers)) + 1;
        out.push_back({0, time_ms, events::Source::storm, events::PartitionChanged{name, p, {b}, b, {b}, 0}});
        _churn_step++;
        return;
    }
    _churn_step = 0;
    if (_churn_live.size() > churn_live_max) {
        out.push_back({0, time_ms, events::Source::storm, events::TopicDeleted{_churn_live.front().first}});
        _churn_live.pop_front();
    }
}

void StormGenerator::leader_change(int64_t time_ms, std::vector<events::Event>& out) {
    // A metadata update for a partition: same replica, a new leader epoch
    // (what a poller reports after a leader election or an ISR change).
    const auto p = static_cast<int32_t>(_random() % static_cast<uint64_t>(_spec.partitions));
    const int32_t b = _leader[static_cast<size_t>(p)];
    out.push_back({0, time_ms, events::Source::storm,
                   events::PartitionChanged{storm_topic, p, {b}, b, {b}, static_cast<int32_t>(_generated % 1'000'000)}});
}

void StormGenerator::generate(size_t count, int64_t time_ms, std::vector<events::Event>& out) {
    for (size_t i = 0; i < count; i++) {
        _generated++;
        switch (_spec.pattern) {
            case StormPattern::metrics_flood: metrics(time_ms, out); break;
            case StormPattern::broker_flap:
                // One flap in 1,000 events: hundreds a second at storm rates.
                if (_generated % 1000 == 0) flap(time_ms, out); else metrics(time_ms, out);
                break;
            case StormPattern::topic_churn:
                if (_generated % 100 == 0) churn(time_ms, out); else metrics(time_ms, out);
                break;
            case StormPattern::mixed: {
                const uint64_t r = _random() % 100;
                if (r < 90) metrics(time_ms, out);
                else if (r < 95) leader_change(time_ms, out);
                else if (r < 98) {
                    // Broker flaps at a bounded rate: one in 30 of these.
                    if (_random() % 30 == 0) flap(time_ms, out); else metrics(time_ms, out);
                } else if (_random() % 20 == 0) {
                    // Topic churn at a bounded rate too (0.1%: hundreds of
                    // metadata events a second; deleted partitions keep their
                    // slots, see actors/README.md).
                    churn(time_ms, out);
                } else {
                    metrics(time_ms, out);
                }
                break;
            }
        }
    }
}

void StormPort::submit(const events::Action& action, uint32_t) {
    std::lock_guard<std::mutex> lock(_mutex);
    _pending.push_back({action, _now_ms + _delay_ms});
    _outstanding_max = std::max(_outstanding_max, _pending.size());
}

void StormPort::cancel(const events::Action& action) {
    std::lock_guard<std::mutex> lock(_mutex);
    _pending.erase(std::remove_if(_pending.begin(), _pending.end(),
                                  [&](const Pending& p) { return p.action.action_id == action.action_id; }),
                   _pending.end());
}

std::vector<events::Event> StormPort::due(int64_t now_ms) {
    std::lock_guard<std::mutex> lock(_mutex);
    std::vector<events::Event> out;
    while (!_pending.empty() && _pending.front().done_ms <= now_ms) {
        const events::Action& a = _pending.front().action;
        const auto changed = [&](const std::string& topic, int32_t partition, const std::vector<int32_t>& replicas) {
            out.push_back({0, now_ms, events::Source::storm,
                           events::PartitionChanged{topic, partition, replicas, replicas.empty() ? -1 : replicas[0],
                                                    replicas, 0}});
        };
        changed(a.topic, a.partition, a.replicas_after);
        if (a.kind == events::ActionKind::swap) changed(a.swap_topic, a.swap_partition, a.swap_replicas_after);
        out.push_back({0, now_ms, events::Source::storm, events::ActionCompleted{a.action_id}});
        _pending.pop_front();
    }
    return out;
}

void StormPort::set_now(int64_t now_ms) {
    std::lock_guard<std::mutex> lock(_mutex);
    _now_ms = now_ms;
}

size_t StormPort::outstanding() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _pending.size();
}

size_t StormPort::outstanding_max() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _outstanding_max;
}

}  // namespace ballast::sim
