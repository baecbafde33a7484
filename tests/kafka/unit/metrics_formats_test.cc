// The metrics reporters' formats, from records built by hand byte by byte
// from the format descriptions (AutoMQ's and Cruise Control's MetricSerde):
// good records decode to the values written, damaged ones fail naming the
// field and its offset (never a crash), and a round of records becomes the
// engine's metric events.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "adapters/kafka/automq_metrics.h"
#include "adapters/kafka/cruise_control_metrics.h"
#include "adapters/kafka/metric_limits.h"

namespace ballast::kafka {
namespace {

metadata::PartitionState part(std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    metadata::PartitionState p;
    p.replicas = std::move(replicas);
    p.leader = leader;
    p.isr = std::move(isr);
    return p;
}

/// Big-endian bytes, as Java's ByteBuffer writes them.
class Bytes {
public:
    Bytes& i8(int8_t v) { return raw(static_cast<uint64_t>(static_cast<uint8_t>(v)), 1); }
    Bytes& i32(int32_t v) { return raw(static_cast<uint32_t>(v), 4); }
    Bytes& i64(int64_t v) { return raw(static_cast<uint64_t>(v), 8); }
    Bytes& f64(double v) { return raw(std::bit_cast<uint64_t>(v), 8); }
    Bytes& text(const std::string& s) {
        i32(static_cast<int32_t>(s.size()));
        bytes.insert(bytes.end(), s.begin(), s.end());
        return *this;
    }
    std::vector<uint8_t> bytes;

private:
    Bytes& raw(uint64_t v, int n) {
        for (int i = n - 1; i >= 0; i--) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
        return *this;
    }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---------------------------------------------------------------- AutoMQ

/// A TopicPartitionMetrics record: type 0, version 0, time, broker, rack, topic, partition, values.
Bytes automq_partition(int32_t broker, const std::string& topic, int32_t partition,
                       std::vector<std::pair<int8_t, double>> values) {
    Bytes b;
    b.i8(0).i8(0).i64(1'700'000'000'123).i32(broker).text("rack-" + std::to_string(broker)).text(topic).i32(partition);
    b.i32(static_cast<int32_t>(values.size()));
    for (const auto& [id, v] : values) b.i8(id).f64(v);
    return b;
}

TEST(AutomqMetrics, APartitionRecordDecodesFieldForField) {
    const Bytes b = automq_partition(3, "orders", 7, {{0, 1024.5}, {1, 2048}, {2, 1e9}});
    events::Result<std::optional<AutomqMetric>> m = decode_automq_metric(b.bytes, "t-0@1");
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_TRUE(m->has_value());
    const AutomqMetric& metric = **m;
    EXPECT_EQ(metric.type, AutomqMetric::Type::partition);
    EXPECT_EQ(metric.time_ms, 1'700'000'000'123);
    EXPECT_EQ(metric.broker_id, 3);
    EXPECT_EQ(metric.rack, "rack-3");
    EXPECT_EQ(metric.topic, "orders");
    EXPECT_EQ(metric.partition, 7);
    EXPECT_EQ(metric.value(automq_ids::partition_bytes_in), 1024.5);
    EXPECT_EQ(metric.value(automq_ids::partition_bytes_out), 2048);
    EXPECT_EQ(metric.value(automq_ids::partition_size), 1e9);
    EXPECT_FALSE(metric.value(automq_ids::broker_metric_version).has_value());
}

TEST(AutomqMetrics, ABrokerRecordHasNoTopicAndAnEmptyRackIsAllowed) {
    Bytes b;
    b.i8(1).i8(0).i64(5).i32(2).i32(0).i32(2).i8(6).f64(2).i8(3).f64(1.25);
    auto m = decode_automq_metric(b.bytes, "t-0@2");
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_TRUE(m->has_value());
    EXPECT_EQ((*m)->type, AutomqMetric::Type::broker);
    EXPECT_EQ((*m)->rack, "");
    EXPECT_EQ((*m)->value(automq_ids::broker_metric_version), 2);
    EXPECT_EQ((*m)->value(automq_ids::broker_append_latency_avg_ms), 1.25);
}

TEST(AutomqMetrics, AnUnknownTypeIsSkippedQuietlyAsAutoMQDoes) {
    Bytes b;
    b.i8(9).i8(0).i64(5);
    auto m = decode_automq_metric(b.bytes, "t-0@3");
    ASSERT_TRUE(m.ok());
    EXPECT_FALSE(m->has_value());
}

TEST(AutomqMetrics, DamagedRecordsNameTheFieldAndOffset) {
    const Bytes good = automq_partition(3, "orders", 7, {{0, 1.0}});
    // Every truncation fails, and says where.
    for (size_t cut = 0; cut < good.bytes.size(); cut++) {
        std::vector<uint8_t> shorter(good.bytes.begin(), good.bytes.begin() + static_cast<long>(cut));
        auto m = decode_automq_metric(shorter, "t-0@9");
        ASSERT_FALSE(m.ok()) << "cut at " << cut;
        EXPECT_TRUE(contains(m.error().message, "AutoMQ metric t-0@9: ")) << m.error().message;
        EXPECT_TRUE(contains(m.error().message, " at offset ")) << m.error().message;
    }
    auto message = [](const Bytes& b) {
        auto m = decode_automq_metric(b.bytes, "t-0@9");
        return m.ok() ? std::string("ok") : m.error().message;
    };
    Bytes version = good;
    version.bytes[1] = 1;
    EXPECT_EQ(message(version), "AutoMQ metric t-0@9: version at offset 1: version 1 is not known (this reader knows 0)");
    Bytes rack;
    rack.i8(0).i8(0).i64(1).i32(3).i32(-2);
    EXPECT_EQ(message(rack), "AutoMQ metric t-0@9: rack_length at offset 14: negative length -2");
    Bytes count;
    count.i8(1).i8(0).i64(1).i32(3).i32(0).i32(1'000'000).i8(0).f64(1);
    EXPECT_EQ(message(count),
              "AutoMQ metric t-0@9: count at offset 18: count 1000000 does not fit the 9 bytes left (9 bytes each)");
    Bytes partition;
    partition.i8(0).i8(0).i64(1).i32(3).i32(0).text("t").i32(-1).i32(0);
    EXPECT_EQ(message(partition), "AutoMQ metric t-0@9: partition at offset 23: negative partition -1");
    Bytes extra = good;
    extra.i8(0);
    EXPECT_TRUE(contains(message(extra), "left over")) << message(extra);
    Bytes cut_value = automq_partition(3, "orders", 7, {{0, 1.0}, {1, 2.0}});
    cut_value.bytes.resize(cut_value.bytes.size() - 3);
    EXPECT_EQ(message(cut_value),
              "AutoMQ metric t-0@9: count at offset 38: count 2 does not fit the 15 bytes left (9 bytes each)");
    Bytes cut_id = automq_partition(3, "orders", 7, {{0, 1.0}});
    cut_id.bytes.resize(cut_id.bytes.size() - 9);  // the count says 1, no value follows
    EXPECT_TRUE(contains(message(cut_id), "count at offset 38")) << message(cut_id);
}

TEST(AutomqMetrics, ARoundBecomesPartitionAndBrokerMetricsPerBroker) {
    AutomqAggregator aggregator;
    auto add = [&](const Bytes& b) {
        auto m = decode_automq_metric(b.bytes, "r");
        ASSERT_TRUE(m.ok() && m->has_value());
        aggregator.add(**m);
    };
    add(automq_partition(1, "orders", 0, {{0, 100}, {1, 300}, {2, 5000}}));
    add(automq_partition(1, "orders", 1, {{0, 50}, {1, 0}, {2, 1000}}));
    add(automq_partition(1, "orders", 0, {{0, 110}, {1, 310}, {2, 5100}}));  // newer report wins
    add(automq_partition(2, "payments", 0, {{0, std::nan("")}, {1, 7}, {2, 10}}));
    const std::vector<events::Body> out = aggregator.report(42'000);
    ASSERT_EQ(out.size(), 4u);
    const auto& one = std::get<events::PartitionMetrics>(out[0]);
    EXPECT_EQ(one.broker_id, 1);
    EXPECT_EQ(one.sample_time_ms, 42'000) << "the engine's clock, not the brokers'";
    ASSERT_EQ(one.samples.size(), 2u);
    EXPECT_EQ(one.samples[0].bytes_in_per_s, 110);
    EXPECT_EQ(one.samples[0].bytes_out_per_s, 310);
    EXPECT_EQ(one.samples[0].size_bytes, 5100u);
    const auto& totals = std::get<events::BrokerMetrics>(out[1]);
    ASSERT_EQ(totals.samples.size(), 1u);
    EXPECT_EQ(totals.samples[0].bytes_in_per_s, 160);
    EXPECT_EQ(totals.samples[0].size_bytes, 6100u);
    const auto& two = std::get<events::PartitionMetrics>(out[2]);
    ASSERT_EQ(two.samples.size(), 1u);
    EXPECT_EQ(two.samples[0].bytes_in_per_s, 0) << "NaN dropped";
    EXPECT_EQ(two.samples[0].bytes_out_per_s, 7);
    EXPECT_TRUE(aggregator.report(43'000).empty()) << "nothing heard since";
}

TEST(AutomqMetrics, ABrokerHeardOnlyThroughItsLatenciesGetsNoZeroTotals) {
    AutomqAggregator aggregator;
    Bytes latencies;  // a broker record: append latency only
    latencies.i8(1).i8(0).i64(1'700'000'000'000).i32(4).i32(0).i32(1).i8(3).f64(2.5);
    auto m = decode_automq_metric(latencies.bytes, "r");
    ASSERT_TRUE(m.ok() && m->has_value()) << (m.ok() ? "" : m.error().message);
    aggregator.add(**m);
    const std::vector<events::Body> out = aggregator.report(1000);
    ASSERT_EQ(out.size(), 1u) << "alive and reporting, no BrokerMetrics of zeros";
    const auto& report = std::get<events::PartitionMetrics>(out[0]);
    EXPECT_EQ(report.broker_id, 4);
    EXPECT_TRUE(report.samples.empty());
}

TEST(AutomqMetrics, AReporterRackThatDisagreesWithTheClusterIsToldOnce) {
    AutomqAggregator aggregator;
    auto add = [&](int32_t broker, const std::string& rack) {
        Bytes b;
        b.i8(0).i8(0).i64(1).i32(broker).text(rack).text("orders").i32(0).i32(1).i8(0).f64(1);
        auto m = decode_automq_metric(b.bytes, "r");
        ASSERT_TRUE(m.ok() && m->has_value()) << (m.ok() ? "" : m.error().message);
        aggregator.add(**m);
    };
    metadata::ClusterState state;
    state.brokers[1] = metadata::BrokerState{1, "h", 1, "rack-a", false};
    state.brokers[2] = metadata::BrokerState{2, "h", 1, "rack-b", false};
    add(1, "rack-a");
    add(2, "rack-x");
    std::vector<std::string> told = aggregator.rack_disagreements(state);
    ASSERT_EQ(told.size(), 1u);
    EXPECT_EQ(told[0], "AutoMQ's metrics reporter on broker 2 names rack 'rack-x', but the cluster registers broker 2 "
                       "in rack 'rack-b': Ballast places replicas by the registered rack (broker.rack)");
    add(2, "rack-x");
    EXPECT_TRUE(aggregator.rack_disagreements(state).empty()) << "once";
    add(2, "rack-y");
    EXPECT_EQ(aggregator.rack_disagreements(state).size(), 1u) << "again when it changes";
    add(2, "");  // no rack named: no claim
    add(2, "rack-b");
    EXPECT_TRUE(aggregator.rack_disagreements(state).empty()) << "they agree now";
}

TEST(AutomqMetrics, ASizePastWhatAUint64HoldsIsDroppedNotConverted) {
    AutomqAggregator aggregator;
    for (const Bytes& b : {automq_partition(1, "orders", 0, {{0, 100}, {2, 1e30}}),
                           automq_partition(1, "orders", 1, {{2, metric_size_bytes_max}})}) {
        auto m = decode_automq_metric(b.bytes, "r");
        ASSERT_TRUE(m.ok() && m->has_value());
        aggregator.add(**m);
    }
    const std::vector<events::Body> out = aggregator.report(1000);
    ASSERT_EQ(out.size(), 2u);
    const auto& report = std::get<events::PartitionMetrics>(out[0]);
    ASSERT_EQ(report.samples.size(), 2u);
    EXPECT_EQ(report.samples[0].bytes_in_per_s, 100);
    EXPECT_EQ(report.samples[0].size_bytes, 0u) << "1e30 bytes dropped";
    EXPECT_EQ(report.samples[1].size_bytes, 9007199254740992u) << "the bound itself is kept";
}

// ---------------------------------------------------------------- Cruise Control

Bytes cc_broker(int8_t type, int32_t broker, double value) {
    Bytes b;
    b.i8(0).i8(0).i8(type).i64(1'700'000'000'000).i32(broker).f64(value);
    return b;
}
Bytes cc_topic(int8_t type, int32_t broker, const std::string& topic, double value) {
    Bytes b;
    b.i8(1).i8(0).i8(type).i64(1'700'000'000'000).i32(broker).text(topic).f64(value);
    return b;
}
Bytes cc_partition(int32_t broker, const std::string& topic, int32_t partition, double value) {
    Bytes b;
    b.i8(2).i8(0).i8(4).i64(1'700'000'000'000).i32(broker).text(topic).i32(partition).f64(value);
    return b;
}

TEST(CruiseControlMetrics, EachClassDecodesFieldForField) {
    auto broker = decode_cruise_control_metric(cc_broker(0, 5, 1234.5).bytes, "m-0@1");
    ASSERT_TRUE(broker.ok()) << broker.error().message;
    EXPECT_EQ(broker->scope, CruiseControlMetric::Scope::broker);
    EXPECT_EQ(broker->type, cruise_control_ids::all_topic_bytes_in);
    EXPECT_EQ(broker->time_ms, 1'700'000'000'000);
    EXPECT_EQ(broker->broker_id, 5);
    EXPECT_EQ(broker->value, 1234.5);
    auto topic = decode_cruise_control_metric(cc_topic(15, 5, "orders", 99).bytes, "m-0@2");
    ASSERT_TRUE(topic.ok()) << topic.error().message;
    EXPECT_EQ(topic->scope, CruiseControlMetric::Scope::topic);
    EXPECT_EQ(topic->topic, "orders");
    EXPECT_EQ(topic->value, 99);
    auto partition = decode_cruise_control_metric(cc_partition(5, "orders", 3, 4096).bytes, "m-0@3");
    ASSERT_TRUE(partition.ok()) << partition.error().message;
    EXPECT_EQ(partition->scope, CruiseControlMetric::Scope::partition);
    EXPECT_EQ(partition->partition, 3);
    EXPECT_EQ(partition->value, 4096);
}

TEST(CruiseControlMetrics, DamagedRecordsNameTheFieldAndOffset) {
    const Bytes good = cc_partition(5, "orders", 3, 4096);
    for (size_t cut = 0; cut < good.bytes.size(); cut++) {
        std::vector<uint8_t> shorter(good.bytes.begin(), good.bytes.begin() + static_cast<long>(cut));
        auto m = decode_cruise_control_metric(shorter, "m-0@9");
        ASSERT_FALSE(m.ok()) << "cut at " << cut;
        EXPECT_TRUE(contains(m.error().message, " at offset ")) << m.error().message;
    }
    auto message = [](const Bytes& b) {
        auto m = decode_cruise_control_metric(b.bytes, "m-0@9");
        return m.ok() ? std::string("ok") : m.error().message;
    };
    Bytes klass = cc_broker(0, 1, 1);
    klass.bytes[0] = 3;
    EXPECT_EQ(message(klass),
              "Cruise Control metric m-0@9: class at offset 0: metric class 3 does not exist (0 broker, 1 topic, 2 partition)");
    Bytes version = cc_broker(0, 1, 1);
    version.bytes[1] = 2;
    EXPECT_EQ(message(version),
              "Cruise Control metric m-0@9: version at offset 1: version 2 is not known (this reader knows 0)");
    EXPECT_EQ(message(cc_broker(63, 1, 1)),
              "Cruise Control metric m-0@9: raw_metric_type at offset 2: raw metric type 63 does not exist (0-62)");
    EXPECT_EQ(message(cc_broker(2, 1, 1)),
              "Cruise Control metric m-0@9: raw_metric_type at offset 2: raw metric type 2 is a topic metric, not a "
              "broker metric");
    Bytes topic_length;
    topic_length.i8(1).i8(0).i8(2).i64(1).i32(1).i32(0).f64(1);
    EXPECT_EQ(message(topic_length),
              "Cruise Control metric m-0@9: topic_length at offset 15: topic length 0 (expected at least 1)");
    Bytes huge;
    huge.i8(1).i8(0).i8(2).i64(1).i32(1).i32(std::numeric_limits<int32_t>::max()).f64(1);
    EXPECT_TRUE(contains(message(huge), "topic at offset 19: truncated")) << message(huge);
    Bytes extra = cc_broker(0, 1, 1);
    extra.i8(7);
    EXPECT_TRUE(contains(message(extra), "left over")) << message(extra);
}

TEST(CruiseControlMetrics, TopicRatesAreSharedByTheLeadersOnTheBroker) {
    metadata::ClusterState state;
    for (int32_t id : {1, 2}) state.brokers[id] = metadata::BrokerState{id, "h", 1, "", false};
    state.topics["orders"].partitions[0] = part({1, 2}, 1, {1, 2});
    state.topics["orders"].partitions[1] = part({1, 2}, 1, {1, 2});
    state.topics["orders"].partitions[2] = part({2, 1}, 2, {2, 1});
    CruiseControlAggregator aggregator;
    auto add = [&](const Bytes& b) {
        auto m = decode_cruise_control_metric(b.bytes, "r");
        ASSERT_TRUE(m.ok()) << m.error().message;
        aggregator.add(*m);
    };
    add(cc_topic(cruise_control_ids::topic_bytes_in, 1, "orders", 1000));
    add(cc_topic(cruise_control_ids::topic_bytes_out, 1, "orders", 3000));
    add(cc_topic(cruise_control_ids::topic_messages_in_per_sec, 1, "orders", 10));
    add(cc_partition(1, "orders", 0, 700));
    add(cc_partition(1, "orders", 2, 300));  // a follower's size: not attributed
    add(cc_broker(cruise_control_ids::all_topic_bytes_in, 1, 1000));
    add(cc_broker(cruise_control_ids::all_topic_replication_bytes_in, 1, 200));
    add(cc_broker(cruise_control_ids::all_topic_bytes_out, 1, 3000));
    add(cc_broker(cruise_control_ids::all_topic_messages_in_per_sec, 1, 10));
    add(cc_broker(cruise_control_ids::all_topic_bytes_in, 3, 5));  // broker 3 is not in the cluster
    const auto out = aggregator.report(state, 7000);
    ASSERT_EQ(out.size(), 2u);
    const auto& report = std::get<events::PartitionMetrics>(out[0]);
    EXPECT_EQ(report.broker_id, 1);
    EXPECT_EQ(report.sample_time_ms, 7000);
    ASSERT_EQ(report.samples.size(), 2u) << "broker 1 leads orders-0 and orders-1";
    EXPECT_EQ(report.samples[0].bytes_in_per_s, 500);
    EXPECT_EQ(report.samples[0].bytes_out_per_s, 1500);
    EXPECT_EQ(report.samples[0].messages_in_per_s, 5);
    EXPECT_EQ(report.samples[0].size_bytes, 700u);
    EXPECT_EQ(report.samples[1].size_bytes, 0u) << "no size reported for orders-1";
    const auto& totals = std::get<events::BrokerMetrics>(out[1]).samples.at(0);
    EXPECT_EQ(totals.bytes_in_per_s, 1200) << "produced plus replicated in";
    EXPECT_EQ(totals.bytes_out_per_s, 3000);
    EXPECT_EQ(totals.messages_in_per_s, 10);
    EXPECT_EQ(totals.size_bytes, 1000u);
    EXPECT_TRUE(aggregator.report(state, 8000).empty());
}

TEST(CruiseControlMetrics, APartitionSizePastWhatAUint64HoldsIsDroppedNotConverted) {
    metadata::ClusterState state;
    state.brokers[1] = metadata::BrokerState{1, "h", 1, "", false};
    state.topics["orders"].partitions[0] = part({1}, 1, {1});
    CruiseControlAggregator aggregator;
    auto m = decode_cruise_control_metric(cc_partition(1, "orders", 0, 4.8e180).bytes, "r");
    ASSERT_TRUE(m.ok()) << m.error().message;
    aggregator.add(*m);
    EXPECT_TRUE(aggregator.report(state, 7000).empty()) << "nothing usable heard from broker 1";
}

}  // namespace
}  // namespace ballast::kafka
