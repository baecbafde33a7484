// The metadata poller and the agentless sampler against a real cluster
// (brokers 1-3 on racks rack-1..3, from tools/kafka-cluster): what they
// feed is what happened, in the order it happened. Every test leaves the
// three brokers running.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "adapters/kafka/metadata/metadata_poller.h"
#include "adapters/kafka/metrics_sampler.h"
#include "tests/kafka/integration/event_collector.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/paced_producer.h"

namespace ballast::kafka {
namespace {

using testing::EventCollector;

constexpr int64_t settle_timeout_ms = 60'000;

std::string topic_name(const std::string& base) { return "ballast-it-" + base + "-" + std::to_string(::getpid()); }

bool contains(const std::vector<int32_t>& ids, int32_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

class AdapterOnKafka : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        events::Result<std::vector<wire::BrokerAddress>> servers = wire::parse_bootstrap_servers(_bootstrap);
        ASSERT_TRUE(servers.ok()) << servers.error().to_string();
        _client.bootstrap_servers = *servers;
        _rdkafka = std::make_unique<testing::RdKafka>(_bootstrap);
    }
    void TearDown() override {
        // Whatever happened, the next test finds three brokers.
        testing::CommandOutput started = testing::kafka_cluster({"start-broker", "3"});
        EXPECT_EQ(started.exit_code, 0) << started.output;
    }

    metadata::MetadataPollerOptions poller_options() const {
        metadata::MetadataPollerOptions o;
        o.bootstrap_servers = _bootstrap;
        o.client = _client;
        o.poll_interval_ms = 300;
        o.sweep_ms = 5000;  // incremental, a whole sweep well inside the waits
        return o;
    }

    std::string _bootstrap;
    wire::ClientOptions _client;
    std::unique_ptr<testing::RdKafka> _rdkafka;
};

bool is_partition(const events::Event& e, const std::string& topic, int32_t partition) {
    const auto* c = std::get_if<events::PartitionChanged>(&e.body);
    return c && c->topic == topic && c->partition == partition;
}

TEST_F(AdapterOnKafka, MetadataEventsArriveInTheOrderABrokerStopsAndStarts) {
    const std::string topic = topic_name("metadata");
    metadata::ClusterView view;
    EventCollector events;
    std::atomic<int64_t> now_ms{1'000};
    metadata::MetadataPoller poller(poller_options(), [&] { return now_ms.fetch_add(1); }, &view);
    ASSERT_TRUE(poller.start(events.sink()).ok());

    // The first report: every broker with its rack and endpoint, source kafka_metadata.
    ASSERT_TRUE(events.wait_for(
        [](const std::vector<events::Event>& all) {
            int brokers = 0;
            for (const events::Event& e : all) brokers += std::holds_alternative<events::BrokerRegistered>(e.body);
            return brokers >= 3;
        },
        settle_timeout_ms));
    for (const events::Event& e : events.events()) {
        EXPECT_EQ(e.source, events::Source::kafka_metadata);
        EXPECT_GE(e.time_ms, 1'000) << "stamped by the event clock";
        if (const auto* b = std::get_if<events::BrokerRegistered>(&e.body)) {
            EXPECT_EQ(b->rack, "rack-" + std::to_string(b->broker_id));
            ASSERT_EQ(b->endpoints.size(), 1u);
            EXPECT_EQ(b->endpoints[0].host, "127.0.0.1");
            EXPECT_GT(b->endpoints[0].port, 0);
        }
    }

    // Partition 0 is led by broker 3, partition 2 follows on it, partition 1 avoids it.
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{3, 1}, {1, 2}, {2, 3}}).ok());
    auto full = [&](const std::vector<events::Event>& all) {
        for (int32_t p : {0, 1, 2}) {
            bool seen = false;
            for (const events::Event& e : all) {
                if (is_partition(e, topic, p)) seen = std::get<events::PartitionChanged>(e.body).isr.size() == 2;
            }
            if (!seen) return false;
        }
        return true;
    };
    ASSERT_TRUE(events.wait_for(full, settle_timeout_ms)) << "the new topic's partitions in sync";
    const long created = EventCollector::find(events.events(), [&](const events::Event& e) {
        const auto* t = std::get_if<events::TopicCreated>(&e.body);
        return t && t->topic == topic;
    });
    ASSERT_GE(created, 0);
    const auto topic_created = std::get<events::TopicCreated>(events.events()[static_cast<size_t>(created)].body);
    EXPECT_EQ(topic_created.partition_count, 3);
    EXPECT_EQ(topic_created.replication_factor, 2);
    const size_t before_stop = events.events().size();

