/// The engine end to end on real RocksDB and real CAF actors, with a small
/// fake admin port: events in, decisions out; decisions journaled; a replay
/// of the journal through a fresh engine decides the same (kills, crashes
/// and recovery: recovery_test.cc).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>

#include <caf/logger.hpp>

#include "actors/engine.h"
#include "tests/engine/engine_harness.h"
#include "tests/support/cluster_events.h"
#include "tests/support/fake_port.h"
#include "tests/support/temp_dir.h"

namespace ballast::actors {
namespace {

using events::Event;
using testing::DecisionLog;
using testing::FakePort;
using testing::TempDir;
using namespace engine_harness;


/// AutoMQ's node-change seed: 3 brokers, 16 partitions RF1, 5 MiB/s in
/// total; broker 3 stops.
std::vector<Event> node_change() {
    std::vector<Event> events = testing::cluster_setup(3, 3, {{"self-balancing-topic", 16, 1}});
    std::vector<int32_t> leaders;
    for (int32_t p = 0; p < 16; p++) leaders.push_back(p % 3 + 1);
    const std::vector<double> rates(16, 5.0 * (1 << 20) / 16);
    for (int64_t t = 1000; t <= 40'000; t += 1000) {
        if (t % 10'000 == 0) {
            for (Event& e : testing::metrics_reports(t, "self-balancing-topic", leaders, rates)) {
                events.push_back(e);
            }
        }
        if (t == 12'000) {
            events.push_back(testing::at(t, events::BrokerFenced{3}, events::Source::kafka_metadata));
        }
        events.push_back(testing::tick(t));
    }
    return events;
}

TEST(Engine, MovesTheDeadBrokersPartitionsAfterTheGrace) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    auto engine = start(dir / "journal", &port, log, test_config());
    feed_all(*engine, node_change());

    // Broker 3 held partitions 2, 5, 8, 11, 14: all five move, to 1 or 2.
    std::set<int32_t> moved;
    for (const events::ActionsPlanned& plan : log.plans()) {
        for (const events::Action& a : plan.actions) {
            if (a.source_broker != 3) continue;
            EXPECT_TRUE(a.destination_broker == 1 || a.destination_broker == 2);
            EXPECT_EQ(a.topic, "self-balancing-topic");
            moved.insert(a.partition);
        }
    }
    EXPECT_EQ(moved, (std::set<int32_t>{2, 5, 8, 11, 14}));
    // The port was asked, once per accepted action.
    std::set<int32_t> submitted;
    for (const auto& s : port.submitted()) {
        if (s.action.source_broker == 3) submitted.insert(s.action.partition);
    }
    EXPECT_EQ(submitted, moved);
    // Not before the grace: the fence came at 12 s, grace is 10 s.
    for (const Event& e : log.events()) {
        if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
            for (const events::Action& a : plan->actions) {
                if (a.source_broker == 3) {
                    EXPECT_GE(e.time_ms, 22'000) << events::to_json(e);
                }
            }
        }
    }
}

/// 16 partitions of 5 MiB/s in total on 3 brokers, nobody dead. Broker 2
/// alone is given 1 MiB/s of network in (limit 0.8 MiB/s at the default
/// threshold 0.8) through `ballast.broker.capacity.overrides`; the others
/// keep the default (0: not judged). It carries ~1.56 MiB/s, so the
/// capacity goal must take load off broker 2 and never put any on it.
TEST(Engine, APerBrokerCapacityOverrideIsWhatTheCapacityGoalJudges) {
    std::vector<Event> events = testing::cluster_setup(3, 3, {{"self-balancing-topic", 16, 1}});
    std::vector<int32_t> leaders;
    for (int32_t p = 0; p < 16; p++) leaders.push_back(p % 3 + 1);
    const std::vector<double> rates(16, 5.0 * (1 << 20) / 16);
    for (int64_t t = 1000; t <= 20'000; t += 1000) {
        if (t % 10'000 == 0) {
            for (Event& e : testing::metrics_reports(t, "self-balancing-topic", leaders, rates)) {
                events.push_back(e);
            }
        }
        events.push_back(testing::tick(t));
    }
    const auto capacity_moves = [&](std::vector<std::string> settings) {
        TempDir dir;
        FakePort port;
        DecisionLog log;
        auto engine = start(dir / "journal", &port, log, test_config(std::move(settings)));
        feed_all(*engine, events);
        std::vector<events::Action> moves;
        for (const events::ActionsPlanned& plan : log.plans()) {
            for (const events::Action& a : plan.actions) {
                EXPECT_NE(a.destination_broker, 2) << "load put on the broker over capacity";
                if (a.goal == "NetworkInCapacityGoal") moves.push_back(a);
            }
        }
        return moves;
    };
    EXPECT_TRUE(capacity_moves({}).empty()) << "no capacity known: nothing to judge";
    const std::vector<events::Action> moves =
        capacity_moves({"ballast.broker.capacity.overrides=2:in=1048576:replicas=100"});
    // ~1.56 MiB/s of ~0.31 MiB/s partitions down to <= 0.8 MiB/s: at least 3 leave.
    EXPECT_GE(moves.size(), 3u);
    for (const events::Action& a : moves) EXPECT_EQ(a.source_broker, 2);
}

TEST(Engine, DecisionsAreJournaledBeforeTheyAreActedOn) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    {
        auto engine = start(dir / "journal", &port, log, test_config());
        feed_all(*engine, node_change());
    }
    ASSERT_FALSE(log.plans().empty());
    store::JournalOptions read_only;
    read_only.read_only = true;
    auto journal = store::Journal::open(dir / "journal", read_only);
    ASSERT_TRUE(journal.ok());
    auto all = (*journal)->read(1, UINT64_MAX);
    ASSERT_TRUE(all.ok());
    std::vector<events::ActionsPlanned> journaled;
    uint64_t submitted = 0;
    for (const Event& e : *all) {
        if (const auto* p = std::get_if<events::ActionsPlanned>(&e.body)) journaled.push_back(*p);
        submitted += std::holds_alternative<events::ActionSubmitted>(e.body) ? 1 : 0;
    }
    EXPECT_EQ(journaled, log.plans());
    EXPECT_EQ(submitted, port.submitted().size());
}

