#include "adapters/kafka/cruise_control_metrics.h"

#include <cmath>

#include <spdlog/spdlog.h>

#include "adapters/kafka/metric_limits.h"
#include "adapters/kafka/wire/wire_reader.h"

namespace ballast::kafka {

namespace {

const char* scope_name(CruiseControlMetric::Scope scope) {
    switch (scope) {
        case CruiseControlMetric::Scope::broker: return "broker";
        case CruiseControlMetric::Scope::topic: return "topic";
        case CruiseControlMetric::Scope::partition: return "partition";
    }
    return "?";
}

double value_of(const std::map<uint8_t, double>& values, uint8_t id) {
    auto it = values.find(id);
    return it == values.end() ? 0 : it->second;
}

}  // namespace

CruiseControlMetric::Scope cruise_control_scope(uint8_t id) {
    assert(id <= cruise_control_ids::last);
    if (id == cruise_control_ids::partition_size) return CruiseControlMetric::Scope::partition;
    if (id == 2 || id == 3 || (id >= 11 && id <= 15)) return CruiseControlMetric::Scope::topic;
    return CruiseControlMetric::Scope::broker;
}

events::Result<CruiseControlMetric> decode_cruise_control_metric(std::span<const uint8_t> bytes,
                                                                 const std::string& what) {
    wire::Reader reader(bytes, "Cruise Control metric " + what);
    CruiseControlMetric metric;
    const int8_t klass = reader.int8("class");
    if (reader.ok() && (klass < 0 || klass > 2)) {
        reader.fail("class", "metric class " + std::to_string(klass) + " does not exist (0 broker, 1 topic, 2 partition)",
                    0);
    }
    metric.scope = static_cast<CruiseControlMetric::Scope>(klass);
    const size_t version_at = reader.offset();
    const int8_t version = reader.int8("version");
    if (reader.ok() && version != 0) {
        reader.fail("version", "version " + std::to_string(version) + " is not known (this reader knows 0)",
                    version_at);
    }
    const size_t type_at = reader.offset();
    const int8_t type = reader.int8("raw_metric_type");
    if (reader.ok()) {
        if (type < 0 || type > cruise_control_ids::last) {
            reader.fail("raw_metric_type", "raw metric type " + std::to_string(type) + " does not exist (0-62)",
                        type_at);
        } else if (cruise_control_scope(static_cast<uint8_t>(type)) != metric.scope) {
            reader.fail("raw_metric_type",
                        "raw metric type " + std::to_string(type) + " is a " +
                            scope_name(cruise_control_scope(static_cast<uint8_t>(type))) + " metric, not a " +
                            scope_name(metric.scope) + " metric",
                        type_at);
        }
    }
    metric.type = static_cast<uint8_t>(type);
    metric.time_ms = reader.int64("time");
    metric.broker_id = reader.int32("broker_id");
    if (reader.ok() && metric.scope != CruiseControlMetric::Scope::broker) {
        const size_t at = reader.offset();
        const int32_t length = reader.int32("topic_length");
        if (reader.ok() && length <= 0) {
            reader.fail("topic_length", "topic length " + std::to_string(length) + " (expected at least 1)", at);
        }
        if (reader.ok()) metric.topic = reader.fixed_string("topic", static_cast<size_t>(length));
    }
    if (reader.ok() && metric.scope == CruiseControlMetric::Scope::partition) {
        const size_t at = reader.offset();
        metric.partition = reader.int32("partition");
        if (reader.ok() && metric.partition < 0) {
            reader.fail("partition", "negative partition " + std::to_string(metric.partition), at);
        }
    }
    metric.value = reader.float64("value");
    if (events::Status done = reader.finish(); !done) return done.error();
    return metric;
}

void CruiseControlAggregator::add(const CruiseControlMetric& m) {
    if (!std::isfinite(m.value) || m.value < 0 ||
        (m.scope == CruiseControlMetric::Scope::partition && !usable_size_bytes(m.value))) {
        spdlog::warn("Cruise Control metric type {} from broker {}{}: value {}; ignored", m.type, m.broker_id,
                     m.topic.empty() ? "" : " for " + m.topic, m.value);
        return;
    }
    BrokerValues& b = _brokers[m.broker_id];
    switch (m.scope) {
        case CruiseControlMetric::Scope::broker: b.broker[m.type] = m.value; break;
        case CruiseControlMetric::Scope::topic: b.topics[m.topic][m.type] = m.value; break;
        case CruiseControlMetric::Scope::partition: b.sizes[{m.topic, m.partition}] = m.value; break;
    }
}

std::vector<events::Body> CruiseControlAggregator::report(const metadata::ClusterState& state, int64_t now_ms) {
    namespace ids = cruise_control_ids;
    std::vector<events::Body> out;
    for (const auto& [broker_id, b] : _brokers) {
        auto alive = state.brokers.find(broker_id);
        if (alive == state.brokers.end() || alive->second.fenced) continue;
        events::PartitionMetrics report;
        report.broker_id = broker_id;
        report.sample_time_ms = now_ms;
        for (const auto& [topic, t] : state.topics) {
            std::vector<int32_t> led;
            for (const auto& [id, p] : t.partitions) {
                if (p.leader == broker_id) led.push_back(id);
            }
            if (led.empty()) continue;
            static const std::map<uint8_t, double> none;
            auto values = b.topics.find(topic);
            const std::map<uint8_t, double>& v = values == b.topics.end() ? none : values->second;
            const double share = 1.0 / static_cast<double>(led.size());
            const auto topic_index = static_cast<uint32_t>(report.topics.size());
            report.topics.push_back(topic);
            for (const int32_t id : led) {
                auto size = b.sizes.find({topic, id});
                report.samples.push_back({topic_index, id, value_of(v, ids::topic_bytes_in) * share,
                                          value_of(v, ids::topic_bytes_out) * share,
                                          value_of(v, ids::topic_messages_in_per_sec) * share,
                                          size == b.sizes.end() ? 0 : static_cast<uint64_t>(size->second)});
            }
        }
        events::BrokerSample totals;
        totals.broker_id = broker_id;
        totals.bytes_in_per_s =
            value_of(b.broker, ids::all_topic_bytes_in) + value_of(b.broker, ids::all_topic_replication_bytes_in);
        totals.bytes_out_per_s =
            value_of(b.broker, ids::all_topic_bytes_out) + value_of(b.broker, ids::all_topic_replication_bytes_out);
        totals.messages_in_per_s = value_of(b.broker, ids::all_topic_messages_in_per_sec);
        for (const auto& [key, size] : b.sizes) totals.size_bytes += static_cast<uint64_t>(size);
        out.push_back(std::move(report));
        out.push_back(events::BrokerMetrics{now_ms, {totals}});
    }
    _brokers.clear();
    return out;
}

}  // namespace ballast::kafka
