/// A record value of `__CruiseControlMetrics`, as Cruise Control's reporter
/// (or anyone able to produce to the topic) wrote it: a metric or an error
/// naming field and offset. Whatever decodes is aggregated and reported as
/// the source does every round, against a cluster where its broker is alive
/// and leads partition 0 of its topic.

#include "adapters/kafka/cruise_control_metrics.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quiet_logs();  // the aggregator warns of every bad value
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto decoded = kafka::decode_cruise_control_metric(std::span<const uint8_t>(data, size), "fuzz@0");
    if (!decoded.ok()) {
        fuzz::expect(!decoded.error().message.empty(), "the decoder's error says nothing");
        return 0;
    }
    const kafka::CruiseControlMetric& metric = *decoded;
    kafka::metadata::ClusterState state;
    state.brokers[metric.broker_id] = kafka::metadata::BrokerState{metric.broker_id, "localhost", 9092, "", false};
    kafka::metadata::PartitionState led;
    led.replicas = {metric.broker_id};
    led.leader = metric.broker_id;
    led.isr = {metric.broker_id};
    state.topics[metric.topic].partitions[0] = led;
    if (metric.partition >= 0) state.topics[metric.topic].partitions[metric.partition] = led;
    kafka::CruiseControlAggregator aggregator;
    aggregator.add(metric);
    (void)aggregator.report(state, 0);
    return 0;
}