/// Engine::status: each actor's answer (router, brokers, scheduler,
/// executor), with CAF's threads and on the caller's.
TEST(Engine, StatusIsEveryActorsOwnAnswer) {
    for (const size_t threads : {size_t{2}, size_t{0}}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        TempDir dir;
        FakePort port;
        DecisionLog log;
        auto engine = start(dir / "journal", &port, log, test_config(), threads);
        std::vector<Event> events = node_change();
        events.resize(events.size() / 2);  // up to about 20 s
        const int64_t now_ms = events.back().time_ms;
        events.push_back(testing::at(now_ms, events::OperatorCommand{events::CommandKind::pause, {}, {}, {}, "test"},
                                     events::Source::operator_));
        events.push_back(testing::at(now_ms, events::OperatorCommand{events::CommandKind::drain_brokers, {2}, {}, {}, "test"},
                                     events::Source::operator_));
        events.push_back(testing::at(now_ms, events::ConfigChanged{{{"ballast.partition.cooldown.ms", "1234", false}}},
                                     events::Source::operator_));
        feed_all(*engine, events);
        events::Result<EngineStatusPtr> status = engine->status();
        ASSERT_TRUE(status.ok()) << status.error().to_string();
        const EngineStatus& s = **status;
        EXPECT_EQ(s.router.now_ms, now_ms);
        EXPECT_EQ(s.router.last_seq, engine->journal()->last_seq());
        EXPECT_EQ(s.topics, 1u);
        EXPECT_EQ(s.partitions, 16u);
        ASSERT_EQ(s.brokers.size(), 3u);
        for (int32_t i = 0; i < 3; i++) EXPECT_EQ(s.brokers[i].id, i + 1);
        EXPECT_EQ(s.brokers[2].liveness, goals::Liveness::fenced);  // fenced at 12 s
        EXPECT_TRUE(s.scheduler.paused);
        EXPECT_EQ(s.scheduler.draining_brokers, (std::set<int32_t>{2}));
        EXPECT_GE(s.router.last_plan_ms, 1000);  // the first Tick planned
        EXPECT_EQ(s.config.get_int64("ballast.partition.cooldown.ms"), 1234);
        EXPECT_EQ(s.in_flight.size(), port.submitted().size());  // the fake port reports no outcome
    }
}

