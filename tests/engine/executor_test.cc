/// The executor through the whole engine: submissions, timeouts, retries of
/// retriable failures with backoff, operator cancel, each attempt's intent
/// journaled before its admin call, and adopting what was in flight after a
/// restart (nothing runs twice, nothing stale is resubmitted).

#include <gtest/gtest.h>

#include "actors/engine.h"
#include "store/journal.h"
#include "tests/engine/engine_harness.h"
#include "tests/support/cluster_events.h"
#include "tests/support/fake_port.h"
#include "tests/support/temp_dir.h"

namespace ballast::actors {
namespace {

using events::Event;
using testing::at;
using testing::DecisionLog;
using testing::FakePort;
using testing::TempDir;
using testing::tick;

events::Config config_with(std::vector<std::string> extra = {}) {
    events::Config config = events::Config::defaults();
    std::vector<std::string> settings = {
        "ballast.cluster.flavor=automq", "ballast.journal.sync=false",
        "autobalancer.controller.execution.interval.ms=0",
        "autobalancer.controller.metrics.delay.ms=3600000", "ballast.action.timeout.ms=30000",
        "ballast.action.retry.backoff.ms=2000", "ballast.action.retries.max=2"};
    settings.insert(settings.end(), extra.begin(), extra.end());
    for (const std::string& s : settings) EXPECT_TRUE(config.apply_override(s).ok()) << s;
    return config;
}

std::unique_ptr<Engine> start(const std::string& journal, AdminPort* port, DecisionLog& log,
                              events::Config config = config_with(), size_t threads = 2) {
    return engine_harness::start(journal, port, log, std::move(config), threads);
}

void feed(Engine& engine, std::vector<Event> events) {
    ASSERT_TRUE(engine.feed(std::move(events)).ok());
    ASSERT_TRUE(engine.wait_idle().ok());
}

/// Three brokers, 6 RF1 partitions, broker 3 fenced at 1 s and dead after
/// the grace (10 s): its two partitions are moved off at 11 s.
std::vector<Event> dead_broker() {
    std::vector<Event> events = testing::cluster_setup(3, 3, {{"t", 6, 1}});
    events.push_back(at(0, events::BrokerMetrics{0, {{1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}, {3, 0, 0, 0, 0}}}));
    events.push_back(tick(0));
    events.push_back(at(1000, events::BrokerFenced{3}, events::Source::kafka_metadata));
    for (int64_t t = 1000; t <= 11'000; t += 1000) events.push_back(tick(t));
    return events;
}

template <class T>
std::vector<T> decisions_of(const DecisionLog& log) {
    std::vector<T> out;
    for (const Event& e : log.events()) {
        if (const auto* x = std::get_if<T>(&e.body)) out.push_back(*x);
    }
    return out;
}

TEST(Executor, SubmitsEachAcceptedActionOnce) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log);
    feed(*engine, dead_broker());
    const auto plans = log.plans();
    ASSERT_FALSE(plans.empty());
    ASSERT_EQ(plans.back().actions.size(), 2u);
    ASSERT_EQ(port.submitted().size(), 2u);
    for (const auto& s : port.submitted()) EXPECT_EQ(s.attempt, 1u);
    EXPECT_EQ(decisions_of<events::ActionSubmitted>(log).size(), 2u);
}

// With ballast.planner.decision.delay.ms the round at 11 s plans at once
// but hands its actions over at the first Tick 3 s later: Ticks before it
// flow past the round, and the executor submits nothing early.
TEST(Executor, ADecisionDelayHandsTheActionsOverAtTheFirstTickPastIt) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log, config_with({"ballast.planner.decision.delay.ms=3000"}));
    feed(*engine, dead_broker());
    ASSERT_FALSE(log.plans().empty());
    ASSERT_EQ(log.plans().back().actions.size(), 2u) << "planned at 11 s";
    EXPECT_TRUE(port.submitted().empty());
    feed(*engine, {tick(12'000), tick(13'999)});
    EXPECT_TRUE(port.submitted().empty()) << "handed over before its Tick";
    feed(*engine, {tick(14'000)});
    ASSERT_EQ(port.submitted().size(), 2u);
    const auto submitted = decisions_of<events::ActionSubmitted>(log);
    ASSERT_EQ(submitted.size(), 2u);
    // Submitted when they were handed over: after the Ticks that passed, before
    // the one that took the decision (the executor's clock is at 13,999).
    for (const Event& e : log.events()) {
        if (std::holds_alternative<events::ActionSubmitted>(e.body)) {
            EXPECT_EQ(e.time_ms, 13'999);
        }
    }
}

// An operator command cannot pass a decision: it takes it first.
TEST(Executor, AnOperatorCommandTakesADelayedDecisionFirst) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log, config_with({"ballast.planner.decision.delay.ms=3000"}));
    feed(*engine, dead_broker());
    ASSERT_EQ(log.plans().back().actions.size(), 2u) << "planned at 11 s";
    EXPECT_TRUE(port.submitted().empty());
    feed(*engine, {testing::at(12'000, events::OperatorCommand{events::CommandKind::pause, {}, {}, {}, "test"},
                               events::Source::operator_)});
    EXPECT_EQ(port.submitted().size(), 2u) << "the decision was not handed over before the pause";
}

TEST(Executor, TimesOutAndCancelsWhatRunsTooLong) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log);
    feed(*engine, dead_broker());
    ASSERT_EQ(port.submitted().size(), 2u);
    // 30 s timeout from 11 s: nothing at 40 s, both at 41 s.
    feed(*engine, {tick(40'000)});
    EXPECT_TRUE(decisions_of<events::ActionTimedOut>(log).empty());
    feed(*engine, {tick(41'000)});
    const auto timed_out = decisions_of<events::ActionTimedOut>(log);
    ASSERT_EQ(timed_out.size(), 2u);
    EXPECT_EQ(timed_out[0].timeout_ms, 30'000);
    EXPECT_EQ(port.cancelled().size(), 2u);
}

TEST(Executor, RetriesRetriableFailuresWithBackoffThenGivesUp) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log);
    feed(*engine, dead_broker());
    const uint64_t id = log.plans().back().actions.front().action_id;
    auto failed = [&](uint32_t attempt, int64_t t) {
        return at(t, events::ActionFailed{id, 60, "REASSIGNMENT_IN_PROGRESS", "busy", true, attempt},
                  events::Source::kafka_admin);
    };
    auto attempts = [&] {
        uint32_t n = 0;
        for (const auto& s : port.submitted()) n += s.action.action_id == id ? 1 : 0;
        return n;
    };
    // Engine time is the last Tick (11 s). Backoff 2 s: retry at 13 s.
    feed(*engine, {failed(1, 11'000), tick(12'000)});
    EXPECT_EQ(attempts(), 1u);
    feed(*engine, {tick(13'000)});
    EXPECT_EQ(attempts(), 2u);
    // Second failure at 13 s: the backoff doubles to 4 s, retry at 17 s.
    feed(*engine, {failed(2, 13'000), tick(16'000)});
    EXPECT_EQ(attempts(), 2u);
    feed(*engine, {tick(17'000)});
    EXPECT_EQ(attempts(), 3u);
    // Third failure: retries.max = 2 is used up; the action is dropped.
    feed(*engine, {failed(3, 20'000), tick(60'000)});
    EXPECT_EQ(attempts(), 3u);
    for (const auto& t : decisions_of<events::ActionTimedOut>(log)) EXPECT_NE(t.action_id, id);
}

TEST(Executor, ANonRetriableFailureIsFinal) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log);
    feed(*engine, dead_broker());
    const uint64_t id = log.plans().back().actions.front().action_id;
    feed(*engine, {at(12'000, events::ActionFailed{id, 39, "INVALID_REPLICA_ASSIGNMENT", "no", false, 1},
                      events::Source::kafka_admin),
                   tick(20'000), tick(60'000)});
    uint32_t attempts = 0;
    for (const auto& s : port.submitted()) attempts += s.action.action_id == id ? 1 : 0;
    EXPECT_EQ(attempts, 1u);
    for (const auto& t : decisions_of<events::ActionTimedOut>(log)) EXPECT_NE(t.action_id, id);
}

TEST(Executor, AnOperatorCancelsAnAction) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log);
    feed(*engine, dead_broker());
    const uint64_t id = log.plans().back().actions.front().action_id;
    feed(*engine, {at(12'000, events::OperatorCommand{events::CommandKind::cancel_actions, {}, {}, {id},
                                                      "wrong destination"},
                      events::Source::operator_)});
    const auto cancelled = decisions_of<events::ActionCancelled>(log);
    ASSERT_EQ(cancelled.size(), 1u);
    EXPECT_EQ(cancelled[0].action_id, id);
    EXPECT_EQ(cancelled[0].reason, "wrong destination");
    ASSERT_EQ(port.cancelled().size(), 1u);
    EXPECT_EQ(port.cancelled()[0].action_id, id);
}

/// A port that, at each admin call, opens the journal the way a recovery
/// would and looks for the call's intent: an ActionSubmitted of that action
/// and attempt. The order itself is what is checked, at the moment of the call.
class IntentCheckingPort : public FakePort {
public:
    explicit IntentCheckingPort(std::string journal) : _journal(std::move(journal)) {}
    void submit(const events::Action& action, uint32_t attempt) override {
        store::JournalOptions read_only;
        read_only.read_only = true;
        auto journal = store::Journal::open(_journal, read_only);
        bool journaled = false;
        if (journal.ok()) {
            auto all = (*journal)->read((*journal)->first_seq(), (*journal)->last_seq());
            for (const Event& e : all.ok() ? *all : std::vector<Event>{}) {
                journaled |= e.body == events::Body{events::ActionSubmitted{action.action_id, attempt}};
            }
        }
        std::lock_guard<std::mutex> lock(_mutex);
        (journaled ? _in_journal : _not_in_journal)++;
        FakePort::submit(action, attempt);
    }
    int in_journal() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _in_journal;
    }
    int not_in_journal() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _not_in_journal;
    }

private:
    std::string _journal;
    mutable std::mutex _mutex;
    int _in_journal = 0;
    int _not_in_journal = 0;
};

// The intent of each attempt (action and attempt number) is in the journal,
// synced, before the admin call: a crash between the two leaves an intent
// that recovery follows up, never a reassignment the journal does not know.
TEST(Executor, TheIntentIsJournaledBeforeTheAdminCall) {
    TempDir dir;
    IntentCheckingPort port(dir / "j");
    DecisionLog log;
    auto engine = start(dir / "j", &port, log, config_with({"ballast.journal.sync=true"}));
    feed(*engine, dead_broker());
    ASSERT_EQ(port.submitted().size(), 2u);
    // Retries too: each attempt's intent before its call.
    const uint64_t id = port.submitted()[0].action.action_id;
    feed(*engine, {at(11'500, events::ActionFailed{id, 13, "NETWORK_EXCEPTION", "injected", true, 1},
                      events::Source::kafka_admin),
                   tick(14'000)});
    ASSERT_EQ(port.submitted().size(), 3u);
    EXPECT_EQ(port.submitted()[2].attempt, 2u);
    EXPECT_EQ(port.in_journal(), 3);
    EXPECT_EQ(port.not_in_journal(), 0);
}

// An action cancelled while its intent is on its way to the journal is
// never handed to the port. The actors run on the test's thread, one message
// at a time in the order sent, so the cancel reaches the executor before the
// journal's answer does.
TEST(Executor, AnActionCancelledBeforeItsIntentIsJournaledIsNotSubmitted) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log, config_with({"ballast.planner.decision.delay.ms=3000"}), 0);
    feed(*engine, dead_broker());
    const auto actions = log.plans().back().actions;
    ASSERT_EQ(actions.size(), 2u);
    // The decision is handed over and the cancel arrives in one feed: the
    // executor applies both before the journal answers its intents.
    feed(*engine, {tick(14'000), at(14'000,
                                    events::OperatorCommand{events::CommandKind::cancel_actions,
                                                            {},
                                                            {},
                                                            {actions[0].action_id},
                                                            "test"},
                                    events::Source::operator_)});
    ASSERT_EQ(port.submitted().size(), 1u);
    EXPECT_EQ(port.submitted()[0].action.action_id, actions[1].action_id);
    EXPECT_EQ(decisions_of<events::ActionSubmitted>(log).size(), 2u) << "both intents were made";
}

// After a restart every action in flight is adopted, none submitted again:
// the port finds out whether it runs, finished, or never started. One that
// never started is decided again from the partition's current replicas,
// without a hold.
TEST(Executor, AfterARestartActionsInFlightAreAdoptedAndOneNeverStartedIsDecidedAgain) {
    TempDir dir;
    DecisionLog log;
    std::vector<events::Action> actions;
    {
        FakePort port;
        auto engine = start(dir / "j", &port, log);
        feed(*engine, dead_broker());
        actions = log.plans().back().actions;
        ASSERT_EQ(actions.size(), 2u);
    }
    FakePort port;
    DecisionLog after;
    auto engine = start(dir / "j", &port, after);
    ASSERT_TRUE(engine->wait_idle().ok());
    EXPECT_TRUE(port.submitted().empty());
    const auto adopted = port.adopted();
    ASSERT_EQ(adopted.size(), 2u);
    for (size_t i = 0; i < 2; i++) {
        EXPECT_EQ(adopted[i].action.action_id, actions[i].action_id);
        // The same attempt, resumed: what the executor tracks stays what the
        // journal's inputs make it, so a later recovery decides the same.
        EXPECT_EQ(adopted[i].attempt, 1u);
    }
    // Recovery decided nothing new: the same round, not a second one.
    for (const auto& p : after.plans()) EXPECT_LE(p.round, log.plans().back().round);

    // The port reports the first done (its new replicas first, as metadata
    // shows them) and the second never started.
    const events::Action& done = actions[0];
    feed(*engine, {at(11'500,
                      events::PartitionChanged{done.topic, done.partition, done.replicas_after,
                                               done.replicas_after[0], done.replicas_after, 1},
                      events::Source::kafka_metadata),
                   at(11'500, events::ActionCompleted{done.action_id}, events::Source::kafka_admin),
                   at(11'500,
                      events::ActionFailed{actions[1].action_id, not_started_code, not_started_name,
                                           "never submitted", false, 1},
                      events::Source::kafka_admin)});
    feed(*engine, {tick(12'000), tick(13'000)});
    std::vector<events::Action> again;
    for (const auto& p : after.plans()) {
        if (p.round <= log.plans().back().round) continue;  // recovered, not decided now
        for (const events::Action& a : p.actions) {
            if (a.topic == actions[1].topic && a.partition == actions[1].partition) again.push_back(a);
        }
    }
    ASSERT_EQ(again.size(), 1u) << "decided again in the next round, not held";
    EXPECT_GT(again[0].action_id, actions[1].action_id);
    EXPECT_EQ(again[0].replicas_before, actions[1].replicas_before) << "from the replicas it has now";
    ASSERT_EQ(port.submitted().size(), 1u);
    EXPECT_EQ(port.submitted()[0].action.action_id, again[0].action_id);
}

}  // namespace
}  // namespace ballast::actors

namespace ballast::actors {
namespace {

/// Moves that never finish (the fake port completes nothing) time out; each
/// time out holds its partition for max(cooldown, timeout) x 2^(failures-1)
/// before the planner may try it again, instead of every cooldown.
TEST(Executor, APartitionWhoseMovesTimeOutBacksOffExponentially) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log,
                        config_with({"ballast.partition.cooldown.ms=10000", "ballast.partition.return.block.ms=0",
                                     "autobalancer.controller.anomaly.detect.interval.ms=1000",
                                     "ballast.action.retries.max=0"}));
    // Broker 1 carries both hot partitions, broker 2 nothing: one must move.
    std::vector<Event> events = testing::cluster_setup(2, 1, {});
    events.push_back(at(0, events::TopicCreated{"t", {}, 2, 1}));
    for (int32_t p = 0; p < 2; p++) events.push_back(at(0, events::PartitionChanged{"t", p, {1}, 1, {1}, 0}));
    const double rate = 12.0 * (1 << 20);
    for (int64_t t = 0; t <= 400'000; t += 1000) {
        if (t % 10'000 == 0) {
            events::PartitionMetrics m{1, t, {"t"}, {{0, 0, rate, rate, 1, 1}, {0, 1, rate, rate, 1, 1}}};
            events.push_back(at(t, m, events::Source::kafka_metrics));
            events.push_back(at(t, events::BrokerMetrics{t, {{1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}}}, events::Source::kafka_metrics));
        }
        events.push_back(tick(t));
    }
    for (size_t i = 0; i < events.size(); i += 50) {
        std::vector<Event> part(events.begin() + static_cast<std::ptrdiff_t>(i),
                                events.begin() + static_cast<std::ptrdiff_t>(std::min(events.size(), i + 50)));
        feed(*engine, std::move(part));
    }
    // Per partition: when each of its actions was planned and when it timed out.
    std::map<uint64_t, int32_t> partition_of;
    std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> tries;  // planned, timed out
    std::map<uint64_t, int64_t> planned_at;
    for (const Event& e : log.events()) {
        if (const auto* p = std::get_if<events::ActionsPlanned>(&e.body)) {
            for (const events::Action& a : p->actions) {
                partition_of[a.action_id] = a.partition;
                planned_at[a.action_id] = e.time_ms;
            }
        } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
            tries[partition_of.at(t->action_id)].push_back({planned_at.at(t->action_id), e.time_ms});
        }
    }
    size_t retried_twice = 0;
    for (const auto& [partition, list] : tries) {
        for (size_t i = 1; i < list.size(); i++) {
            const int64_t hold_ms = 30'000 << (i - 1);  // after the i-th failure: the timeout beats the cooldown
            EXPECT_GE(list[i].first - list[i - 1].second, hold_ms)
                << "partition " << partition << ", try " << i + 1 << " came too early";
        }
        retried_twice += list.size() >= 3;
    }
    EXPECT_GT(retried_twice, 0u) << "no partition failed often enough to show the doubling";
}

}  // namespace
}  // namespace ballast::actors

