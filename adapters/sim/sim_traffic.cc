/// Traffic and metrics: how fast each partition is written, how it loads
/// its brokers, and the reports every broker sends each report interval.

#include <algorithm>
#include <cmath>
#include <map>

#include "adapters/sim/sim_cluster.h"

namespace ballast::sim {

namespace {

constexpr double pi = 3.14159265358979323846;
/// A random walk stays within e^-3 .. e^3 (1/20x .. 20x) of its start.
constexpr double walk_log_max = 3;

}  // namespace

double SimCluster::profile_rate(const SimPartition& p, int64_t time_ms) const {
    const TrafficProfile& f = p.profile;
    double rate = f.bytes_in_per_s;
    switch (f.kind) {
        case ProfileKind::constant: break;
        case ProfileKind::step: rate = time_ms < f.at_ms ? f.bytes_in_per_s : f.to_bytes_in_per_s; break;
        case ProfileKind::ramp: {
            if (time_ms <= f.at_ms) break;
            if (time_ms >= f.until_ms) {
                rate = f.to_bytes_in_per_s;
                break;
            }
            const double done = static_cast<double>(time_ms - f.at_ms) / static_cast<double>(f.until_ms - f.at_ms);
            rate = f.bytes_in_per_s + done * (f.to_bytes_in_per_s - f.bytes_in_per_s);
            break;
        }
        case ProfileKind::diurnal:
            rate = f.bytes_in_per_s *
                   (1 + f.amplitude * std::sin(2 * pi * static_cast<double>(time_ms) / static_cast<double>(f.period_ms)));
            break;
        case ProfileKind::random_walk: rate = f.bytes_in_per_s * std::exp(p.walk_log); break;
    }
    return std::max(0.0, rate * p.share * p.scale);
}

double SimCluster::bytes_in_per_s(const SimPartition& p) const {
    // Producers write to the leader: without a live one nothing is written.
    if (p.deleted || p.leader < 0 || !is_running(p.leader)) return 0;
    return profile_rate(p, _now_ms);
}

void SimCluster::apply_traffic_event(const TimedEvent& e) {
    auto it = _topic_index.find(e.select.topic);
    if (it == _topic_index.end()) return;  // deleted before the change
    std::vector<uint32_t> selected;
    for (uint32_t index : _topics[it->second].partitions) {
        const SimPartition& p = _partitions[index];
        if (!e.select.partitions.empty() &&
            std::find(e.select.partitions.begin(), e.select.partitions.end(), p.partition) ==
                e.select.partitions.end()) {
            continue;
        }
        if (e.select.led_by >= 0 && p.leader != e.select.led_by) continue;
        selected.push_back(index);
    }
    for (uint32_t index : selected) {
        SimPartition& p = _partitions[index];
        if (e.kind == TimedEvent::Kind::scale_traffic) {
            p.scale *= e.scale;
        } else {
            p.profile = e.profile;
            p.share = 1.0 / static_cast<double>(selected.size());
            p.scale = 1;
            p.walk_log = 0;
        }
    }
}

std::vector<BrokerLoad> SimCluster::broker_loads() const {
    std::vector<BrokerLoad> loads;
    for (const SimBroker& b : _brokers) {
        BrokerLoad load;
        load.id = b.id;
        load.state = b.state;
        loads.push_back(load);
    }
    auto at = [&](int32_t id) -> BrokerLoad* {
        auto it = std::lower_bound(loads.begin(), loads.end(), id,
                                   [](const BrokerLoad& l, int32_t v) { return l.id < v; });
        return it != loads.end() && it->id == id ? &*it : nullptr;
    };
    for (const SimPartition& p : _partitions) {
        if (p.deleted) continue;
        const double in = bytes_in_per_s(p);
        const double followers = static_cast<double>(p.replicas.size()) - 1;
        for (int32_t id : p.replicas) {
            BrokerLoad* load = at(id);
            if (!load) continue;
            load->replicas++;
            load->size_bytes += p.size_bytes;
            // Followers replicate what is written; only replicas in sync fetch.
            const bool fetching = id == p.leader || std::find(p.isr.begin(), p.isr.end(), id) != p.isr.end();
            if (fetching) load->bytes_in_per_s += in;
            if (id == p.leader) {
                load->leaders++;
                load->bytes_out_per_s += in * p.profile.fanout + followers * in;
            }
        }
    }
    return loads;
}

/// Every running broker reports the partitions it leads (AutoMQ's reporter
/// and Cruise Control's do the same) and its own totals. Injected faults
/// drop a broker's report or deliver it late with its original sample time.
void SimCluster::report_metrics(int64_t time_ms) {
    // Sizes grow with what was written since the last report; random walks step.
    const double elapsed_s = time_ms == 0 ? 0 : static_cast<double>(_scenario.report_interval_ms) / 1000;
    for (SimPartition& p : _partitions) {
        if (p.deleted) continue;
        p.size_bytes += bytes_in_per_s(p) * elapsed_s;
        if (p.retention_bytes > 0) p.size_bytes = std::min(p.size_bytes, std::max(p.retention_bytes, 0.0));
        if (p.profile.kind == ProfileKind::random_walk && elapsed_s > 0) {
            std::normal_distribution<double> step(0, p.profile.walk_sigma * std::sqrt(elapsed_s));
            p.walk_log = std::clamp(p.walk_log + step(_random), -walk_log_max, walk_log_max);
        }
    }
    const std::vector<BrokerLoad> loads = broker_loads();
    // One pass: the partitions each broker leads, in partition order.
    std::map<int32_t, std::vector<uint32_t>> led;
    for (uint32_t index = 0; index < _partitions.size(); index++) {
        const SimPartition& p = _partitions[index];
        if (!p.deleted && p.leader >= 0) led[p.leader].push_back(index);
    }
    for (const BrokerLoad& load : loads) {
        // A broker cut off from the controller still runs, and reports.
        if (load.state != BrokerState::running && load.state != BrokerState::isolated) continue;
        events::PartitionMetrics report;
        report.broker_id = load.id;
        report.sample_time_ms = time_ms;
        std::map<uint32_t, uint32_t> topic_slot;  // sim topic -> index in report.topics
        for (uint32_t index : led[load.id]) {
            const SimPartition& p = _partitions[index];
            auto [it, inserted] = topic_slot.emplace(p.topic, static_cast<uint32_t>(report.topics.size()));
            if (inserted) report.topics.push_back(_topics[p.topic].name);
            const double in = bytes_in_per_s(p);
            report.samples.push_back({it->second, p.partition, in, in * p.profile.fanout,
                                      in / p.profile.record_bytes, static_cast<uint64_t>(p.size_bytes)});
        }
        events::BrokerMetrics totals;
        totals.sample_time_ms = time_ms;
        double messages = 0;
        for (const events::PartitionSample& s : report.samples) messages += s.messages_in_per_s;
        totals.samples.push_back({load.id, load.bytes_in_per_s, load.bytes_out_per_s, messages,
                                  static_cast<uint64_t>(load.size_bytes)});

        const Faults& faults = _scenario.faults;
        const bool faulty = faults.active(time_ms);
        if (faulty && faults.metrics_loss_ratio > 0 &&
            std::uniform_real_distribution<double>(0, 1)(_random) < faults.metrics_loss_ratio) {
            _counters.reports_lost++;
            continue;
        }
        if (faulty && faults.metrics_late_ratio > 0 &&
            std::uniform_real_distribution<double>(0, 1)(_random) < faults.metrics_late_ratio) {
            _counters.reports_late++;
            schedule(time_ms + faults.metrics_late_by_ms, [this, report, totals] {
                emit(_now_ms, report, events::Source::simulator);
                emit(_now_ms, totals, events::Source::simulator);
            });
            continue;
        }
        emit(time_ms, std::move(report));
        emit(time_ms, std::move(totals));
    }
}

}  // namespace ballast::sim