    testing::CommandOutput stopped = testing::kafka_cluster({"stop-broker", "3"});
    ASSERT_EQ(stopped.exit_code, 0) << stopped.output;
    auto fenced_and_shrunk = [&](const std::vector<events::Event>& all) {
        bool fenced = false, shrunk0 = false, shrunk2 = false;
        for (size_t i = before_stop; i < all.size(); i++) {
            const events::Event& e = all[i];
            if (const auto* f = std::get_if<events::BrokerFenced>(&e.body)) fenced |= f->broker_id == 3;
            if (is_partition(e, topic, 0)) shrunk0 |= !contains(std::get<events::PartitionChanged>(e.body).isr, 3);
            if (is_partition(e, topic, 2)) shrunk2 |= !contains(std::get<events::PartitionChanged>(e.body).isr, 3);
        }
        return fenced && shrunk0 && shrunk2;
    };
    ASSERT_TRUE(events.wait_for(fenced_and_shrunk, settle_timeout_ms))
        << "broker 3 fenced, and out of the ISR of partitions 0 and 2";
    const size_t before_start = events.events().size();

    testing::CommandOutput started = testing::kafka_cluster({"start-broker", "3"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    auto unfenced_and_grown = [&](const std::vector<events::Event>& all) {
        bool unfenced = false, grown0 = false, grown2 = false;
        for (size_t i = before_start; i < all.size(); i++) {
            const events::Event& e = all[i];
            if (const auto* u = std::get_if<events::BrokerUnfenced>(&e.body)) unfenced |= u->broker_id == 3;
            if (is_partition(e, topic, 0)) grown0 = contains(std::get<events::PartitionChanged>(e.body).isr, 3);
            if (is_partition(e, topic, 2)) grown2 = contains(std::get<events::PartitionChanged>(e.body).isr, 3);
        }
        return unfenced && grown0 && grown2;
    };
    ASSERT_TRUE(events.wait_for(unfenced_and_grown, settle_timeout_ms))
        << "broker 3 unfenced, and back in the ISR of partitions 0 and 2";
    poller.stop();

    // The order, as the journal will hold it.
    const std::vector<events::Event> all = events.events();
    const long fenced = EventCollector::find(all, [](const events::Event& e) {
        const auto* f = std::get_if<events::BrokerFenced>(&e.body);
        return f && f->broker_id == 3;
    });
    const long unfenced = EventCollector::find(all, [](const events::Event& e) {
        const auto* u = std::get_if<events::BrokerUnfenced>(&e.body);
        return u && u->broker_id == 3;
    });
    EXPECT_LT(created, fenced);
    EXPECT_LT(fenced, unfenced);
    for (int32_t p : {0, 2}) {
        SCOPED_TRACE("partition " + std::to_string(p));
        const long shrunk = EventCollector::find(all, [&](const events::Event& e) {
            return is_partition(e, topic, p) && !contains(std::get<events::PartitionChanged>(e.body).isr, 3);
        });
        const long grown = EventCollector::find(all, [&](const events::Event& e) {
            return is_partition(e, topic, p) && contains(std::get<events::PartitionChanged>(e.body).isr, 3);
        }, shrunk);
        ASSERT_GE(shrunk, created);
        EXPECT_LT(shrunk, grown);
        const auto& during = std::get<events::PartitionChanged>(all[static_cast<size_t>(shrunk)].body);
        EXPECT_NE(during.leader, 3) << "a stopped broker leads nothing";
        EXPECT_EQ(during.replicas.size(), 2u) << "the replicas stay; only the ISR shrinks";
    }
    // Partition 1 never had broker 3: its ISR never changed after creation.
    for (size_t i = static_cast<size_t>(created) + 1; i < all.size(); i++) {
        if (!is_partition(all[i], topic, 1)) continue;
        EXPECT_EQ(std::get<events::PartitionChanged>(all[i].body).isr.size(), 2u);
    }
    // And the view holds the last report.
    const metadata::PartitionState* now = view.snapshot()->partition(topic, 0);
    ASSERT_NE(now, nullptr);
    EXPECT_TRUE(contains(now->isr, 3));
    EXPECT_FALSE(view.snapshot()->brokers.at(3).fenced);
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

TEST_F(AdapterOnKafka, TheSamplerMeasuresWhatWasProducedOverTheSamplesClock) {
    const std::string topic = topic_name("sampler");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1, 2}, {2, 3}}).ok());
    metadata::ClusterView view;
    EventCollector metadata;
    metadata::MetadataPoller poller(poller_options(), [] { return int64_t{0}; }, &view);
    ASSERT_TRUE(poller.attach(metadata.sink()).ok());
    // The sampler reports what the view says each broker leads: poll until
    // the new topic's metadata reached the broker asked (a loaded machine
    // may answer the first poll without it).
    ASSERT_TRUE(testing::eventually(
        [&] {
            if (!poller.poll_once().ok()) return false;
            const metadata::PartitionState* p0 = view.snapshot()->partition(topic, 0);
            return p0 != nullptr && p0->leader == 1;
        },
        settle_timeout_ms))
        << "the view never showed " << topic << "-0 led by broker 1";

    EventCollector metrics;
    std::atomic<int64_t> clock_ms{100'000};
    MetricsSamplerOptions options;
    options.bootstrap_servers = _bootstrap;
    options.client = _client;
    MetricsSampler sampler(options, [&] { return clock_ms.load(); }, &view);
    ASSERT_TRUE(sampler.attach(metrics.sink()).ok());
    ASSERT_TRUE(sampler.sample_once().ok());
    EXPECT_TRUE(metrics.events().empty()) << "the first sample is the baseline";

    // 1000 records of 1000 bytes to partition 0 (leader 1, follower 2), all acknowledged.
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 1000, 1000).ok());
    // The follower holds them too once it caught up.
    ASSERT_TRUE(testing::eventually(
        [&] {
            auto state = _rdkafka->partition(topic, 0);
            return state.ok() && state->isr.size() == 2;
        },
        settle_timeout_ms));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    clock_ms = 110'000;  // ten seconds later on the samples' clock
    ASSERT_TRUE(sampler.sample_once().ok());

    const events::PartitionSample* sample = nullptr;
    const events::PartitionMetrics* report = nullptr;
    const events::BrokerSample* follower = nullptr;
    const std::vector<events::Event> reported = metrics.events();
    for (const events::Event& e : reported) {
        EXPECT_EQ(e.source, events::Source::kafka_metrics);
        if (const auto* m = std::get_if<events::PartitionMetrics>(&e.body)) {
            for (const events::PartitionSample& s : m->samples) {
                if (m->topics[s.topic_index] == topic && s.partition == 0) {
                    sample = &s;
                    report = m;
                }
            }
        }
        if (const auto* b = std::get_if<events::BrokerMetrics>(&e.body)) {
            if (b->samples.at(0).broker_id == 2) follower = &b->samples[0];
        }
    }
    ASSERT_NE(sample, nullptr) << "partition 0 reported by its leader";
    EXPECT_EQ(report->broker_id, 1);
    EXPECT_EQ(report->sample_time_ms, 110'000);
    // 1000 records of 1000 bytes plus batch and record headers, over 10 s.
    EXPECT_GE(sample->bytes_in_per_s, 100'000);
    EXPECT_LE(sample->bytes_in_per_s, 120'000);
    EXPECT_DOUBLE_EQ(sample->messages_in_per_s, 100) << "1000 offsets over 10 s";
    EXPECT_GE(sample->size_bytes, 1'000'000u);
    ASSERT_NE(follower, nullptr);
    EXPECT_GE(follower->bytes_in_per_s, 100'000) << "the follower takes the copy in";
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

// The sampler's messages in/s comes from ListOffsets to each partition's
// leader every round; one that asked the old leader would lose the
// partition's rate until its next look at the metadata.
TEST_F(AdapterOnKafka, EndOffsetsAreAnsweredRightAfterALeaderMoved) {
    const std::string topic = topic_name("offsets-moved");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1}, {2}}).ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 10, 100).ok());
    wire::AdminClient client(_client);
    const std::vector<wire::TopicPartitions> both{{topic, {0, 1}}};
    auto before = metadata::end_offsets(client, both, 10'000);
    ASSERT_TRUE(before.ok()) << before.error().message;
    ASSERT_EQ(before->size(), 2u);
    EXPECT_EQ((*before)[0].offset, 10) << "asked of broker 1, which leads partition 0";

    wire::AdminClient admin(_client);
    wire::messages::AlterPartitionReassignmentsRequest move;
    move.topics.push_back({topic, {{0, std::vector<int32_t>{3}}}});
    auto moved = admin.alter_partition_reassignments(move, 30'000);
    ASSERT_TRUE(moved.ok()) << moved.error().message;
    ASSERT_TRUE(testing::eventually(
        [&] {
            auto state = _rdkafka->partition(topic, 0);
            return state.ok() && state->leader == 3 && state->replicas == std::vector<int32_t>{3};
        },
        settle_timeout_ms))
        << "partition 0 moved to broker 3";
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 5, 100).ok());

    auto after = metadata::end_offsets(client, both, 10'000);
    ASSERT_TRUE(after.ok()) << after.error().message;
    ASSERT_EQ(after->size(), 2u);
    for (const metadata::PartitionOffset& o : *after) {
        EXPECT_EQ(o.error_code, 0) << "partition " << o.partition;
        EXPECT_EQ(o.offset, o.partition == 0 ? 15 : 0) << "partition " << o.partition;
    }
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

/// The size of `topic`-`partition` on broker `broker_id`; -1 when it holds none.
events::Result<int64_t> replica_size(wire::AdminClient& admin, int32_t broker_id, const std::string& topic,
                                     int32_t partition) {
    events::Result<wire::messages::DescribeLogDirsResponse> dirs = admin.describe_log_dirs(broker_id, {}, 10'000);
    if (!dirs) return dirs.error();
    int64_t size = -1;
    for (const wire::messages::DescribeLogDirsResult& dir : dirs->results) {
        for (const wire::messages::DescribeLogDirsTopic& t : dir.topics) {
            for (const wire::messages::DescribeLogDirsPartition& p : t.partitions) {
                if (t.name == topic && p.partition_index == partition && !p.is_future_key) size = p.partition_size;
            }
        }
    }
    return size;
}

// A move that adds a replica to a partition written at a steady pace, held
// back by a replication throttle, then let go: the new replica's copy and
// the growth the new leader owes to it in its first interval (the rest of
// the copy, all at once when the throttle is lifted) never show in the
// partition's bytes in/s, which stays what the producer writes, round after
// round.
TEST_F(AdapterOnKafka, RatesDuringAThrottledMoveStayAtTheProducersRate) {
    const std::string topic = topic_name("rates");
    ASSERT_TRUE(_rdkafka
                    ->create_topic(topic, {{1}},
                                   {{"leader.replication.throttled.replicas", "*"},
                                    {"follower.replication.throttled.replicas", "*"}})
                    .ok());
    struct Cleanup {  // whatever happens, the next test finds no throttle and no topic
        testing::RdKafka* rdkafka;
        std::string topic;
        ~Cleanup() {
            for (int32_t b : {1, 2, 3}) (void)rdkafka->set_broker_configs(b, {});
            (void)rdkafka->delete_topic(topic);
        }
    } cleanup{_rdkafka.get(), topic};

    // 50 records of 1000 bytes a second (~53 KB/s in the log).
    constexpr double records_per_s = 50;
    testing::PacedProducer producer(_bootstrap, topic, 0, 1000);
    // 2.5 MB written before the move: over 1 MB is still to copy when the
    // throttle is lifted, even if the new replica's first fetch (up to 1 MiB)
    // got through before the throttle held.
    ASSERT_TRUE(producer.fill(2500).ok());
    const std::vector<std::pair<std::string, std::string>> throttle{{"leader.replication.throttled.rate", "10000"},
                                                                    {"follower.replication.throttled.rate", "10000"}};
    for (int32_t b : {1, 2, 3}) ASSERT_TRUE(_rdkafka->set_broker_configs(b, throttle).ok());
    ASSERT_TRUE(testing::eventually(
        [&] {
            for (int32_t b : {1, 3}) {
                auto rate = _rdkafka->broker_config(b, b == 1 ? "leader.replication.throttled.rate"
                                                              : "follower.replication.throttled.rate");
                if (!rate.ok() || *rate != "10000") return false;
            }
            return true;
        },
        settle_timeout_ms));
    producer.start(records_per_s);

    metadata::ClusterView view;
    EventCollector metadata;
    metadata::MetadataPoller poller(poller_options(), [] { return int64_t{0}; }, &view);
    ASSERT_TRUE(poller.attach(metadata.sink()).ok());
    EventCollector metrics;
    MetricsSamplerOptions options;
    options.bootstrap_servers = _bootstrap;
    options.client = _client;
    const auto started = std::chrono::steady_clock::now();
    MetricsSampler sampler(
        options,
        [started] {
            return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                .count();
        },
        &view);
    ASSERT_TRUE(sampler.attach(metrics.sink()).ok());

    struct Seen {
        std::string phase;
        int32_t broker_id;
        events::PartitionSample sample;
    };
    std::vector<Seen> seen;
    size_t read = 0;
    // One round as the sampler thread makes it, the view polled just before.
    auto round = [&](const std::string& phase) {
        if (!poller.poll_once().ok() || !sampler.sample_once().ok()) return false;
        const std::vector<events::Event> all = metrics.events();
        for (; read < all.size(); read++) {
            const auto* m = std::get_if<events::PartitionMetrics>(&all[read].body);
            if (m == nullptr) continue;
            for (const events::PartitionSample& s : m->samples) {
                if (m->topics[s.topic_index] == topic && s.partition == 0) seen.push_back({phase, m->broker_id, s});
            }
        }
        return true;
    };
    constexpr auto interval = std::chrono::milliseconds(2500);
    ASSERT_TRUE(round("baseline"));
    std::this_thread::sleep_for(interval);
    ASSERT_TRUE(round("before"));

    wire::AdminClient admin(_client);
    wire::messages::AlterPartitionReassignmentsRequest move;
    move.topics.push_back({topic, {{0, std::vector<int32_t>{3}}}});
    auto moved = admin.alter_partition_reassignments(move, 30'000);
    ASSERT_TRUE(moved.ok()) << moved.error().message;
    ASSERT_TRUE(moved->error.ok()) << moved->error.to_string();
    for (const auto& t : moved->responses) {
        for (const auto& p : t.partitions) ASSERT_TRUE(p.error.ok()) << p.error.to_string();
    }
    for (int i = 0; i < 4; i++) {
        std::this_thread::sleep_for(interval);
        ASSERT_TRUE(round("copying"));
        const metadata::PartitionState* p = view.snapshot()->partition(topic, 0);
        ASSERT_TRUE(p && p->reassigning && p->adding == std::vector<int32_t>{3}) << "the throttle holds the copy";
    }
    // The copy still has over 1 MB to go: the new leader's first interval will
    // hold it, at many times what the producer wrote in it.
    auto leader_bytes = replica_size(admin, 1, topic, 0);
    auto copied_bytes = replica_size(admin, 3, topic, 0);
    ASSERT_TRUE(leader_bytes.ok() && copied_bytes.ok());
    ASSERT_GE(*copied_bytes, 0) << "broker 3 holds the replica being added";
    ASSERT_GT(*leader_bytes - *copied_bytes, 1'000'000) << "copied " << *copied_bytes << " of " << *leader_bytes;

    for (int32_t b : {1, 2, 3}) ASSERT_TRUE(_rdkafka->set_broker_configs(b, {}).ok());
    ASSERT_TRUE(testing::eventually(
        [&] {
            if (!poller.poll_once().ok()) return false;
            const metadata::PartitionState* p = view.snapshot()->partition(topic, 0);
            return p && !p->reassigning && p->replicas == std::vector<int32_t>{3} && p->leader == 3;
        },
        settle_timeout_ms))
        << "the move completes once the throttle is lifted";
    ASSERT_TRUE(round("moved"));  // the interval of the rest of the copy
    for (int i = 0; i < 2; i++) {
        std::this_thread::sleep_for(interval);
        ASSERT_TRUE(round("moved"));
    }
    const events::Status produced = producer.stop();
    ASSERT_TRUE(produced.ok()) << produced.error().message;

    // Every record takes the same room in the log (one per batch), so the
    // log's bytes per record is its size over its end offset.
    auto log_bytes = replica_size(admin, 3, topic, 0);
    auto end_offset = _rdkafka->end_offset(topic, 0);
    ASSERT_TRUE(log_bytes.ok()) << log_bytes.error().message;
    ASSERT_TRUE(end_offset.ok()) << end_offset.error().message;
    ASSERT_GT(*end_offset, 2500);
    const double bytes_per_record = static_cast<double>(*log_bytes) / static_cast<double>(*end_offset);

    std::map<std::string, int> per_phase;
    for (const Seen& s : seen) {
        SCOPED_TRACE(s.phase + " round, reported by broker " + std::to_string(s.broker_id));
        per_phase[s.phase]++;
        EXPECT_EQ(s.broker_id, s.phase == "moved" ? 3 : 1) << "its leader reports it";
        ASSERT_GT(s.sample.messages_in_per_s, 0) << "the producer writes all along";
        // What the producer wrote in the round: its end offset's growth, in
        // log bytes. The growth of the log and of its end offset are read a
        // few milliseconds apart in the same round (a record or two of the
        // ~125 a round), and the bytes per message that stand in for a new
        // leader's growth were learned from such a pair: 20% holds both with
        // room for a broker pausing between the two reads, while the copy in
        // the new leader's first interval is over 1 MB, many times what the
        // producer writes in it (~53 KB a second).
        const double producers_bytes_per_s = s.sample.messages_in_per_s * bytes_per_record;
        EXPECT_NEAR(s.sample.bytes_in_per_s, producers_bytes_per_s, 0.2 * producers_bytes_per_s);
    }
    EXPECT_EQ(per_phase["baseline"], 0) << "the first sample is the baseline";
    EXPECT_EQ(per_phase["before"], 1);
    EXPECT_EQ(per_phase["copying"], 4) << "the leader's growth, every round of the copy";
    EXPECT_EQ(per_phase["moved"], 3) << "the new leader's first interval too";
}

}  // namespace
}  // namespace ballast::kafka
