#pragma once

// What the high-availability cases on a real cluster share: runs made and
// read back, and the fixture that gives each case a group (topics, a
// transactional id, a consumer group) of its own and deletes them after.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include "adapters/kafka/ha/journal_topic.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka::ha::fixture {

using Clock = std::chrono::steady_clock;
using store::ShippedRun;

inline std::string unique(const std::string& base) { return "ballast-it-ha-" + base + "-" + std::to_string(::getpid()); }

inline int64_t ms_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

/// A run's key as the journal makes it: its first seq, then its last, 8
/// bytes big-endian each (what store::shipped_run_bounds reads). The value
/// is opaque to the log: a tag says who wrote it.
inline ShippedRun make_run(uint64_t first, uint64_t last, const std::string& tag, size_t bytes = 64) {
    ShippedRun run;
    for (const uint64_t seq : {first, last}) {
        for (int i = 7; i >= 0; i--) run.key.push_back(static_cast<char>((seq >> (8 * i)) & 0xFF));
    }
    run.value = tag + ":" + std::to_string(first) + ".." + std::to_string(last) + ":";
    run.value.resize(std::max(bytes, run.value.size()), '.');
    return run;
}

/// `count` runs of `seqs_each` seqs from `first` on.
inline std::vector<ShippedRun> make_runs(uint64_t first, int count, uint64_t seqs_each, const std::string& tag) {
    std::vector<ShippedRun> out;
    for (int i = 0; i < count; i++) {
        out.push_back(make_run(first, first + seqs_each - 1, tag));
        first += seqs_each;
    }
    return out;
}

inline uint64_t last_seq(const ShippedRun& run) { return store::shipped_run_bounds(run)->second; }

inline std::string describe(const std::vector<ShippedRun>& runs) {
    std::string out;
    for (const ShippedRun& run : runs) out += run.value.substr(0, run.value.find(':', run.value.find(':') + 1)) + " ";
    return out;
}

/// Reads from the position until caught up (bounded: a broken cluster fails
/// the test instead of hanging it).
inline std::vector<ShippedRun> read_to_end(KafkaHaLog& log) {
    std::vector<ShippedRun> all;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline) {
        events::Result<std::vector<ShippedRun>> got = log.read(100);
        EXPECT_TRUE(got.ok()) << got.error().to_string();
        if (!got.ok()) break;
        if (!got->empty()) {
            all.insert(all.end(), got->begin(), got->end());
            continue;
        }
        events::Result<bool> caught_up = log.caught_up();
        EXPECT_TRUE(caught_up.ok()) << caught_up.error().to_string();
        if (!caught_up.ok() || *caught_up) return all;
    }
    ADD_FAILURE() << "not caught up after 30 s";
    return all;
}

/// Reads until `count` runs came (or 30 s passed), then checks that the
/// reader is caught up. A commit becomes visible to readers only once the
/// transaction coordinator has written its markers, shortly after the
/// writer's commit returned, so a test waits for what it published.
inline std::vector<ShippedRun> read_runs(KafkaHaLog& log, size_t count) {
    std::vector<ShippedRun> all;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (all.size() < count && Clock::now() < deadline) {
        events::Result<std::vector<ShippedRun>> got = log.read(100);
        EXPECT_TRUE(got.ok()) << got.error().to_string();
        if (!got.ok()) break;
        all.insert(all.end(), got->begin(), got->end());
    }
    EXPECT_EQ(all.size(), count) << describe(all);
    std::vector<ShippedRun> more = read_to_end(log);
    EXPECT_TRUE(more.empty()) << "more than expected: " << describe(more);
    all.insert(all.end(), more.begin(), more.end());
    return all;
}

/// The newest snapshot once it is the one at `seq` (within 30 s: see read_runs).
inline std::optional<store::Snapshot> newest_snapshot_at(KafkaHaLog& log, uint64_t seq) {
    std::optional<store::Snapshot> newest;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < deadline) {
        events::Result<std::optional<store::Snapshot>> got = log.newest_snapshot();
        EXPECT_TRUE(got.ok()) << got.error().to_string();
        if (!got.ok()) break;
        newest = std::move(*got);
        if (newest && newest->seq == seq) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return newest;
}

/// Every message value of partition 0 of `topic`, aborted ones included
/// (read_uncommitted): what the log holds, whatever a reader may see.
inline std::vector<std::string> values_read_uncommitted(const std::string& bootstrap, const std::string& topic) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error));
    rd_kafka_conf_set(conf, "group.id", "ballast-it-ha-raw", error, sizeof(error));
    rd_kafka_conf_set(conf, "isolation.level", "read_uncommitted", error, sizeof(error));
    rd_kafka_conf_set(conf, "enable.partition.eof", "true", error, sizeof(error));
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof(error));
    rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
    rd_kafka_poll_set_consumer(consumer);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(consumer, list);
    rd_kafka_topic_partition_list_destroy(list);
    std::vector<std::string> values;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
        rd_kafka_message_t* message = rd_kafka_consumer_poll(consumer, 500);
        if (message == nullptr) continue;
        const bool end = message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF;
        if (!message->err) values.emplace_back(static_cast<const char*>(message->payload), message->len);
        rd_kafka_message_destroy(message);
        if (end) break;
    }
    rd_kafka_consumer_close(consumer);
    rd_kafka_destroy(consumer);
    return values;
}

/// One message, outside any transaction, to partition 0 of `topic`.
inline void produce_plain(const std::string& bootstrap, const std::string& topic, const std::string& key,
                   const std::string& value) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error));
    rd_kafka_conf_set(conf, "message.max.bytes", "8388608", error, sizeof(error));
    rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error));
    ASSERT_EQ(rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                RD_KAFKA_V_KEY(key.data(), key.size()),
                                RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    EXPECT_EQ(rd_kafka_flush(producer, 20000), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_destroy(producer);
}

inline std::vector<uint8_t> random_bytes(size_t size, uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<uint8_t> bytes(size);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(random());
    return bytes;
}

class HaLogOnKafka : public ::testing::Test {
public:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
    }
    /// The topics of every group a test used go with it, and the consumer
    /// groups (an election's; one that was never joined is not there, and
    /// deleting it fails harmlessly): the suites after this one find the
    /// cluster as they expect it.
    void TearDown() override {
        if (_groups.empty() && _consumer_groups.empty()) return;
        testing::RdKafka admin(_bootstrap);
        for (const std::string& group : _groups) {
            (void)admin.delete_topic(group + "-journal");
            (void)admin.delete_topic(group + "-journal-snapshots");
            (void)admin.delete_group(group);
        }
        for (const std::string& group : _consumer_groups) (void)admin.delete_group(group);
    }

    /// An instance of `group`; it joins the election only when asked.
    KafkaHaOptions options(const std::string& group, const std::string& instance, bool join_election = false) {
        _groups.insert(group);
        KafkaHaOptions o;
        o.bootstrap_servers = _bootstrap;
        o.instance_id = instance;
        o.group_id = group;
        o.join_election = join_election;
        o.call_timeout_ms = 15'000;
        return o;
    }

    std::unique_ptr<KafkaHaLog> open(KafkaHaOptions o) {
        events::Result<std::unique_ptr<KafkaHaLog>> log = KafkaHaLog::open(std::move(o));
        EXPECT_TRUE(log.ok()) << log.error().to_string();
        return log.ok() ? std::move(*log) : nullptr;
    }

    std::string _bootstrap;
    std::set<std::string> _groups;
    std::set<std::string> _consumer_groups;  // groups a test joined outside `_groups`: deleted in TearDown
};

}  // namespace ballast::kafka::ha::fixture
