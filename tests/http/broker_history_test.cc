/// The brokers' history `GET /v1/brokers/history` answers, read from a real
/// journal (tools/http/broker_history.h): samples averaged into equal slices
/// of the window, the band's mean of the brokers that reported, the actions
/// planned in the window with how they ended; the window's start found
/// without reading what lies before it; and a read bounded to the newest
/// `scan_events_max` events, saying it is incomplete.

#include <gtest/gtest.h>

#include <vector>

#include "store/journal.h"
#include "tests/support/open_journal.h"
#include "tests/support/temp_dir.h"
#include "tools/http/broker_history.h"

namespace ballast::http {
namespace {

using events::Event;
using events::Source;

Event at(int64_t time_ms, Source source, events::Body body) {
    Event e;
    e.time_ms = time_ms;
    e.source = source;
    e.body = std::move(body);
    return e;
}

events::Action move(uint64_t id) {
    events::Action a;
    a.action_id = id;
    a.kind = events::ActionKind::move;
    a.topic = "orders";
    a.partition = static_cast<int32_t>(id);
    a.source_broker = 1;
    a.destination_broker = 2;
    a.replicas_before = {1};
    a.replicas_after = {2};
    a.goal = "NetworkInDistributionGoal";
    return a;
}

/// Brokers 1 and 2 report every 10 s from t = 0 to 4,190 s: broker 1's bytes
/// in are the report's second (so a slice's mean is its middle), broker 2's
/// a constant 1000; out is twice in. Action 1 is planned before the window
/// and ends inside it, action 2 is planned and completed inside, action 3 is
/// planned and submitted near the end.
std::vector<Event> an_hour_and_more() {
    std::vector<Event> events;
    for (int64_t s = 0; s < 4200; s += 10) {
        const double in = static_cast<double>(s);
        events.push_back(at(s * 1000, Source::clock, events::Tick{s * 1000}));
        events.push_back(at(s * 1000, Source::simulator,
                            events::BrokerMetrics{s * 1000, {{1, in, 2 * in, 0, 0}, {2, 1000, 2000, 0, 0}}}));
        if (s == 300) events.push_back(at(s * 1000, Source::engine, events::ActionsPlanned{1, 0, {move(1)}, {}, {}, {}, {}}));
        if (s == 900) events.push_back(at(s * 1000, Source::executor, events::ActionCompleted{1}));
        if (s == 1000) events.push_back(at(s * 1000, Source::engine, events::ActionsPlanned{2, 0, {move(2)}, {}, {}, {}, {}}));
        if (s == 1010) events.push_back(at(s * 1000, Source::executor, events::ActionSubmitted{2, 1}));
        if (s == 1200) events.push_back(at(s * 1000, Source::executor, events::ActionCompleted{2}));
        if (s == 4000) events.push_back(at(s * 1000, Source::engine, events::ActionsPlanned{3, 0, {move(3)}, {}, {}, {}, {}}));
        if (s == 4010) events.push_back(at(s * 1000, Source::executor, events::ActionSubmitted{3, 1}));
    }
    return events;
}

TEST(BrokerHistory, SamplesAreAveragedIntoSlicesOfTheWindowWithTheBandAndTheMoves) {
    testing::TempDir dir;
    auto journal = testing::open_journal(dir / "j");
    std::vector<Event> events = an_hour_and_more();
    ASSERT_TRUE(journal->append(events).ok());

    // The last hour before t = 4,200 s: from 600 s, in six slices of ten minutes.
    events::Result<BrokerHistory> h = read_broker_history(*journal, 4'200'000, 3'600'000, 6);
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->from_ms, 600'000);
    EXPECT_EQ(h->to_ms, 4'200'000);
    EXPECT_EQ(h->slice_ms, 600'000);
    EXPECT_TRUE(h->complete);
    // The window's start was found, not scanned to: the events before 600 s were not read.
    EXPECT_GT(h->from_seq, 120u);
    EXPECT_EQ(h->to_seq, journal->last_seq());
    EXPECT_EQ(h->events_read, h->to_seq - h->from_seq + 1);

    ASSERT_EQ(h->brokers.size(), 2u);
    const std::vector<HistoryPoint>& one = h->brokers.at(1);
    ASSERT_EQ(one.size(), 6u);
    // Slice 0 holds the reports of 600..1190 s: broker 1's mean is 895.
    EXPECT_EQ(one[0].time_ms, 1'190'000);
    EXPECT_DOUBLE_EQ(one[0].bytes_in_per_s, 895);
    EXPECT_DOUBLE_EQ(one[0].bytes_out_per_s, 1790);
    EXPECT_EQ(one[5].time_ms, 4'190'000);
    EXPECT_DOUBLE_EQ(one[5].bytes_in_per_s, (3600 + 4190) / 2.0);
    for (const HistoryPoint& p : h->brokers.at(2)) EXPECT_DOUBLE_EQ(p.bytes_in_per_s, 1000);

    ASSERT_EQ(h->band.size(), 6u);
    EXPECT_EQ(h->band[0].time_ms, 1'190'000);
    EXPECT_DOUBLE_EQ(h->band[0].mean_bytes_in_per_s, (895 + 1000) / 2.0);
    EXPECT_DOUBLE_EQ(h->band[0].mean_bytes_out_per_s, (1790 + 2000) / 2.0);

    // Action 1 was planned before the window: not marked.
    ASSERT_EQ(h->moves.size(), 2u);
    EXPECT_EQ(h->moves[0].action.action_id, 2u);
    EXPECT_EQ(h->moves[0].planned_ms, 1'000'000);
    EXPECT_EQ(h->moves[0].ended_ms, 1'200'000);
    EXPECT_EQ(h->moves[0].state, "completed");
    EXPECT_EQ(h->moves[1].action.action_id, 3u);
    EXPECT_EQ(h->moves[1].ended_ms, -1);
    EXPECT_EQ(h->moves[1].state, "submitted");

    // More points than reports: one point per report, never more than asked.
    events::Result<BrokerHistory> fine = read_broker_history(*journal, 4'200'000, 60'000, 1000);
    ASSERT_TRUE(fine.ok());
    EXPECT_EQ(fine->brokers.at(1).size(), 6u);  // 4140..4190 s
    events::Result<BrokerHistory> one_point = read_broker_history(*journal, 4'200'000, 3'600'000, 1);
    ASSERT_TRUE(one_point.ok());
    EXPECT_EQ(one_point->brokers.at(1).size(), 1u);
}

TEST(BrokerHistory, AnEmptyJournalOrAWindowBeforeItsEventsAnswersNothing) {
    testing::TempDir dir;
    auto journal = testing::open_journal(dir / "j");
    events::Result<BrokerHistory> empty = read_broker_history(*journal, 1'000'000, 3'600'000, 10);
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->brokers.empty());
    EXPECT_EQ(empty->events_read, 0u);
    std::vector<Event> events = an_hour_and_more();
    ASSERT_TRUE(journal->append(events).ok());
    // A window that ends before the first report reads them but answers no point.
    events::Result<BrokerHistory> future = read_broker_history(*journal, 10'000'000, 60'000, 10);
    ASSERT_TRUE(future.ok());
    EXPECT_TRUE(future->brokers.empty());
    EXPECT_EQ(future->events_read, 0u);
}

TEST(BrokerHistory, TheReadIsBoundedToTheNewestEventsAndSaysItIsIncomplete) {
    testing::TempDir dir;
    auto journal = testing::open_journal(dir / "j");
    // scan_events_max + 1000 events, a report every tenth, one a second.
    const uint64_t total = scan_events_max + 1000;
    std::vector<Event> batch;
    for (uint64_t i = 0; i < total; i++) {
        const int64_t t = static_cast<int64_t>(i) * 100;
        batch.push_back(i % 10 == 0 ? at(t, Source::simulator, events::BrokerMetrics{t, {{1, 5, 5, 0, 0}}})
                                    : at(t, Source::clock, events::Tick{t}));
        if (batch.size() == 10'000) {
            ASSERT_TRUE(journal->append(batch).ok());
            batch.clear();
        }
    }
    ASSERT_TRUE(journal->append(batch).ok());
    ASSERT_EQ(journal->last_seq(), total);

    const int64_t now_ms = static_cast<int64_t>(total) * 100;
    // A window over the whole journal: its oldest 1000 events are beyond the bound.
    events::Result<BrokerHistory> h = read_broker_history(*journal, now_ms, now_ms, 100);
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->events_read, scan_events_max);
    EXPECT_EQ(h->from_seq, total - scan_events_max + 1);
    EXPECT_FALSE(h->complete);
    EXPECT_LE(h->brokers.at(1).size(), 100u);
    EXPECT_GE(h->brokers.at(1).size(), 98u);  // the slices the newest events span
    EXPECT_EQ(h->brokers.at(1).front().time_ms, 1000 * 100);  // the first event read, seq 1001
}

}  // namespace
}  // namespace ballast::http
