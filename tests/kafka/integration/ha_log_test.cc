// The high-availability log's writing side and election on a real cluster
// (tools/kafka-cluster: brokers 1-3): the writer fenced by a newer one (and
// the transaction it had open never read), the election by a consumer group
// and its handover when the leader leaves, the lease, the topics as
// created, and what a publication costs. Each test has a group (and so
// topics and a transactional id) of its own (ha_log_fixture.h).

#include "tests/kafka/integration/ha_log_fixture.h"

namespace ballast::kafka::ha {
namespace {

using namespace fixture;

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
        if (young) {
            EXPECT_TRUE(log->writer()->may_act());
        }
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
}  // namespace ballast::kafka::ha
