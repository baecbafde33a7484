/// The counters `/metrics` reads from a real journal (store/append_tally.h):
/// only what this open of the journal appended, by type and source; actions
/// planned, submitted and ended by kind, goal and outcome (an end of an
/// action it never saw planned as `unknown`).
/// And the journal's append latency (store/latency_histogram.h): one
/// observation per append, in the bucket its time falls in; and a round's,
/// from its barrier's append to its decision's (store/round_latency.h).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "store/journal.h"
#include "tests/support/open_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using events::Event;
using events::Source;

Event event(Source source, events::Body body) {
    Event e;
    e.time_ms = 1000;
    e.source = source;
    e.body = std::move(body);
    return e;
}

events::Action move(uint64_t id, int32_t partition) {
    events::Action a;
    a.action_id = id;
    a.kind = events::ActionKind::move;
    a.topic = "orders";
    a.partition = partition;
    a.source_broker = 3;
    a.destination_broker = 1;
    a.replicas_before = {3};
    a.replicas_after = {1};
    a.goal = "Evacuation";
    return a;
}

TEST(JournalTally, CountsWhatThisOpenAppendedByTypeAndActionsByKindGoalAndOutcome) {
    testing::TempDir dir;
    auto journal = testing::open_journal(dir / "j");
    std::vector<Event> before = testing::sample_events(1, 5);  // recovered by the next open: not its own
    ASSERT_TRUE(journal->append(before).ok());
    journal.reset();
    journal = testing::open_journal(dir / "j");
    EXPECT_TRUE(journal->append_tally().events.empty());
    std::vector<Event> first_batch = {
        event(Source::clock, events::Tick{1000}),
        event(Source::engine, events::ActionsPlanned{1, 6, {move(1, 0), move(2, 3)}, {}, {}, {}, {}}),
        event(Source::executor, events::ActionSubmitted{1, 1}),
        event(Source::executor, events::ActionSubmitted{2, 1}),
    };
    ASSERT_TRUE(journal->append(first_batch).ok());
    TallyFigures first = journal->append_tally();
    EXPECT_EQ((first.events[{"tick", "clock"}]), 1u);
    uint64_t counted = 0;
    for (const auto& [key, n] : first.events) counted += n;
    EXPECT_EQ(counted, 4u) << "the recovered events are not counted";
    EXPECT_EQ((first.actions_planned[{"move", "Evacuation"}]), 2u);
    EXPECT_EQ((first.submissions[{"move", "Evacuation"}]), 2u);
    EXPECT_TRUE(first.outcomes.empty());

    std::vector<Event> second_batch = {
        event(Source::executor, events::ActionCompleted{1}),
        event(Source::executor, events::ActionFailed{2, 7, "NOT_CONTROLLER", "try again", true, 1}),
        event(Source::operator_, events::ActionCancelled{2, "wrong broker"}),
        event(Source::executor, events::ActionCompleted{99}),
    };
    ASSERT_TRUE(journal->append(second_batch).ok());
    TallyFigures second = journal->append_tally();
    uint64_t events = 0;
    for (const auto& [key, n] : second.events) events += n;
    EXPECT_EQ(events, 8u);
    EXPECT_EQ((second.events[{"action_submitted", "executor"}]), 2u);
    EXPECT_EQ((second.events[{"action_completed", "executor"}]), 2u);
    EXPECT_EQ((second.outcomes[{"move", "Evacuation", "completed"}]), 1u);
    EXPECT_EQ((second.outcomes[{"move", "Evacuation", "failed"}]), 1u) << "retriable: still open";
    EXPECT_EQ((second.outcomes[{"move", "Evacuation", "cancelled"}]), 1u);
    EXPECT_EQ((second.outcomes[{"unknown", "unknown", "completed"}]), 1u) << "never planned here";

    // One observation per append that wrote (an empty one writes nothing).
    std::vector<Event> none;
    ASSERT_TRUE(journal->append(none).ok());
    EXPECT_EQ(journal->append_latency().count, 2u);
    // The round at barrier 6 decided in the same append: timed; one whose
    // barrier this open of the journal did not append is not.
    EXPECT_EQ(journal->round_latency().count, 1u);
    std::vector<Event> late = {event(Source::engine, events::ActionsPlanned{2, 14, {move(3, 1)}, {}, {}, {}, {}})};
    std::vector<Event> tick = {event(Source::clock, events::Tick{2000})};
    ASSERT_TRUE(journal->append(tick).ok());  // seq 14, the barrier
    ASSERT_TRUE(journal->append(late).ok());
    EXPECT_EQ(journal->round_latency().count, 2u);
    journal.reset();
    journal = testing::open_journal(dir / "j");
    std::vector<Event> unseen = {event(Source::engine, events::ActionsPlanned{3, 14, {move(4, 1)}, {}, {}, {}, {}})};
    ASSERT_TRUE(journal->append(unseen).ok());  // barrier 14: appended before this open
    EXPECT_EQ(journal->round_latency().count, 0u);
    EXPECT_EQ(journal->append_latency().count, 1u);
}

TEST(JournalTally, AnAppendsLatencyFallsInItsBucketAndBeyondTheLastOnlyInTheCount) {
    store::LatencyHistogram histogram;
    histogram.observe(std::chrono::microseconds(300));  // <= 0.0005 s: the third bucket
    histogram.observe(std::chrono::microseconds(100));  // == the first bound: the first
    histogram.observe(std::chrono::seconds(10));        // beyond 2.5 s
    const store::LatencyHistogram::Figures f = histogram.figures();
    EXPECT_EQ(f.count, 3u);
    EXPECT_EQ(f.bucket_counts[0], 1u);
    EXPECT_EQ(f.bucket_counts[1], 0u);
    EXPECT_EQ(f.bucket_counts[2], 1u);
    uint64_t in_buckets = 0;
    for (uint64_t n : f.bucket_counts) in_buckets += n;
    EXPECT_EQ(in_buckets, 2u);
    EXPECT_NEAR(f.sum_s, 10.0004, 1e-9);
}

}  // namespace
}  // namespace ballast::store
