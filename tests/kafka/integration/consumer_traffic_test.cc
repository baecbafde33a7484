// The sampler's consumer traffic against a real cluster: two real consumer
// groups read a topic and commit, the sampler lists the groups, finds their
// coordinators, fetches their committed offsets and reports each partition's
// bytes out as the groups' committed messages per second times the
// partition's bytes per message. The clock is the test's, so no figure
// depends on how fast the machine is.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <string>

#include "adapters/kafka/metadata/metadata_poller.h"
#include "adapters/kafka/metrics_sampler.h"
#include "tests/kafka/integration/event_collector.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka {
namespace {

using testing::EventCollector;

std::string name(const std::string& base) { return "ballast-it-" + base + "-" + std::to_string(::getpid()); }

/// A member of consumer group `group` that reads `count` records of
/// `topic`-0 on from the group's committed offset (the start if none) and
/// commits after them, synchronously, as a consumer does after processing.
/// Returns the payload bytes it received, or -1 if it could not.
int64_t consume_and_commit(const std::string& bootstrap, const std::string& group, const std::string& topic,
                           int count) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error));
    rd_kafka_conf_set(conf, "group.id", group.c_str(), error, sizeof(error));
    rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", error, sizeof(error));
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof(error));
    rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
    if (consumer == nullptr) return -1;
    rd_kafka_poll_set_consumer(consumer);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_STORED;
    rd_kafka_assign(consumer, list);
    rd_kafka_topic_partition_list_destroy(list);
    int64_t bytes = 0;
    int64_t next_offset = -1;
    int received = 0;
    for (int idle_polls = 0; received < count && idle_polls < 100;) {
        rd_kafka_message_t* message = rd_kafka_consumer_poll(consumer, 200);
        if (message == nullptr) {
            ++idle_polls;
            continue;
        }
        if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            bytes += static_cast<int64_t>(message->len);
            next_offset = message->offset + 1;
            ++received;
        }
        rd_kafka_message_destroy(message);
    }
    bool committed = false;
    if (received != count) ADD_FAILURE() << group << ": received " << received << " of " << count;
    if (received == count) {
        rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(offsets, topic.c_str(), 0)->offset = next_offset;
        const rd_kafka_resp_err_t err = rd_kafka_commit(consumer, offsets, 0);
        committed = err == RD_KAFKA_RESP_ERR_NO_ERROR;
        if (!committed) ADD_FAILURE() << group << ": commit failed: " << rd_kafka_err2str(err);
        rd_kafka_topic_partition_list_destroy(offsets);
    }
    rd_kafka_consumer_close(consumer);
    rd_kafka_destroy(consumer);
    return committed ? bytes : -1;
}

const events::PartitionSample* sample_of(const std::vector<events::Event>& events, const std::string& topic) {
    const events::PartitionSample* found = nullptr;
    for (const events::Event& e : events) {
        if (const auto* m = std::get_if<events::PartitionMetrics>(&e.body)) {
            for (const events::PartitionSample& s : m->samples) {
                if (m->topics[s.topic_index] == topic && s.partition == 0) found = &s;
            }
        }
    }
    return found;
}

/// The cluster's metadata, polled once into `view` (the sampler reads the
/// brokers and leaders there), and the options a sampler of it needs.
struct Polled {
    explicit Polled(const std::string& bootstrap_servers) {
        events::Result<std::vector<wire::BrokerAddress>> servers = wire::parse_bootstrap_servers(bootstrap_servers);
        EXPECT_TRUE(servers.ok()) << servers.error().to_string();
        if (servers.ok()) sampler.client.bootstrap_servers = *servers;
        sampler.bootstrap_servers = bootstrap_servers;
        metadata::MetadataPollerOptions options;
        options.bootstrap_servers = bootstrap_servers;
        options.client = sampler.client;
        poller = std::make_unique<metadata::MetadataPoller>(options, [] { return int64_t{0}; }, &view);
        EXPECT_TRUE(poller->attach(metadata.sink()).ok());
        EXPECT_TRUE(poller->poll_once().ok());
    }
    metadata::ClusterView view;
    EventCollector metadata;
    std::unique_ptr<metadata::MetadataPoller> poller;
    MetricsSamplerOptions sampler;
};