namespace ballast::actors {
namespace {

/// Rounds plan as if the actions in flight had completed: while two moves
/// from broker 1 to broker 2 are still running, the next rounds see the
/// load already balanced and move nothing more (without the projection they
/// would see broker 2 empty and send it the other two partitions as well).
TEST(Executor, RoundsPlanAsIfActionsInFlightHadCompleted) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "j", &port, log,
                        config_with({"autobalancer.controller.anomaly.detect.interval.ms=5000",
                                     "ballast.action.timeout.ms=600000"}));
    std::vector<Event> events = testing::cluster_setup(2, 1, {});
    events.push_back(at(0, events::TopicCreated{"t", {}, 4, 1}));
    for (int32_t p = 0; p < 4; p++) events.push_back(at(0, events::PartitionChanged{"t", p, {1}, 1, {1}, 0}));
    const double rate = 4.0 * (1 << 20);
    for (int64_t t = 0; t <= 120'000; t += 1000) {
        if (t % 10'000 == 0) {
            events::PartitionMetrics m{1, t, {"t"}, {}};
            for (int32_t p = 0; p < 4; p++) m.samples.push_back({0, p, rate, rate, 1, 1});
            events.push_back(at(t, m, events::Source::kafka_metrics));
            events.push_back(at(t, events::BrokerMetrics{t, {{1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}}}, events::Source::kafka_metrics));
        }
        events.push_back(tick(t));
    }
    feed(*engine, events);
    std::set<int32_t> moved;
    for (const events::ActionsPlanned& plan : log.plans()) {
        for (const events::Action& a : plan.actions) moved.insert(a.partition);
    }
    EXPECT_EQ(moved.size(), 2u) << "two moves balance 16/0 MiB/s; the rest would overshoot to 0/16";
    EXPECT_EQ(port.submitted().size(), 2u);
}

}  // namespace
}  // namespace ballast::actors