/// The operator's `rebalance` plans at the next Tick, not a detect interval
/// (10 s here) after the last round; a replay plans it at the same place.
TEST(Engine, ARebalanceCommandPlansAtTheNextTick) {
    TempDir dir;
    DecisionLog log;
    auto engine = start(dir / "journal", nullptr, log, test_config(), 0);
    std::vector<Event> events = testing::cluster_setup(3, 3, {{"orders", 6, 1}});
    for (int64_t t = 1000; t <= 3000; t += 1000) events.push_back(testing::tick(t));
    feed_all(*engine, events);
    EXPECT_EQ((*engine->status())->router.last_plan_ms, 1000);  // the first Tick plans
    feed_all(*engine, {testing::tick(4000)});
    EXPECT_EQ((*engine->status())->router.last_plan_ms, 1000);
    feed_all(*engine, {testing::at(4500, events::OperatorCommand{events::CommandKind::rebalance, {}, {}, {}, "test"},
                                   events::Source::operator_),
                       testing::tick(5000)});
    EXPECT_EQ((*engine->status())->router.last_plan_ms, 5000);
}

/// A thread that asked the engine and lives on (the HTTP API's workers)
/// must not hold its stop: CAF's scoped actors leave a thread-local
/// reference to the system's logger, which the system's destructor waits for.
TEST(Engine, AThreadThatAskedItDoesNotHoldItsStop) {
    TempDir dir;
    DecisionLog log;
    std::promise<void> asked, stopped, release;
    // The engine is started and stopped on one thread, as `ballast run` does.
    std::thread owner([&] {
        std::unique_ptr<Engine> engine = start(dir / "journal", nullptr, log, test_config(), 2);
        Engine* raw = engine.get();
        std::thread asker([&] {
            EXPECT_TRUE(raw->status().ok());
            EXPECT_TRUE(raw->wait_idle().ok());
            EXPECT_TRUE(raw->plan_now().ok());
            asked.set_value();
            release.get_future().wait();  // lives on, as a server's worker does
            // What the engine must do itself: a stop that waited for this
            // thread ends now, and the test reports it rather than hanging.
            caf::logger::set_current_actor_system(nullptr);
        });
        asked.get_future().wait();
        engine.reset();
        stopped.set_value();
        asker.join();
    });
    const bool in_time = stopped.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    release.set_value();
    owner.join();
    EXPECT_TRUE(in_time) << "the engine's stop waited for a thread that had asked it";
}

TEST(Engine, RefusesDecisionsAsInput) {
    TempDir dir;
    DecisionLog log;
    auto engine = start(dir / "journal", nullptr, log, test_config());
    events::Status status = engine->feed({testing::at(0, events::ActionsPlanned{}, events::Source::engine)});
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("decision"), std::string::npos);
}

/// A partition sample past its report's topics (the router would index the
/// topic list with it) is refused with the field and the value named; the
/// batch it came in is not journaled, and the engine goes on.
TEST(Engine, RefusesAnInvalidInputAndGoesOn) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    const std::string journal = dir / "journal";
    uint64_t journaled = 0;
    {
        auto engine = start(journal, &port, log, test_config());
        std::vector<Event> setup = testing::cluster_setup(3, 3, {{"t", 4, 1}});
        feed_all(*engine, setup);
        journaled = engine->journal()->last_seq();

        events::PartitionMetrics bad{1, 1000, {"t"}, {{0, 0, 10.0, 10.0, 1.0, 100}, {5, 1, 10.0, 10.0, 1.0, 100}}};
        events::Status status = engine->feed({testing::tick(1000), testing::at(1000, bad, events::Source::kafka_metrics)});
        ASSERT_FALSE(status.ok());
        EXPECT_EQ(status.error().code, events::ErrorCode::invalid_argument);
        EXPECT_NE(status.error().message.find("event 1 of 2"), std::string::npos) << status.error().message;
        EXPECT_NE(status.error().message.find("samples[1].topic_index is 5, past its 1 topics"), std::string::npos)
            << status.error().message;
        ASSERT_TRUE(engine->wait_idle().ok());
        EXPECT_EQ(engine->journal()->last_seq(), journaled);

        // Still running: the next input is journaled and routed.
        ASSERT_TRUE(engine->feed({testing::tick(2000)}).ok());
        ASSERT_TRUE(engine->wait_idle().ok());
        EXPECT_EQ(engine->journal()->last_seq(), journaled + 1);
    }
    // And the journal opens again, the tick after the refusal in its place.
    auto engine = start(journal, &port, log, test_config());
    ASSERT_NE(engine, nullptr);
    events::Result<Event> next = engine->journal()->read_one(journaled + 1);
    ASSERT_TRUE(next.ok()) << next.error().to_string();
    ASSERT_TRUE(std::holds_alternative<events::Tick>(next->body));
    EXPECT_EQ(std::get<events::Tick>(next->body).now_ms, 2000);
}

