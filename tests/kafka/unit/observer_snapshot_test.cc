// The observer reading a snapshot instead of the log, and metadata transactions, against a
// scripted controller (`scripted_controller.h`) on a real loopback socket: a fresh observer
// whose position is older than the log's start reads the snapshot the Fetch answer names in
// chunks cut inside batches, hands it out as one image and fetches on from its end; a
// snapshot the leader no longer has is asked for again through a Fetch; a snapshot ending
// inside a batch is an error naming it. Transactions: records between Begin and End handed
// out together at the End, even when the End comes in a later Fetch answer, and the
// committed offset held at the Begin meanwhile; none of an aborted one. Every request is
// compared byte for byte with one encoded for the expected position.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata_log/observer.h"
#include "tests/kafka/unit/scripted_controller.h"

namespace ballast::kafka::metadata_log {
namespace {

const MetadataRecord begin{0, BeginTransactionRecord{"create big"}};
const MetadataRecord end{0, EndTransactionRecord{}};
const MetadataRecord abort_record{0, AbortTransactionRecord{"failed over"}};

std::vector<std::string> topic_names(const std::vector<MetadataEntry>& entries) {
    std::vector<std::string> out;
    for (const MetadataEntry& entry : entries) {
        if (const auto* topic = std::get_if<TopicRecord>(&entry.record.body)) out.push_back(topic->name);
    }
    return out;
}

TEST(ObserverTransactions, RecordsOfATransactionSpanningTwoFetchesAreHandedOutAtItsEnd) {
    ScriptedController controller(std::vector<Answer>{
        // 10 alone; 11 Begin, 12-13 inside; all committed.
        answer([](Answer& a) {
            a.high_watermark = 14;
            a.batches = joined({batch(10, 5, {topic_record("alone", 1)}),
                                batch(11, 5, {begin, topic_record("t-a", 2), topic_record("t-b", 3)})});
        }),
        // 14 inside, 15 End, 16 after it.
        answer([](Answer& a) {
            a.high_watermark = 17;
            a.batches = joined({batch(14, 5, {topic_record("t-c", 4), end}),
                                batch(16, 5, {topic_record("after", 5)})});
        }),
    });
    MetadataLogObserver observer = controller.observer(10, 5);
    Result<PollResult> first = observer.poll();
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    EXPECT_EQ(offsets(first->entries), (std::vector<int64_t>{10}));
    EXPECT_EQ(topic_names(first->entries), (std::vector<std::string>{"alone"}));
    EXPECT_FALSE(first->image);
    // Nothing of the transaction handed out: reading again must start at its Begin.
    EXPECT_EQ(observer.committed_offset(), 11);
    Result<PollResult> second = observer.poll();
    ASSERT_TRUE(second.ok()) << second.error().to_string();
    EXPECT_EQ(offsets(second->entries), (std::vector<int64_t>{11, 12, 13, 14, 15, 16}));
    EXPECT_EQ(topic_names(second->entries),
              (std::vector<std::string>{"t-a", "t-b", "t-c", "after"}));
    EXPECT_EQ(observer.committed_offset(), 17);
    const std::vector<ScriptedBroker::Request> fetches = controller.fetches();
    ASSERT_EQ(fetches.size(), 2u);
    EXPECT_EQ(fetches[1].frame, expected_fetch(fetches[1].correlation_id, 5, 14, 5));
}

TEST(ObserverTransactions, AnAbortedTransactionHandsOutNoneOfItsRecords) {
    ScriptedController controller(std::vector<Answer>{
        answer([](Answer& a) {
            a.high_watermark = 16;
            a.batches = joined({batch(10, 5, {begin, topic_record("doomed-1", 1)}),
                                batch(12, 5, {topic_record("doomed-2", 2), abort_record}),
                                batch(14, 5, {topic_record("kept", 3)}),
                                batch(15, 5, {begin})});
        }),
        // The open transaction's records are committed only in part: the End is not.
        answer([](Answer& a) {
            a.high_watermark = 17;
            a.batches = joined({batch(16, 5, {topic_record("pending", 4)}), batch(17, 5, {end})});
        }),
        answer([](Answer& a) { a.high_watermark = 18; }),
    });
    MetadataLogObserver observer = controller.observer(10, 5);
    Result<PollResult> first = observer.poll();
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    EXPECT_EQ(topic_names(first->entries), (std::vector<std::string>{"kept"}));
    EXPECT_EQ(offsets(first->entries), (std::vector<int64_t>{14}));
    EXPECT_EQ(observer.committed_offset(), 15);
    Result<PollResult> second = observer.poll();
    ASSERT_TRUE(second.ok()) << second.error().to_string();
    EXPECT_TRUE(second->entries.empty());  // 16 committed, inside; 17 (the End) not yet
    EXPECT_EQ(observer.committed_offset(), 15);
    Result<PollResult> third = observer.poll();
    ASSERT_TRUE(third.ok()) << third.error().to_string();
    EXPECT_EQ(offsets(third->entries), (std::vector<int64_t>{15, 16, 17}));
    EXPECT_EQ(topic_names(third->entries), (std::vector<std::string>{"pending"}));
    EXPECT_EQ(observer.committed_offset(), 18);
}

/// A snapshot as Kafka's writer lays it out: a header control batch, metadata records in
/// two batches, a footer control batch; the batches' offsets count from 0.
std::vector<uint8_t> snapshot_bytes() {
    return joined({batch(0, 3, {MetadataRecord{0, EndTransactionRecord{}}}, true),
                   batch(1, 3, {topic_record("orders", 1), topic_record("payments", 2)}),
                   batch(3, 3, {MetadataRecord{0, RemoveTopicRecord{wire::Uuid{0, 9}}},
                                topic_record("users", 3)}),
                   batch(5, 3, {MetadataRecord{0, EndTransactionRecord{}}}, true)});
}

TEST(ObserverSnapshot, AFreshObserverBehindTheLogStartReadsTheSnapshotInChunksThenTheLog) {
    const std::vector<uint8_t> snapshot = snapshot_bytes();
    const wire::messages::FetchEpochEndOffset id{3, 80};
    constexpr int32_t chunk_bytes = 100;  // cuts every batch of the snapshot
    ASSERT_GT(snapshot.size(), 3u * chunk_bytes);
    ScriptedController controller(
        std::vector<Answer>{
            answer([](Answer& a) { a.error = 42; }),  // INVALID_REQUEST: the epoch learnt
            answer([&](Answer& a) { a.snapshot = id; a.high_watermark = 82; }),
            answer([](Answer& a) {
                a.high_watermark = 82;
                a.batches = batch(80, 5, {topic_record("after-snapshot", 7)});
            }),
        },
        snapshot, id);
    MetadataLogObserver observer = controller.observer(0, 0, chunk_bytes);
    std::vector<PollResult> polls;
    for (int i = 0; i < 20 && (polls.empty() || !polls.back().image); ++i) {
        Result<PollResult> polled = observer.poll();
        ASSERT_TRUE(polled.ok()) << polled.error().to_string();
        polls.push_back(*polled);
    }
    ASSERT_TRUE(polls.back().image);
    for (size_t i = 0; i + 1 < polls.size(); ++i) {
        EXPECT_TRUE(polls[i].entries.empty()) << "poll " << i;
        EXPECT_FALSE(polls[i].image);
    }
    const PollResult& image = polls.back();
    EXPECT_EQ(topic_names(image.entries), (std::vector<std::string>{"orders", "payments", "users"}));
    EXPECT_EQ(image.entries.size(), 4u);
    EXPECT_EQ(offsets(image.entries), (std::vector<int64_t>(4, 79)));
    EXPECT_EQ(observer.committed_offset(), 80);

    Result<PollResult> after = observer.poll();
    ASSERT_TRUE(after.ok()) << after.error().to_string();
    EXPECT_FALSE(after->image);
    EXPECT_EQ(offsets(after->entries), (std::vector<int64_t>{80}));
    EXPECT_EQ(topic_names(after->entries), (std::vector<std::string>{"after-snapshot"}));

    // Two fetches, then each chunk from where the last ended, then the log from 80 in epoch 3.
    const std::vector<ScriptedBroker::Request> chunks = controller.requests(59);
    const size_t expected_chunks = (snapshot.size() + chunk_bytes - 1) / chunk_bytes;
    ASSERT_EQ(chunks.size(), expected_chunks);
    for (size_t i = 0; i < chunks.size(); ++i) {
        EXPECT_EQ(chunks[i].frame, expected_fetch_snapshot(chunks[i].correlation_id, 5, id,
                                                           static_cast<int64_t>(i) * chunk_bytes,
                                                           chunk_bytes))
            << "chunk " << i;
    }
    const std::vector<ScriptedBroker::Request> fetches = controller.fetches();
    ASSERT_EQ(fetches.size(), 3u);
    EXPECT_EQ(fetches[1].frame, expected_fetch(fetches[1].correlation_id, 5, 0, 0, chunk_bytes));
    EXPECT_EQ(fetches[2].frame, expected_fetch(fetches[2].correlation_id, 5, 80, 3, chunk_bytes));
}

TEST(ObserverSnapshot, ASnapshotTheLeaderNoLongerHasIsNamedAgainByAFetch) {
    const std::vector<uint8_t> snapshot = snapshot_bytes();
    const wire::messages::FetchEpochEndOffset id{3, 80};
    ScriptedController controller(
        std::vector<Answer>{answer([&](Answer& a) { a.snapshot = id; a.high_watermark = 82; })},
        snapshot, id, /*snapshot_not_found=*/1);
    MetadataLogObserver observer = controller.observer(0, 0);
    std::optional<PollResult> image;
    for (int i = 0; i < 10 && !image; ++i) {
        Result<PollResult> polled = observer.poll();
        ASSERT_TRUE(polled.ok()) << polled.error().to_string();
        if (polled->image) image = *polled;
    }
    ASSERT_TRUE(image.has_value());
    EXPECT_EQ(topic_names(image->entries), (std::vector<std::string>{"orders", "payments", "users"}));
    // Fetch (snapshot named), FetchSnapshot refused, Fetch again, FetchSnapshot whole.
    EXPECT_EQ(controller.fetches().size(), 2u);
    EXPECT_EQ(controller.requests(59).size(), 2u);
}

TEST(ObserverSnapshot, ASnapshotEndingInsideABatchIsAnErrorNamingIt) {
    std::vector<uint8_t> snapshot = snapshot_bytes();
    snapshot.resize(snapshot.size() - 5);
    const wire::messages::FetchEpochEndOffset id{3, 80};
    ScriptedController controller(
        std::vector<Answer>{answer([&](Answer& a) { a.snapshot = id; a.high_watermark = 82; })},
        snapshot, id);
    MetadataLogObserver observer = controller.observer(0, 0);
    Result<PollResult> named = observer.poll();
    ASSERT_TRUE(named.ok()) << named.error().to_string();
    Result<PollResult> read = observer.poll();
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("metadata snapshot 80-3: ends inside a batch"),
              std::string::npos)
        << read.error().message;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
