/// A record value of `__auto_balancer_metrics`, as AutoMQ's reporter (or
/// anyone able to produce to the topic) wrote it: a metric, a record of a type
/// to skip, or an error naming field and offset. Whatever decodes is
/// aggregated and reported as the source does every round.

#include "adapters/kafka/automq_metrics.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quiet_logs();  // the aggregator warns of every bad value
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto decoded = kafka::decode_automq_metric(std::span<const uint8_t>(data, size), "fuzz@0");
    if (!decoded.ok()) {
        fuzz::expect(!decoded.error().message.empty(), "the decoder's error says nothing");
        return 0;
    }
    if (!decoded->has_value()) return 0;
    kafka::AutomqAggregator aggregator;
    aggregator.add(**decoded);
    (void)aggregator.report(0);
    return 0;
}
