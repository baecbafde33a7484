// High availability on a real cluster (tools/kafka-cluster: brokers 1-3):
// the journal published in transactions and read back read_committed from
// any seq, the writer fenced by a newer one (and the transaction it had open
// never read), the election by a consumer group and its handover when the
// leader leaves, snapshots in parts, the lease, the topics as created, and
// a leader finding another Ballast group's leader on the cluster.
// Each test has a group (and so topics and a transactional id) of its own.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include "adapters/kafka/ha_journal_topic.h"
#include "adapters/kafka/ha_presence.h"
#include "adapters/kafka/ha_snapshot_chunk.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka {
namespace {

using Clock = std::chrono::steady_clock;
using store::ShippedRun;

std::string unique(const std::string& base) { return "ballast-it-ha-" + base + "-" + std::to_string(::getpid()); }

int64_t ms_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

/// A run's key as the journal makes it: its first seq, then its last, 8
/// bytes big-endian each (what store::shipped_run_bounds reads). The value
/// is opaque to the log: a tag says who wrote it.
ShippedRun make_run(uint64_t first, uint64_t last, const std::string& tag, size_t bytes = 64) {
    ShippedRun run;
    for (const uint64_t seq : {first, last}) {
        for (int i = 7; i >= 0; i--) run.key.push_back(static_cast<char>((seq >> (8 * i)) & 0xFF));
    }
    run.value = tag + ":" + std::to_string(first) + ".." + std::to_string(last) + ":";
    run.value.resize(std::max(bytes, run.value.size()), '.');
    return run;
}

/// `count` runs of `seqs_each` seqs from `first` on.
std::vector<ShippedRun> make_runs(uint64_t first, int count, uint64_t seqs_each, const std::string& tag) {
    std::vector<ShippedRun> out;
    for (int i = 0; i < count; i++) {
        out.push_back(make_run(first, first + seqs_each - 1, tag));
        first += seqs_each;
    }
    return out;
}

uint64_t last_seq(const ShippedRun& run) { return store::shipped_run_bounds(run)->second; }

std::string describe(const std::vector<ShippedRun>& runs) {
    std::string out;
    for (const ShippedRun& run : runs) out += run.value.substr(0, run.value.find(':', run.value.find(':') + 1)) + " ";
    return out;
}

/// Reads from the position until caught up (bounded: a broken cluster fails
/// the test instead of hanging it).
std::vector<ShippedRun> read_to_end(KafkaHaLog& log) {
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
std::vector<ShippedRun> read_runs(KafkaHaLog& log, size_t count) {
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
std::optional<store::Snapshot> newest_snapshot_at(KafkaHaLog& log, uint64_t seq) {
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
std::vector<std::string> values_read_uncommitted(const std::string& bootstrap, const std::string& topic) {
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
void produce_plain(const std::string& bootstrap, const std::string& topic, const std::string& key,
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

std::vector<uint8_t> random_bytes(size_t size, uint32_t seed) {
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

TEST_F(HaLogOnKafka, PublishedRunsComeBackInOrderFromAnySeq) {
    const std::string group = unique("publish");
    auto writer = open(options(group, "writer"));
    auto reader = open(options(group, "reader"));
    ASSERT_TRUE(writer && reader);

    // An empty log: nothing to read, caught up, no first seq, no snapshot.
    EXPECT_EQ(*reader->first_seq(), 0u);
    ASSERT_TRUE(reader->seek_after(0).ok());
    EXPECT_TRUE(reader->read(0)->empty());
    EXPECT_TRUE(*reader->caught_up());
    EXPECT_FALSE(reader->newest_snapshot()->has_value());

    ASSERT_TRUE(writer->become_writer().ok());
    ASSERT_NE(writer->writer(), nullptr);
    const std::vector<ShippedRun> first = make_runs(1, 5, 2, "w");    // seq 1..10
    const std::vector<ShippedRun> second = make_runs(11, 4, 5, "w");  // seq 11..30
    ASSERT_TRUE(writer->writer()->publish(first).ok());
    ASSERT_TRUE(writer->writer()->publish(second).ok());
    std::vector<ShippedRun> all = first;
    all.insert(all.end(), second.begin(), second.end());

    ASSERT_TRUE(reader->seek_after(0).ok());
    EXPECT_EQ(read_runs(*reader, all.size()), all);
    EXPECT_TRUE(*reader->caught_up());
    EXPECT_EQ(*reader->first_seq(), 1u);

    // After seq k: from the first run that holds a seq after k, no earlier one.
    for (const uint64_t k : {1u, 2u, 9u, 10u, 11u, 12u, 15u, 16u, 29u}) {
        ASSERT_TRUE(reader->seek_after(k).ok()) << k;
        const auto from = std::find_if(all.begin(), all.end(), [k](const ShippedRun& r) { return last_seq(r) > k; });
        const std::vector<ShippedRun> expected(from, all.end());
        const std::vector<ShippedRun> got = read_to_end(*reader);
        EXPECT_EQ(got, expected) << "after seq " << k << ": " << describe(got);
    }
    ASSERT_TRUE(reader->seek_after(30).ok());
    EXPECT_TRUE(read_to_end(*reader).empty());
    EXPECT_TRUE(*reader->caught_up());

    // A reader at the end sees what is committed next.
    const std::vector<ShippedRun> third = make_runs(31, 1, 3, "w");
    ASSERT_TRUE(writer->writer()->publish(third).ok());
    events::Result<std::vector<ShippedRun>> next = reader->read(5'000);
    ASSERT_TRUE(next.ok()) << next.error().to_string();
    EXPECT_EQ(*next, third);
    EXPECT_TRUE(*reader->caught_up());
}

/// A standby's lag: the events the newest committed run holds beyond the
/// ones it has, and the writer's time between that run and the last one it
/// read; both nothing once it has read everything.
TEST_F(HaLogOnKafka, AStandbysLagIsTheEventsAndTheWritersTimeItHasNotRead) {
    const std::string group = unique("lag");
    auto writer = open(options(group, "writer"));
    KafkaHaOptions reader_options = options(group, "reader");
    reader_options.read_runs_max = 5;
    auto reader = open(reader_options);
    ASSERT_TRUE(writer && reader);
    ASSERT_TRUE(reader->seek_after(0).ok());
    events::Result<JournalLag> empty = reader->lag(0);
    ASSERT_TRUE(empty.ok()) << empty.error().to_string();
    EXPECT_TRUE(empty->caught_up);

    // Three transactions 400 ms apart: seq 1..10 (five runs), 11..30, 31..33.
    ASSERT_TRUE(writer->become_writer().ok());
    const auto published = Clock::now();
    ASSERT_TRUE(writer->writer()->publish(make_runs(1, 5, 2, "w")).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ASSERT_TRUE(writer->writer()->publish(make_runs(11, 4, 5, "w")).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ASSERT_TRUE(writer->writer()->publish(make_runs(31, 1, 3, "w")).ok());
    const int64_t publishing_ms = ms_since(published);

    // Nothing read: all 33 events behind, and the time from the first
    // run's timestamp to the last's.
    ASSERT_TRUE(reader->seek_after(0).ok());
    const auto behind = [&](uint64_t applied) {
        // The last commit becomes visible a moment after it returned.
        const auto deadline = Clock::now() + std::chrono::seconds(30);
        events::Result<JournalLag> lag = reader->lag(applied);
        while (lag.ok() && lag->newest_seq < 33 && Clock::now() < deadline) lag = reader->lag(applied);
        return lag;
    };
    events::Result<JournalLag> lag = behind(0);
    ASSERT_TRUE(lag.ok()) << lag.error().to_string();
    EXPECT_FALSE(lag->caught_up);
    EXPECT_EQ(lag->newest_seq, 33u);
    EXPECT_EQ(lag->records, 33u);
    EXPECT_GE(lag->ms, 800) << "two 400 ms pauses lie between the first run and the last";
    EXPECT_LE(lag->ms, publishing_ms + 50);

    // The first transaction read (seq 1..10): 23 events and at least the
    // second pause behind.
    std::vector<ShippedRun> first;
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (first.size() < 5 && Clock::now() < deadline) {
        events::Result<std::vector<ShippedRun>> got = reader->read(100);
        ASSERT_TRUE(got.ok()) << got.error().to_string();
        first.insert(first.end(), got->begin(), got->end());
    }
    ASSERT_EQ(first, make_runs(1, 5, 2, "w"));
    lag = behind(10);
    ASSERT_TRUE(lag.ok()) << lag.error().to_string();
    EXPECT_FALSE(lag->caught_up);
    EXPECT_EQ(lag->records, 23u);
    EXPECT_GE(lag->ms, 400);
    EXPECT_LE(lag->ms, publishing_ms + 50);

    // Everything read: caught up, nothing behind.
    EXPECT_EQ(read_to_end(*reader).size(), 5u);
    lag = reader->lag(33);
    ASSERT_TRUE(lag.ok()) << lag.error().to_string();
    EXPECT_TRUE(lag->caught_up);
    EXPECT_EQ(lag->records, 0u);
    EXPECT_EQ(lag->ms, 0);
}

/// The journal topic deleted and created again under a standby: committed
/// offsets went back, and its reader says so instead of reading the new
/// topic as if it continued the old one.
TEST_F(HaLogOnKafka, AJournalTopicCreatedAgainIsNamedNotFollowed) {
    const std::string group = unique("recreated");
    auto writer = open(options(group, "writer"));
    auto reader = open(options(group, "reader"));
    ASSERT_TRUE(writer && reader);
    ASSERT_TRUE(writer->become_writer().ok());
    ASSERT_TRUE(writer->writer()->publish(make_runs(1, 5, 1, "w")).ok());
    ASSERT_TRUE(reader->seek_after(0).ok());
    EXPECT_EQ(read_runs(*reader, 5).size(), 5u);
    writer.reset();

    testing::RdKafka admin(_bootstrap);
    ASSERT_TRUE(admin.delete_topic(group + "-journal").ok());
    // Created again as Ballast creates it, once the deletion is through.
    ASSERT_TRUE(testing::eventually(
        [&] {
            events::Result<HaTopics> made = ensure_ha_topics(options(group, "maker"));
            return made.ok() && made->journal_created;
        },
        60'000))
        << "the journal topic was not created again";
    std::string error;
    EXPECT_TRUE(testing::eventually(
        [&] {
            events::Result<bool> caught_up = reader->caught_up();
            error = caught_up.ok() ? "" : caught_up.error().to_string();
            return error.find("deleted and created again") != std::string::npos;
        },
        60'000))
        << "last answer: " << (error.empty() ? "caught up or not, no error" : error);
    EXPECT_NE(error.find("ends at offset 0, before offset"), std::string::npos) << error;
}

TEST_F(HaLogOnKafka, ANewWriterFencesTheOldOneAndItsOpenTransactionIsNeverRead) {
    const std::string group = unique("fence");
    // A hook inside each publication, between its messages reaching the
    // brokers and its commit; the test arms it for one publication.
    std::function<void()> hook;
    auto with_hook = [&](KafkaHaOptions o) {
        o.before_commit = [&hook] {
            if (hook) std::exchange(hook, nullptr)();
        };
        return o;
    };
    auto a = open(with_hook(options(group, "a")));
    auto b = open(with_hook(options(group, "b")));
    auto reader = open(options(group, "reader"));
    ASSERT_TRUE(a && b && reader);

    ASSERT_TRUE(a->become_writer().ok());
    ASSERT_TRUE(a->writer()->publish(make_runs(1, 5, 1, "a")).ok());  // seq 1..5

    // B becomes the writer while A is idle: A's next publication is fenced,
    // and so is every one after it. Becoming the writer waits for A's
    // transactions to be complete, so a reader has all of them at once.
    ASSERT_TRUE(b->become_writer().ok());
    ASSERT_TRUE(reader->seek_after(0).ok());
    EXPECT_EQ(read_to_end(*reader), make_runs(1, 5, 1, "a"));
    for (int attempt = 0; attempt < 2; attempt++) {
        events::Status fenced = a->writer()->publish(make_runs(6, 2, 1, "a-fenced"));
        ASSERT_FALSE(fenced.ok());
        EXPECT_NE(fenced.error().message.find("fenced: another instance became the journal's writer"),
                  std::string::npos)
            << fenced.error().message;
    }
    EXPECT_FALSE(a->writer()->may_act());
    ASSERT_TRUE(b->writer()->publish(make_runs(6, 5, 1, "b")).ok());  // seq 6..10

    // A becomes the writer again in the middle of B's publication of seq
    // 11..15: B's transaction is open, its messages on the brokers, when
    // A's init aborts it. B's commit fails; A publishes 11..12 itself.
    // Before that, with B's transaction open, a reader has everything
    // committed and knows it (the last stable offset stops before B's).
    hook = [&] {
        ASSERT_TRUE(reader->seek_after(5).ok());
        EXPECT_EQ(read_runs(*reader, 5), make_runs(6, 5, 1, "b"));
        EXPECT_TRUE(*reader->caught_up());
        ASSERT_TRUE(a->become_writer().ok());
    };
    events::Status open_fenced = b->writer()->publish(make_runs(11, 5, 1, "b-open"));
    ASSERT_FALSE(open_fenced.ok());
    EXPECT_NE(open_fenced.error().message.find("fenced: another instance became the journal's writer"),
              std::string::npos)
        << open_fenced.error().message;
    EXPECT_FALSE(b->writer()->may_act());
    ASSERT_TRUE(a->writer()->publish(make_runs(11, 2, 1, "a2")).ok());  // seq 11..12

    std::vector<ShippedRun> expected = make_runs(1, 5, 1, "a");
    for (const ShippedRun& run : make_runs(6, 5, 1, "b")) expected.push_back(run);
    for (const ShippedRun& run : make_runs(11, 2, 1, "a2")) expected.push_back(run);
    ASSERT_TRUE(reader->seek_after(0).ok());
    const std::vector<ShippedRun> got = read_runs(*reader, expected.size());
    EXPECT_EQ(got, expected) << describe(got);
    // From the middle too: seq 11 and 12 are in the log twice (B's aborted,
    // A's committed); the search never lands on the aborted ones.
    ASSERT_TRUE(reader->seek_after(10).ok());
    EXPECT_EQ(read_to_end(*reader), make_runs(11, 2, 1, "a2"));

    // B's open transaction is in the log, aborted, and no reader saw it.
    const std::vector<std::string> physical = values_read_uncommitted(_bootstrap, a->options().journal_topic_name());
    const auto open_messages = std::count_if(physical.begin(), physical.end(),
                                             [](const std::string& v) { return v.rfind("b-open:", 0) == 0; });
    EXPECT_EQ(open_messages, 5) << physical.size() << " messages in the log";
}

/// Two members of one group under `strategy`: the first is elected; while
/// the second joins, never both are, and then exactly one is; when the
/// leader leaves, the other is elected within a few seconds. Returns how long
/// the first leader was unelected while the second joined.
int64_t election_unseated_ms(HaLogOnKafka& test, const std::string& strategy) {
    const std::string group = unique("elect-" + strategy);
    auto options = [&](const std::string& instance) {
        KafkaHaOptions o = test.options(group, instance, true);
        o.assignment_strategy = strategy;
        return o;
    };
    const auto joined = Clock::now();
    auto a = test.open(options("a"));
    EXPECT_TRUE(a);
    if (!a) return -1;
    int64_t elected_ms = -1;
    while (ms_since(joined) < 15'000) {
        if (a->elected()) {
            elected_ms = ms_since(joined);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_GE(elected_ms, 0) << strategy << ": a alone was not elected within 15 s";
    if (elected_ms < 0) return -1;

    // b joins: a rebalance. Watched every 5 ms for 3 s.
    auto b = test.open(options("b"));
    EXPECT_TRUE(b);
    if (!b) return -1;
    const auto b_joined = Clock::now();
    int64_t unseated_ms = 0;
    auto last = Clock::now();
    while (ms_since(b_joined) < 3'000) {
        const bool a_elected = a->elected();
        const bool b_elected = b->elected();
        EXPECT_FALSE(a_elected && b_elected) << strategy << ": both elected " << ms_since(b_joined)
                                             << " ms after b joined";
        const auto now = Clock::now();
        if (!a_elected && !b_elected) {
            unseated_ms += std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count();
        }
        last = now;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_NE(a->elected(), b->elected()) << strategy << ": not exactly one elected 3 s after b joined";
    KafkaHaLog& leader = a->elected() ? *a : *b;
    KafkaHaLog& other = a->elected() ? *b : *a;

    // The leader leaves (SIGTERM's path): it is no longer elected at once,
    // and the other is within a few seconds.
    const auto left = Clock::now();
    leader.close();
    EXPECT_FALSE(leader.elected());
    int64_t handover_ms = -1;
    while (ms_since(left) < 10'000) {
        if (other.elected()) {
            handover_ms = ms_since(left);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::printf("election (%s): a elected %lld ms after joining; while b joined nobody was elected for %lld ms; "
                "handover %lld ms after the leader left\n",
                strategy.c_str(), static_cast<long long>(elected_ms), static_cast<long long>(unseated_ms),
                static_cast<long long>(handover_ms));
    EXPECT_GE(handover_ms, 0) << strategy << ": the other was not elected within 10 s of the leader leaving";
    EXPECT_LE(handover_ms, 5'000) << strategy;
    EXPECT_FALSE(leader.elected());
    return unseated_ms;
}

TEST_F(HaLogOnKafka, OneOfTwoIsElectedAndTheOtherTakesOverWhenItLeaves) {
    // Range (eager): a member joining may unseat the leader for a moment.
    EXPECT_GE(election_unseated_ms(*this, "range"), 0);
}

TEST_F(HaLogOnKafka, UnderCooperativeStickyAMemberJoiningLeavesTheLeaderElected) {
    EXPECT_EQ(election_unseated_ms(*this, "cooperative-sticky"), 0);
}

TEST_F(HaLogOnKafka, TheNewestCompleteSnapshotComesBackWhole) {
    const std::string group = unique("snapshot");
    std::function<void()> hook;
    KafkaHaOptions writer_options = options(group, "writer");
    writer_options.before_commit = [&hook] {
        if (hook) std::exchange(hook, nullptr)();
    };
    // Two parts a transaction: a snapshot of several parts takes several.
    writer_options.snapshot_parts_per_transaction = 2;
    auto writer = open(writer_options);
    auto fencer = open(options(group, "fencer"));
    auto reader = open(options(group, "reader"));
    ASSERT_TRUE(writer && fencer && reader);
    ASSERT_TRUE(writer->become_writer().ok());

    const std::vector<uint8_t> first = random_bytes((size_t{7} << 20) / 2, 1);  // 3.5 MiB: 4 parts
    ASSERT_TRUE(writer->writer()->publish(make_runs(1, 2, 50, "w")).ok());
    const uint64_t commits_before = writer->kafka_writer()->commits();
    ASSERT_TRUE(writer->writer()->publish_snapshot(100, first).ok());
    EXPECT_EQ(writer->kafka_writer()->commits() - commits_before, 2u) << "4 parts, 2 a transaction";
    std::optional<store::Snapshot> newest = newest_snapshot_at(*reader, 100);
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 100u);
    EXPECT_TRUE(newest->bytes == std::string(first.begin(), first.end()));

    const std::vector<uint8_t> second = random_bytes(2'500'000, 2);
    ASSERT_TRUE(writer->writer()->publish_snapshot(200, second).ok());
    newest = newest_snapshot_at(*reader, 200);
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 200u);
    EXPECT_TRUE(newest->bytes == std::string(second.begin(), second.end()));

    // Newer parts that must not count: a publication cut short (its first
    // transaction, parts 0 and 1, committed; the second fenced while open,
    // aborted, never read), and a part whose bytes fail their CRC32C.
    hook = [&] { hook = [&] { ASSERT_TRUE(fencer->become_writer().ok()); }; };
    EXPECT_FALSE(writer->writer()->publish_snapshot(300, random_bytes((size_t{7} << 20) / 2, 3)).ok());
    std::string damaged = encode_snapshot_chunk(400, random_bytes(1000, 4), 0);
    damaged.back() ^= 0x01;
    produce_plain(_bootstrap, writer->options().snapshots_topic_name(), snapshot_chunk_key(400), damaged);
    // Both are visible now: the fencer's init completed the abort, and the
    // plain message was acknowledged by every replica.
    events::Result<std::optional<store::Snapshot>> found = reader->newest_snapshot();
    ASSERT_TRUE(found.ok() && found->has_value()) << (found.ok() ? "none" : found.error().to_string());
    EXPECT_EQ((*found)->seq, 200u);
    EXPECT_TRUE((*found)->bytes == std::string(second.begin(), second.end()));

    // An empty snapshot is one empty part.
    ASSERT_TRUE(fencer->writer()->publish_snapshot(500, {}).ok());
    newest = newest_snapshot_at(*reader, 500);
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 500u);
    EXPECT_TRUE(newest->bytes.empty());
}

TEST_F(HaLogOnKafka, MayActOnlyWithinTheLeaseOfTheNewestCommit) {
    KafkaHaOptions o = options(unique("lease"), "writer");
    o.lease_ms = 1000;
    auto log = open(o);
    ASSERT_TRUE(log);
    // The lease runs from when each commit was asked, which is after `asked`:
    // while less than the lease has passed since `asked`, it must hold. (On a
    // loaded machine a commit may itself outlast the lease; then only the
    // expiry is checked.)
    using clock = std::chrono::steady_clock;
    auto holds_if_young = [&](clock::time_point asked) {
        const bool young = clock::now() - asked < std::chrono::milliseconds(o.lease_ms);
        if (young) EXPECT_TRUE(log->writer()->may_act());
    };
    clock::time_point asked = clock::now();
    ASSERT_TRUE(log->become_writer().ok());
    holds_if_young(asked);  // init_transactions starts the lease
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    EXPECT_FALSE(log->writer()->may_act());
    asked = clock::now();
    ASSERT_TRUE(log->writer()->publish(make_runs(1, 1, 1, "w")).ok());
    holds_if_young(asked);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    EXPECT_FALSE(log->writer()->may_act());
    asked = clock::now();
    ASSERT_TRUE(log->writer()->publish_snapshot(1, random_bytes(10, 5)).ok());
    holds_if_young(asked);

    // The default: session timeout less two heartbeats and a second.
    EXPECT_EQ(options("g", "i").effective_lease_ms(), 3'000);
}

TEST_F(HaLogOnKafka, TopicsAreCreatedWithOnePartitionAndTheirConfigs) {
    const std::string group = unique("topics");
    KafkaHaOptions first = options(group, "first");
    first.journal_retention_ms = 2 * 86'400'000;
    first.journal_retention_bytes = int64_t{3} << 30;
    auto log = open(first);
    ASSERT_TRUE(log);
    EXPECT_TRUE(log->topics().journal_created);
    EXPECT_TRUE(log->topics().snapshots_created);
    EXPECT_EQ(log->topics().brokers, 3);
    EXPECT_EQ(log->topics().replication_factor, 3);

    testing::RdKafka admin(_bootstrap);
    const std::string journal = group + "-journal";
    const std::string snapshots = journal + "-snapshots";
    EXPECT_EQ(log->options().journal_topic_name(), journal);
    EXPECT_EQ(log->options().snapshots_topic_name(), snapshots);
    for (const std::string& topic : {journal, snapshots}) {
        events::Result<testing::PartitionState> zero = admin.partition(topic, 0);
        ASSERT_TRUE(zero.ok()) << zero.error().to_string();
        EXPECT_EQ(zero->replicas.size(), 3u) << topic;
        EXPECT_FALSE(admin.partition(topic, 1).ok()) << topic << " has a partition 1";
        EXPECT_EQ(*admin.topic_config(topic, "min.insync.replicas"), "2") << topic;
        EXPECT_EQ(*admin.topic_config(topic, "max.message.bytes"), "8388608") << topic;
        EXPECT_EQ(*admin.topic_config(topic, "cleanup.policy"), "delete") << topic;
    }
    EXPECT_EQ(*admin.topic_config(snapshots, "retention.ms"), "86400000");
    EXPECT_EQ(*admin.topic_config(journal, "retention.ms"), "172800000");
    EXPECT_EQ(*admin.topic_config(journal, "retention.bytes"), "3221225472");

    // A second instance finds them.
    auto second = open(options(group, "second"));
    ASSERT_TRUE(second);
    EXPECT_FALSE(second->topics().journal_created);
    EXPECT_FALSE(second->topics().snapshots_created);

    // A journal topic of two partitions is refused, naming it.
    KafkaHaOptions o = options(unique("two-partitions"), "i");
    ASSERT_TRUE(admin.create_topic(o.journal_topic_name(), {{1, 2, 3}, {2, 3, 1}}).ok());
    events::Result<std::unique_ptr<KafkaHaLog>> refused = KafkaHaLog::open(o);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find(o.journal_topic_name() + " at bootstrap servers"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("2 partitions"), std::string::npos) << refused.error().message;
}

/// A consumer of another kind than Ballast's in `group`, subscribed to
/// `topic` (librdkafka's default client.id): once assigned, it holds
/// partition 0 as a Ballast leader does, without the mark.
class PlainMember {
public:
    PlainMember(const std::string& bootstrap, const std::string& group, const std::string& topic) {
        char error[512];
        rd_kafka_conf_t* conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error));
        rd_kafka_conf_set(conf, "group.id", group.c_str(), error, sizeof(error));
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof(error));
        _handle = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
        rd_kafka_poll_set_consumer(_handle);
        rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
        rd_kafka_subscribe(_handle, topics);
        rd_kafka_topic_partition_list_destroy(topics);
    }
    ~PlainMember() {
        rd_kafka_consumer_close(_handle);
        rd_kafka_destroy(_handle);
    }
    /// Polls until the group assigned it a partition (bounded).
    bool wait_assigned(int64_t timeout_ms) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        while (Clock::now() < deadline) {
            if (rd_kafka_message_t* message = rd_kafka_consumer_poll(_handle, 100)) rd_kafka_message_destroy(message);
            rd_kafka_topic_partition_list_t* assigned = nullptr;
            if (rd_kafka_assignment(_handle, &assigned) == RD_KAFKA_RESP_ERR_NO_ERROR && assigned != nullptr) {
                const bool holds = assigned->cnt > 0;
                rd_kafka_topic_partition_list_destroy(assigned);
                if (holds) return true;
            }
        }
        return false;
    }

private:
    rd_kafka_t* _handle = nullptr;
};

/// The check's entry for `group`, if any.
std::optional<OtherBallastGroup> entry_of(const HaPresence& presence, const std::string& group) {
    for (const OtherBallastGroup& other : presence.others) {
        if (other.group_id == group) return other;
    }
    return std::nullopt;
}

/// Checks from `log`'s point of view until `done` holds (bounded: a
/// rebalance in progress may describe a group without its leader for a
/// moment); the last presence found.
std::optional<HaPresence> presence_until(const KafkaHaLog& log, const std::function<bool(const HaPresence&)>& done,
                                         int64_t timeout_ms = 30'000) {
    std::optional<HaPresence> last;
    std::string last_error;
    (void)testing::eventually(
        [&] {
            events::Result<HaPresence> found = other_ballast_groups(log.options());
            if (!found) {
                last_error = found.error().to_string();
                return false;
            }
            last = std::move(*found);
            return done(*last);
        },
        timeout_ms);
    if (!last) ADD_FAILURE() << "no check succeeded: " << last_error;
    return last;
}

std::string describe(const std::optional<HaPresence>& presence) {
    if (!presence) return "(none)";
    std::string out = std::to_string(presence->groups_listed) + " listed, " +
                      std::to_string(presence->groups_described) + " described; others:";
    for (const OtherBallastGroup& o : presence->others) {
        out += " " + o.group_id + " (" + o.leader_client_id + " on " + o.leader_host + ", " + o.journal_topic + ")";
    }
    for (const UndescribedGroup& u : presence->undescribed) out += "; undescribed " + u.group_id + ": " + u.error;
    return out;
}

TEST_F(HaLogOnKafka, ALeaderFindsAnotherBallastGroupButNotItsOwnNorOtherConsumers) {
    const std::string ours = unique("presence-ours");
    const std::string theirs = unique("presence-theirs");
    const std::string plain_group = unique("presence-plain");
    _consumer_groups.insert(plain_group);
    // As ballast run --ha elects.
    auto member = [&](const std::string& group, const std::string& instance) {
        KafkaHaOptions o = options(group, instance, true);
        o.assignment_strategy = "cooperative-sticky";
        return open(o);
    };
    const auto started = Clock::now();
    auto a = member(ours, "a");
    auto b = member(theirs, "b");
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(testing::eventually([&] { return a->elected() && b->elected(); }, 30'000))
        << "a elected " << a->elected() << ", b elected " << b->elected();
    // A standby of theirs (never named as their leader), and a consumer
    // group of another kind holding partition 0 of our journal topic.
    auto b_standby = member(theirs, "b-standby");
    ASSERT_TRUE(b_standby);
    PlainMember plain(_bootstrap, plain_group, a->options().journal_topic_name());
    ASSERT_TRUE(plain.wait_assigned(30'000)) << "the plain consumer was never assigned";

    // From a: their group, led by b, and neither ours nor the plain one.
    const auto checked = Clock::now();
    std::optional<HaPresence> seen = presence_until(*a, [&](const HaPresence& p) {
        const std::optional<OtherBallastGroup> them = entry_of(p, theirs);
        return them && them->leader_instance_id == "b";
    });
    const int64_t found_ms = ms_since(checked);
    ASSERT_TRUE(seen.has_value());
    const std::optional<OtherBallastGroup> them = entry_of(*seen, theirs);
    ASSERT_TRUE(them.has_value()) << describe(seen);
    EXPECT_EQ(them->leader_client_id, "ballast-ha/b");
    EXPECT_EQ(them->leader_instance_id, "b");
    EXPECT_EQ(them->leader_host, "127.0.0.1");
    EXPECT_EQ(them->journal_topic, b->options().journal_topic_name());
    EXPECT_FALSE(entry_of(*seen, ours).has_value()) << describe(seen);
    EXPECT_FALSE(entry_of(*seen, plain_group).has_value()) << describe(seen);
    // The plain group was described, not passed over: a verdict, not a miss.
    EXPECT_GE(seen->groups_described, 2u) << describe(seen);
    for (const UndescribedGroup& u : seen->undescribed) {
        EXPECT_NE(u.group_id, plain_group) << describe(seen);
        EXPECT_NE(u.group_id, theirs) << describe(seen);
    }

    // From b: ours, led by a, and not theirs.
    std::optional<HaPresence> from_b = presence_until(*b, [&](const HaPresence& p) {
        const std::optional<OtherBallastGroup> us = entry_of(p, ours);
        return us && us->leader_instance_id == "a";
    });
    ASSERT_TRUE(from_b.has_value());
    ASSERT_TRUE(entry_of(*from_b, ours).has_value()) << describe(from_b);
    EXPECT_EQ(entry_of(*from_b, ours)->leader_client_id, "ballast-ha/a");
    EXPECT_EQ(entry_of(*from_b, ours)->journal_topic, a->options().journal_topic_name());
    EXPECT_FALSE(entry_of(*from_b, theirs).has_value()) << describe(from_b);
    EXPECT_FALSE(entry_of(*from_b, plain_group).has_value()) << describe(from_b);

    const auto timed = Clock::now();
    EXPECT_TRUE(other_ballast_groups(a->options()).ok());
    std::printf("presence: both elected and the others joined after %lld ms; found %lld ms later; one check on %zu "
                "groups listed took %lld ms\n",
                static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(checked - started).count()),
                static_cast<long long>(found_ms), seen->groups_listed, static_cast<long long>(ms_since(timed)));
}

TEST_F(HaLogOnKafka, AnotherGroupIsNamedByItsLeaderOfTheMomentAndNotOnceItsMembersLeft) {
    const std::string ours = unique("presence-stay");
    const std::string theirs = unique("presence-go");
    auto member = [&](const std::string& group, const std::string& instance) {
        KafkaHaOptions o = options(group, instance, true);
        o.assignment_strategy = "cooperative-sticky";
        return open(o);
    };
    auto a = member(ours, "a");
    auto b = member(theirs, "b");
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(testing::eventually([&] { return b->elected(); }, 30'000));
    auto c = member(theirs, "c");
    ASSERT_TRUE(c);
    auto led_by = [&](const std::string& instance) {
        return [&, instance](const HaPresence& p) {
            const std::optional<OtherBallastGroup> them = entry_of(p, theirs);
            return them && them->leader_instance_id == instance;
        };
    };
    std::optional<HaPresence> seen = presence_until(*a, led_by("b"));
    ASSERT_TRUE(seen && led_by("b")(*seen)) << describe(seen);

    // b leaves: c leads them now, and is the one named.
    b->close();
    seen = presence_until(*a, led_by("c"));
    ASSERT_TRUE(seen && led_by("c")(*seen)) << describe(seen);

    // c leaves too: their group has no member, and is not reported.
    c->close();
    const auto left = Clock::now();
    seen = presence_until(*a, [&](const HaPresence& p) { return !entry_of(p, theirs).has_value(); });
    ASSERT_TRUE(seen.has_value());
    EXPECT_FALSE(entry_of(*seen, theirs).has_value()) << "still reported 30 s after its members left: "
                                                      << describe(seen);
    std::printf("presence: their group no longer reported %lld ms after its last member left\n",
                static_cast<long long>(ms_since(left)));
}

// Not a check: what a publication costs on this cluster, printed.
TEST_F(HaLogOnKafka, PublicationCostsPrinted) {
    const std::string group = unique("latency");
    auto writer = open(options(group, "writer"));
    auto reader = open(options(group, "reader"));
    ASSERT_TRUE(writer && reader);
    ASSERT_TRUE(writer->become_writer().ok());
    uint64_t seq = 1;
    size_t published = 0;
    /// Publishes `runs` runs of `bytes` each (100 seqs a run); its latency in ms.
    auto publish = [&](int runs, size_t bytes) {
        std::vector<ShippedRun> batch;
        for (int i = 0; i < runs; i++, seq += 100) batch.push_back(make_run(seq, seq + 99, "w", bytes));
        const auto before = Clock::now();
        EXPECT_TRUE(writer->writer()->publish(batch).ok());
        published += batch.size();
        return std::chrono::duration<double, std::milli>(Clock::now() - before).count();
    };
    auto summary = [](std::vector<double> ms) {
        std::sort(ms.begin(), ms.end());
        auto at = [&](double q) { return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1))]; };
        char line[160];
        std::snprintf(line, sizeof(line), "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", at(0.5), at(0.9),
                      at(0.99), ms.back());
        return std::string(line);
    };
    for (int i = 0; i < 10; i++) publish(1, 10'000);  // warm up

    // One ~10 KB run a transaction, back to back: a writer's commit rate.
    std::vector<double> back_to_back;
    const auto started = Clock::now();
    while (back_to_back.size() < 150) back_to_back.push_back(publish(1, 10'000));
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    std::printf("publish of one ~10 KB run, back to back: %s; %.1f commits/s from one writer\n",
                summary(back_to_back).c_str(), static_cast<double>(back_to_back.size()) / seconds);

    // The same after the writer was idle: the previous transaction completed.
    std::vector<double> idle;
    for (int i = 0; i < 8; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        idle.push_back(publish(1, 10'000));
    }
    std::printf("publish of one ~10 KB run after 600 ms idle: %s\n", summary(idle).c_str());

    // Bigger transactions: 16 runs of 64 KB (1 MiB) each.
    std::vector<double> big;
    const auto big_started = Clock::now();
    while (ms_since(big_started) < 3'000) big.push_back(publish(16, 64'000));
    const double big_seconds = std::chrono::duration<double>(Clock::now() - big_started).count();
    std::printf("publish of 16 runs of 64 KB (1 MiB), back to back: %s; %.1f commits/s, %.1f MB/s\n",
                summary(big).c_str(), static_cast<double>(big.size()) / big_seconds,
                static_cast<double>(big.size()) * 1.024 / big_seconds);

    // A snapshot of 32 MiB in one transaction, and reading it back.
    const std::vector<uint8_t> snapshot = random_bytes(size_t{32} << 20, 7);
    const auto snapshot_started = Clock::now();
    ASSERT_TRUE(writer->writer()->publish_snapshot(seq, snapshot).ok());
    const double snapshot_ms = std::chrono::duration<double, std::milli>(Clock::now() - snapshot_started).count();
    const auto snapshot_read = Clock::now();
    std::optional<store::Snapshot> back = newest_snapshot_at(*reader, seq);
    const double snapshot_read_ms = std::chrono::duration<double, std::milli>(Clock::now() - snapshot_read).count();
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->bytes.size(), snapshot.size());
    std::printf("publish_snapshot of 32 MiB (one transaction): %.0f ms (%.1f MB/s); newest_snapshot read it in %.0f ms\n",
                snapshot_ms, 33.55 / (snapshot_ms / 1000), snapshot_read_ms);

    // From a commit returning to a reader at the end having the run: the
    // coordinator's markers, then the reader's fetch.
    std::vector<double> visible;
    std::vector<double> caught_up_calls;
    ASSERT_TRUE(reader->seek_after(seq - 1).ok());
    (void)read_to_end(*reader);
    for (int i = 0; i < 20; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        publish(1, 10'000);
        const auto committed = Clock::now();
        events::Result<std::vector<ShippedRun>> got = reader->read(10'000);
        ASSERT_TRUE(got.ok() && got->size() == 1u);
        visible.push_back(std::chrono::duration<double, std::milli>(Clock::now() - committed).count());
        const auto asked = Clock::now();
        EXPECT_TRUE(*reader->caught_up());
        caught_up_calls.push_back(std::chrono::duration<double, std::milli>(Clock::now() - asked).count());
    }
    std::printf("a committed run reaches a reader at the end (after publish returned): %s; caught_up then: %s\n",
                summary(visible).c_str(), summary(caught_up_calls).c_str());

    // How long a standby takes to find its place in this log and to read it.
    auto timed = [](auto&& call) {
        const auto before = Clock::now();
        call();
        return std::chrono::duration<double, std::milli>(Clock::now() - before).count();
    };
    const double first_seq_ms = timed([&] { EXPECT_EQ(*reader->first_seq(), 1u); });
    const double seek_ms = timed([&] { ASSERT_TRUE(reader->seek_after(seq / 2).ok()); });
    const double seek_end_ms = timed([&] { ASSERT_TRUE(reader->seek_after(seq - 1).ok()); });
    const double caught_up_ms = timed([&] { EXPECT_TRUE(*reader->caught_up()); });
    ASSERT_TRUE(reader->seek_after(0).ok());
    size_t runs = 0;
    const double read_ms = timed([&] { runs = read_runs(*reader, published).size(); });
    EXPECT_EQ(runs, published);
    std::printf("standby on %zu committed runs: first_seq %.1f ms, seek_after (middle) %.1f ms, seek_after (end) "
                "%.1f ms, caught_up at the end %.1f ms, reading them all %.1f ms\n",
                published, first_seq_ms, seek_ms, seek_end_ms, caught_up_ms, read_ms);
}

}  // namespace
}  // namespace ballast::kafka