TEST(ConsumerTrafficOnKafka, BytesOutAreWhatTheGroupsConsumedOverTheSamplesClock) {
    const std::string bootstrap = testing::bootstrap_servers_from_env();
    ASSERT_FALSE(bootstrap.empty()) << testing::no_cluster_message();
    testing::RdKafka rdkafka(bootstrap);
    const std::string topic = name("consumed");
    const std::string fast = name("group-fast");
    const std::string slow = name("group-slow");
    ASSERT_TRUE(rdkafka.create_topic(topic, {{1, 2}}).ok());
    ASSERT_TRUE(rdkafka.produce(topic, 0, 1000, 1000).ok());

    Polled polled(bootstrap);

    // Both groups have committed once before the first sample: that reading is their baseline.
    ASSERT_GT(consume_and_commit(bootstrap, fast, topic, 100), 0);
    ASSERT_GT(consume_and_commit(bootstrap, slow, topic, 100), 0);
    EventCollector metrics;
    std::atomic<int64_t> clock_ms{100'000};
    MetricsSampler sampler(polled.sampler, [&] { return clock_ms.load(); }, &polled.view);
    ASSERT_TRUE(sampler.attach(metrics.sink()).ok());
    ASSERT_TRUE(sampler.sample_once().ok());

    // Ten seconds on the samples' clock: 1000 more records produced; the fast group reads
    // 600 of the topic, the slow one 300.
    ASSERT_TRUE(rdkafka.produce(topic, 0, 1000, 1000).ok());
    const int64_t fast_bytes = consume_and_commit(bootstrap, fast, topic, 600);
    const int64_t slow_bytes = consume_and_commit(bootstrap, slow, topic, 300);
    ASSERT_GT(fast_bytes, 0);
    ASSERT_GT(slow_bytes, 0);
    clock_ms = 110'000;
    ASSERT_TRUE(sampler.sample_once().ok());

    const std::vector<events::Event> reported = metrics.events();
    const events::PartitionSample* sample = sample_of(reported, topic);
    ASSERT_NE(sample, nullptr) << "the partition reported by its leader";
    ASSERT_GT(sample->messages_in_per_s, 0);
    const double bytes_per_message = sample->bytes_in_per_s / sample->messages_in_per_s;
    EXPECT_NEAR(sample->bytes_out_per_s, 90 * bytes_per_message, 1e-6 * sample->bytes_out_per_s)
        << "900 committed offsets over 10 s, times the log's bytes per message";
    // What the consumers themselves received (payloads), over the same 10 s: the log's
    // bytes per message add its record and batch headers, a few percent at 1000-byte records.
    const double received_per_s = static_cast<double>(fast_bytes + slow_bytes) / 10.0;
    EXPECT_GE(sample->bytes_out_per_s, received_per_s);
    std::printf("consumer traffic: estimated %.0f B/s, consumers received %.0f B/s of payload (%+.1f%%)\n",
                sample->bytes_out_per_s, received_per_s, 100.0 * (sample->bytes_out_per_s / received_per_s - 1));
    EXPECT_LE(sample->bytes_out_per_s, 1.05 * received_per_s);

    EXPECT_TRUE(rdkafka.delete_group(fast).ok());
    EXPECT_TRUE(rdkafka.delete_group(slow).ok());
    EXPECT_TRUE(rdkafka.delete_topic(topic).ok());
}


// Not a test: the figure in bench/README.md. With a load running on the cluster
// (producer-perf at a fixed rate, consumer-perf reading it in a group), samples
// BALLAST_MEASURE_TOPIC every 10 s of real time for BALLAST_MEASURE_S seconds
// and prints each round's bytes in and bytes out summed over its partitions.
TEST(ConsumerTrafficOnKafka, DISABLED_MeasureAgainstALoad) {
    const std::string bootstrap = testing::bootstrap_servers_from_env();
    const char* topic = std::getenv("BALLAST_MEASURE_TOPIC");
    const char* seconds = std::getenv("BALLAST_MEASURE_S");
    ASSERT_TRUE(!bootstrap.empty() && topic && seconds);
    Polled polled(bootstrap);
    EventCollector metrics;
    const auto start = std::chrono::steady_clock::now();
    auto now_ms = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    };
    MetricsSampler sampler(polled.sampler, now_ms, &polled.view);
    ASSERT_TRUE(sampler.attach(metrics.sink()).ok());
    for (int64_t round = 0; round * 10'000 <= std::atoll(seconds) * 1000; ++round) {
        std::this_thread::sleep_until(start + std::chrono::milliseconds(round * 10'000));
        const size_t seen = metrics.events().size();
        ASSERT_TRUE(sampler.sample_once().ok());
        double in = 0;
        double out = 0;
        const std::vector<events::Event> reported = metrics.events();
        for (size_t i = seen; i < reported.size(); ++i) {
            const events::Event& e = reported[i];
            if (const auto* m = std::get_if<events::PartitionMetrics>(&e.body)) {
                for (const events::PartitionSample& s : m->samples) {
                    if (m->topics[s.topic_index] != topic) continue;
                    in += s.bytes_in_per_s;
                    out += s.bytes_out_per_s;
                }
            }
        }
        std::printf("t=%lld s bytes_in=%.0f B/s bytes_out=%.0f B/s\n", static_cast<long long>(now_ms() / 1000), in, out);
        std::fflush(stdout);
    }
}

}  // namespace
}  // namespace ballast::kafka
