// The high-availability log's reading side on a real cluster
// (tools/kafka-cluster: brokers 1-3): the journal read back read_committed
// from any seq, a standby's lag, a journal topic created again under a
// standby, and snapshots in parts read back whole.

#include "adapters/kafka/ha/snapshot_chunk.h"
#include "tests/kafka/integration/ha_log_fixture.h"

namespace ballast::kafka::ha {
namespace {

using namespace fixture;

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

}  // namespace
}  // namespace ballast::kafka::ha