/// Feeds ticks until the engine refuses one (an actor's end is seen on its
/// own thread, a moment after it happened); at most a few seconds, so a
/// hang fails the test instead of stalling it.
events::Status feed_until_refused(Engine& engine) {
    for (int64_t t = 100'000; t < 100'000 + 5'000 * 1000; t += 1000) {
        events::Status fed = engine.feed({testing::tick(t)});
        if (!fed.ok()) return fed;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return {};
}

/// Supervision: whichever actor ends, the engine stops with an error that
/// names it and the cause, and every later call says so instead of waiting.
TEST(Engine, AnActorThatEndsStopsTheEngineNamingIt) {
    for (const std::string actor : {"journal", "router", "scheduler", "executor"}) {
        SCOPED_TRACE(actor);
        TempDir dir;
        FakePort port;
        DecisionLog log;
        auto engine = start(dir / "journal", &port, log, test_config());
        feed_all(*engine, testing::cluster_setup(3, 3, {{"t", 4, 1}}));
        engine->inject_actor_failure(actor);
        events::Status refused = feed_until_refused(*engine);
        ASSERT_FALSE(refused.ok());
        EXPECT_NE(refused.error().message.find("the " + actor + " actor stopped"), std::string::npos)
            << refused.error().message;
        EXPECT_NE(refused.error().message.find("unhandled_exception"), std::string::npos) << refused.error().message;
        events::Status idle = engine->wait_idle();
        ASSERT_FALSE(idle.ok());
        EXPECT_NE(idle.error().message.find("the " + actor + " actor stopped"), std::string::npos);
    }
}

/// An exception in a handler (here the admin port throws inside the
/// executor's submit) ends that actor; the engine's error carries the text.
TEST(Engine, AnExceptionInAnActorStopsTheEngineWithItsText) {
    class ThrowingPort : public FakePort {
    public:
        void submit(const events::Action&, uint32_t) override { throw std::runtime_error("the admin port broke"); }
    };
    TempDir dir;
    ThrowingPort port;
    DecisionLog log;
    auto engine = start(dir / "journal", &port, log, test_config());
    events::Status status;
    for (const Event& e : node_change()) {
        status = engine->feed({e});
        if (!status.ok()) break;
    }
    if (status.ok()) status = engine->wait_idle();
    if (status.ok()) status = feed_until_refused(*engine);
    ASSERT_FALSE(status.ok());
    // The router, whose request to the executor failed, may be seen ending
    // first; the cause replaces that consequence as soon as it is seen.
    for (int i = 0; i < 100 && status.error().message.find("executor") == std::string::npos; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        status = engine->wait_idle();
    }
    EXPECT_NE(status.error().message.find("the executor actor stopped"), std::string::npos) << status.error().message;
    EXPECT_NE(status.error().message.find("exception: the admin port broke"), std::string::npos)
        << status.error().message;
}

TEST(Engine, ReplayingTheJournalReproducesEveryDecision) {
    for (uint64_t seed = 1; seed <= 100; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        TempDir dir;
        FakePort port;
        DecisionLog live;
        {
            // A fifth of the seeds with a decision delay.
            const std::vector<std::string> settings =
                seed % 5 == 0 ? std::vector<std::string>{"ballast.planner.decision.delay.ms=2500"}
                              : std::vector<std::string>{};
            auto engine = start(dir / "journal", &port, live, test_config(settings));
            feed_all(*engine, testing::random_stream(seed));
        }
        store::JournalOptions read_only;
        read_only.read_only = true;
        auto journal = store::Journal::open(dir / "journal", read_only);
        ASSERT_TRUE(journal.ok());
        auto all = (*journal)->read(1, UINT64_MAX);
        ASSERT_TRUE(all.ok());

        // Replayed with the actors on this thread (as `ballast sim` and the
        // replay check run them): threads change when, never what.
        DecisionLog replayed;
        EngineOptions options;
        options.threads = 0;
        options.on_decision = replayed.sink();
        auto engine = Engine::start(std::move(options));
        ASSERT_TRUE(engine.ok()) << engine.error().to_string();
        ASSERT_TRUE((*engine)->replay(*all).ok());
        ASSERT_TRUE((*engine)->wait_idle().ok());
        ASSERT_FALSE(live.plans().empty());
        EXPECT_EQ(replayed.plans(), live.plans());
    }
}

}  // namespace
}  // namespace ballast::actors

