#include "adapters/kafka/automq_metrics.h"

#include <cmath>

#include <spdlog/spdlog.h>

#include "adapters/kafka/metric_limits.h"
#include "adapters/kafka/wire/wire_reader.h"

namespace ballast::kafka {

namespace {

/// An int32 length of a UTF-8 field, checked against the bytes left.
std::string length_prefixed(wire::Reader& reader, const char* length_field, const char* field) {
    const size_t at = reader.offset();
    const int32_t length = reader.int32(length_field);
    if (!reader.ok()) return {};
    if (length < 0) {
        reader.fail(length_field, "negative length " + std::to_string(length), at);
        return {};
    }
    return reader.fixed_string(field, static_cast<size_t>(length));
}

bool usable(double value) { return std::isfinite(value) && value >= 0; }

}  // namespace

std::optional<double> AutomqMetric::value(uint8_t id) const {
    std::optional<double> found;
    for (const auto& [key, v] : values) {
        if (key == id) found = v;
    }
    return found;
}

events::Result<std::optional<AutomqMetric>> decode_automq_metric(std::span<const uint8_t> bytes,
                                                                  const std::string& what) {
    wire::Reader reader(bytes, "AutoMQ metric " + what);
    const int8_t type = reader.int8("type");
    if (!reader.ok()) return reader.status().error();
    if (type != 0 && type != 1) return std::optional<AutomqMetric>();  // a newer kind: skipped
    AutomqMetric metric;
    metric.type = static_cast<AutomqMetric::Type>(type);
    const size_t version_at = reader.offset();
    const int8_t version = reader.int8("version");
    if (reader.ok() && version != 0) {
        reader.fail("version", "version " + std::to_string(version) + " is not known (this reader knows 0)",
                    version_at);
    }
    metric.time_ms = reader.int64("time");
    metric.broker_id = reader.int32("broker_id");
    metric.rack = length_prefixed(reader, "rack_length", "rack");
    if (metric.type == AutomqMetric::Type::partition) {
        metric.topic = length_prefixed(reader, "topic_length", "topic");
        if (reader.ok() && metric.topic.empty()) reader.fail("topic", "empty topic name");
        const size_t partition_at = reader.offset();
        metric.partition = reader.int32("partition");
        if (reader.ok() && metric.partition < 0) {
            reader.fail("partition", "negative partition " + std::to_string(metric.partition), partition_at);
        }
    }
    const size_t count_at = reader.offset();
    const int32_t count = reader.int32("count");
    if (reader.ok() && (count < 0 || static_cast<size_t>(count) * 9 > reader.remaining())) {
        reader.fail("count",
                    "count " + std::to_string(count) + " does not fit the " + std::to_string(reader.remaining()) +
                        " bytes left (9 bytes each)",
                    count_at);
    }
    for (int32_t i = 0; reader.ok() && i < count; i++) {
        wire::Reader::Element element = reader.element("values", static_cast<size_t>(i));
        const auto id = static_cast<uint8_t>(reader.int8("id"));
        const double value = reader.float64("value");
        metric.values.emplace_back(id, value);
    }
    if (events::Status done = reader.finish(); !done) return done.error();
    return std::optional<AutomqMetric>(std::move(metric));
}

void AutomqAggregator::add(const AutomqMetric& metric) {
    _heard.insert(metric.broker_id);
    if (!metric.rack.empty()) _reporter_racks[metric.broker_id] = metric.rack;
    if (metric.type != AutomqMetric::Type::partition) return;
    PartitionValues& p = _partitions[metric.broker_id][{metric.topic, metric.partition}];
    auto take = [&](uint8_t id, double& into, const char* name) {
        const std::optional<double> v = metric.value(id);
        if (!v) return;
        if (!usable(*v) || (id == automq_ids::partition_size && !usable_size_bytes(*v))) {
            spdlog::warn("AutoMQ metric from broker {} for {}-{}: {} is {}; ignored", metric.broker_id, metric.topic,
                         metric.partition, name, *v);
            return;
        }
        into = *v;
    };
    take(automq_ids::partition_bytes_in, p.bytes_in_per_s, "bytes in/s");
    take(automq_ids::partition_bytes_out, p.bytes_out_per_s, "bytes out/s");
    take(automq_ids::partition_size, p.size_bytes, "size");
}

std::vector<events::Body> AutomqAggregator::report(int64_t now_ms) {
    std::vector<events::Body> out;
    for (const int32_t broker_id : _heard) {
        events::PartitionMetrics report;
        report.broker_id = broker_id;
        report.sample_time_ms = now_ms;
        events::BrokerSample totals;
        totals.broker_id = broker_id;
        std::map<std::string, uint32_t> topic_index;
        const bool no_partitions_heard = _partitions[broker_id].empty();
        for (const auto& [key, p] : _partitions[broker_id]) {
            auto [slot, inserted] = topic_index.emplace(key.first, static_cast<uint32_t>(report.topics.size()));
            if (inserted) report.topics.push_back(key.first);
            report.samples.push_back({slot->second, key.second, p.bytes_in_per_s, p.bytes_out_per_s, 0,
                                      static_cast<uint64_t>(p.size_bytes)});
            totals.bytes_in_per_s += p.bytes_in_per_s;
            totals.bytes_out_per_s += p.bytes_out_per_s;
            totals.size_bytes += static_cast<uint64_t>(p.size_bytes);
        }
        out.push_back(std::move(report));
        // Heard only through broker records (latencies): alive and reporting,
        // but its traffic is not known, and zeros would say it has none.
        if (!no_partitions_heard) out.push_back(events::BrokerMetrics{now_ms, {totals}});
    }
    // Each report holds only what was heard since the last one.
    _heard.clear();
    _partitions.clear();
    return out;
}

std::vector<std::string> AutomqAggregator::rack_disagreements(const metadata::ClusterState& state) {
    std::vector<std::string> lines;
    for (const auto& [id, reported] : _reporter_racks) {
        auto broker = state.brokers.find(id);
        if (broker == state.brokers.end() || broker->second.rack == reported) continue;
        const std::pair<std::string, std::string> pair{reported, broker->second.rack};
        auto [told, first] = _rack_told.try_emplace(id, pair);
        if (!first && told->second == pair) continue;
        told->second = pair;
        lines.push_back("AutoMQ's metrics reporter on broker " + std::to_string(id) + " names rack '" + reported +
                        "', but the cluster registers broker " + std::to_string(id) + " in rack '" +
                        broker->second.rack + "': Ballast places replicas by the registered rack (broker.rack)");
    }
    return lines;
}

}  // namespace ballast::kafka
