// The metadata log's observer against a scripted controller on a real loopback socket, for
// what the test cluster cannot be made to do on demand: the first fetch refused until the
// quorum's epoch is known, records above the high watermark held back until it passes, a
// diverging epoch dropping what was held, a refused authorization (snapshots and
// transactions: `observer_snapshot_test.cc`). The controller's answers are built field by
// field (`scripted_controller.h`: FetchResponse v18 with the records of Kafka's
// `batch.metadata` vector, offsets 100-103); what the observer asks is compared byte for
// byte with Fetch requests encoded for the expected position and epochs.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata_log/observer.h"
#include "tests/kafka/support/scripted_broker.h"
#include "tests/kafka/unit/scripted_controller.h"

namespace ballast::kafka::metadata_log {
namespace {

using testing::ScriptedBroker;

TEST(Observer, FirstFetchLearnsTheEpochThenCommittedRecordsOnlyAreHandedOut) {
    ScriptedController controller(std::vector<Answer>{
        // INVALID_REQUEST: the epoch named (-1) is below the last fetched one.
        answer([](Answer& a) { a.error = 42; }),
        // 100-103 sent, 100-101 committed.
        answer([](Answer& a) { a.high_watermark = 102; a.records = true; }),
        // Nothing new; 103 committed now.
        answer([](Answer& a) { a.high_watermark = 104; }),
    });
    MetadataLogObserver observer = controller.observer(100, 0);
    Result<PollResult> first = observer.poll();
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    EXPECT_EQ(offsets(first->entries), (std::vector<int64_t>{100, 101}));  // 102 is a NoOp
    EXPECT_EQ(first->leader_epoch, 5);
    EXPECT_EQ(observer.committed_offset(), 102);
    Result<PollResult> second = observer.poll();
    ASSERT_TRUE(second.ok()) << second.error().to_string();
    EXPECT_EQ(offsets(second->entries), (std::vector<int64_t>{103}));
    EXPECT_EQ(observer.committed_offset(), 104);

    const std::vector<ScriptedBroker::Request> fetches = controller.fetches();
    ASSERT_EQ(fetches.size(), 3u);
    EXPECT_EQ(fetches[0].frame, expected_fetch(fetches[0].correlation_id, -1, 100, 0));
    EXPECT_EQ(fetches[1].frame, expected_fetch(fetches[1].correlation_id, 5, 100, 0));
    // After the batch: its epoch (5) and the offset after it.
    EXPECT_EQ(fetches[2].frame, expected_fetch(fetches[2].correlation_id, 5, 104, 5));
}

TEST(Observer, ADivergingEpochDropsWhatWasHeldAboveIt) {
    ScriptedController controller(std::vector<Answer>{
        // 100-103 sent, 100 committed; the leader's epoch is 6.
        answer([](Answer& a) { a.high_watermark = 101; a.leader = {100, 6}; a.records = true; }),
        answer([](Answer& a) { a.leader = {100, 6}; a.diverging = wire::messages::FetchEpochEndOffset{4, 101}; }),
        answer([](Answer& a) { a.high_watermark = 101; a.leader = {100, 6}; }),
    });
    MetadataLogObserver observer = controller.observer(100, 0);
    Result<PollResult> first = observer.poll();
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    EXPECT_EQ(offsets(first->entries), (std::vector<int64_t>{100}));
    Result<PollResult> diverged = observer.poll();
    ASSERT_TRUE(diverged.ok()) << diverged.error().to_string();
    EXPECT_TRUE(diverged->entries.empty());
    Result<PollResult> again = observer.poll();
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_TRUE(again->entries.empty());  // 101 and 103 were dropped, never handed out
    const std::vector<ScriptedBroker::Request> fetches = controller.fetches();
    ASSERT_EQ(fetches.size(), 3u);
    EXPECT_EQ(fetches[2].frame, expected_fetch(fetches[2].correlation_id, 6, 101, 4));
}

TEST(Observer, ARefusedAuthorizationNamesTheAclNeeded) {
    ScriptedController controller(
        std::vector<Answer>{answer([](Answer& a) { a.top_error = 31; })});
    MetadataLogObserver observer = controller.observer(0, 0);
    Result<PollResult> polled = observer.poll();
    ASSERT_FALSE(polled.ok());
    EXPECT_NE(polled.error().message.find("ClusterAction on the cluster"), std::string::npos)
        << polled.error().message;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