namespace ballast::actors {
namespace {

/// Flow control pauses routing while the partition shards catch up; it
/// must change when things happen, never what is decided. With a backlog
/// cap of 1 the router waits after nearly every partition message.
TEST(Engine, APartitionBacklogCapChangesNoDecision) {
    for (uint64_t seed = 1; seed <= 10; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const std::vector<Event> events = testing::random_stream(seed);
        uint64_t pauses = 0;
        const auto decide = [&](uint64_t backlog_max) {
            TempDir dir;
            FakePort port;
            DecisionLog log;
            EngineOptions options;
            options.config = test_config();
            options.journal_path = dir / "journal";
            options.port = &port;
            options.on_decision = log.sink();
            options.partition_backlog_max = backlog_max;
            auto engine = Engine::start(std::move(options));
            EXPECT_TRUE(engine.ok()) << engine.error().to_string();
            if (!engine.ok()) return std::vector<events::ActionsPlanned>{};
            feed_all(**engine, events, 50);
            pauses = (*engine)->progress().throttled.load();
            return log.plans();
        };
        const std::vector<events::ActionsPlanned> capped = decide(1);
        ASSERT_FALSE(capped.empty());
        EXPECT_GT(pauses, 0u) << "the cap never paused routing";
        // What was decided, not at which seq: how decisions and fed batches
        // interleave in the journal depends on timing (see decided()).
        EXPECT_EQ(decided(capped), decided(decide(1u << 16)));
    }
}

}  // namespace
}  // namespace ballast::actors

namespace ballast::actors {
namespace {

/// Inputs that queue up faster than the journal commits them are committed
/// in parts (a group commit gathers at most a few thousand events), and
/// idle still means all of them: journaled, routed, and applied by the
/// partition shards to every partition's record.
TEST(Engine, IdleMeansEveryQueuedInputIsJournaledRoutedAndApplied) {
    TempDir dir;
    FakePort port;
    DecisionLog log;
    // No load window: each partition's load is then exactly its newest sample.
    auto engine = start(dir / "journal", &port, log, test_config({"ballast.metrics.window.ms=0"}));
    ASSERT_TRUE(engine);
    const int32_t partitions = 2'000;
    ASSERT_TRUE(engine->feed(testing::cluster_setup(4, 2, {{"orders", partitions, 2}})).ok());
    ASSERT_TRUE(engine->wait_idle().ok());
    const uint64_t before = engine->progress().events_routed.load();
    // 30 inputs of 1,000 samples each, fed without waiting: they are queued
    // at the journal long before it has committed the first.
    const int rounds = 30;
    for (int round = 0; round < rounds; round++) {
        std::vector<Event> batch;
        for (int32_t i = 0; i < 1'000; i++) {
            const int32_t p = (round * 1'000 + i) % partitions;
            events::PartitionMetrics m;
            m.broker_id = 1;
            m.sample_time_ms = round + 1;
            m.topics = {"orders"};
            m.samples.push_back({0, p, 100.0 * (round + 1), 100.0, 1, 1000});
            batch.push_back(testing::at(round + 1, std::move(m), events::Source::kafka_metrics));
        }
        ASSERT_TRUE(engine->feed(std::move(batch)).ok());
    }
    ASSERT_TRUE(engine->wait_idle().ok());
    EXPECT_EQ(engine->progress().events_routed.load() - before, static_cast<uint64_t>(rounds) * 1'000);
    EXPECT_EQ(engine->partition_table().applied(), engine->progress().partition_messages_sent.load());
    // Every partition holds the newest sample it was sent.
    std::vector<int> last_round(partitions, -1);
    for (int round = 0; round < rounds; round++) {
        for (int32_t i = 0; i < 1'000; i++) last_round[(round * 1'000 + i) % partitions] = round;
    }
    const PartitionTable& table = engine->partition_table();
    ASSERT_EQ(table.size(), static_cast<uint32_t>(partitions));
    for (uint32_t slot = 0; slot < table.size(); slot++) {
        const PartitionRecord& r = table.at(slot);
        const int expected = last_round[r.partition];
        EXPECT_EQ(r.bytes_in_per_s, 100.0 * (expected + 1)) << "partition " << r.partition;
        EXPECT_EQ(r.metrics_time_ms, expected + 1) << "partition " << r.partition;
    }
}

}  // namespace
}  // namespace ballast::actors
