/// The engine end to end on real RocksDB and real CAF actors, with a small
/// fake admin port: events in, decisions out; decisions journaled; a kill
/// and recovery from the journal decides exactly as an uninterrupted run;
/// a replay of the journal through a fresh engine decides the same.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>

#include "actors/engine.h"
#include "tests/support/cluster_events.h"
#include "tests/support/fake_port.h"
#include "tests/support/temp_dir.h"

namespace ballast::actors {
namespace {

using events::Event;
using testing::DecisionLog;
using testing::FakePort;
using testing::TempDir;

events::Config test_config(std::vector<std::string> settings = {}) {
    events::Config config = events::Config::defaults();
    for (const char* s : {"ballast.cluster.flavor=automq", "ballast.journal.sync=false",
                                 "autobalancer.controller.anomaly.detect.interval.ms=10000",
                                 "autobalancer.controller.execution.interval.ms=0",
                                 "autobalancer.controller.metrics.delay.ms=120000"}) {
        EXPECT_TRUE(config.apply_override(s).ok()) << s;
    }
    for (const std::string& s : settings) EXPECT_TRUE(config.apply_override(s).ok()) << s;
    return config;
}

std::unique_ptr<Engine> start(const std::string& journal, AdminPort* port, DecisionLog& log,
                              events::Config config, size_t threads = 2,
                              std::function<void(const store::RetentionReport&)> on_retention = {}) {
    EngineOptions options;
    options.threads = threads;
    options.config = std::move(config);
    options.journal_path = journal;
    options.port = port;
    options.on_decision = log.sink();
    options.on_retention = std::move(on_retention);
    events::Result<std::unique_ptr<Engine>> engine = Engine::start(std::move(options));
    EXPECT_TRUE(engine.ok()) << engine.error().to_string();
    return engine.ok() ? std::move(*engine) : nullptr;
}

void feed_all(Engine& engine, const std::vector<Event>& events, size_t batch = 7) {
    for (size_t i = 0; i < events.size(); i += batch) {
        std::vector<Event> part(events.begin() + i,
                                events.begin() + std::min(events.size(), i + batch));
        ASSERT_TRUE(engine.feed(std::move(part)).ok());
    }
    ASSERT_TRUE(engine.wait_idle().ok());
}

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

/// Recovery reports the decisions it makes again; each round once.
std::vector<events::ActionsPlanned> each_round_once(const DecisionLog& log) {
    std::map<uint64_t, events::ActionsPlanned> by_round;
    for (const events::ActionsPlanned& p : log.plans()) by_round.emplace(p.round, p);
    std::vector<events::ActionsPlanned> out;
    for (auto& [round, plan] : by_round) out.push_back(plan);
    return out;
}

/// Runs `events` through an engine, killing it (destroying the actor
/// system) after each of `cuts` and starting it again from the journal.
std::vector<events::ActionsPlanned> run_with_kills(const std::string& journal,
                                                   const std::vector<Event>& events,
                                                   const std::vector<size_t>& cuts,
                                                   events::Config config, size_t threads,
                                                   std::function<void(const store::RetentionReport&)> on_retention = {}) {
    FakePort port;
    DecisionLog log;
    size_t done = 0;
    for (size_t i = 0; i <= cuts.size(); i++) {
        const size_t end = i < cuts.size() ? cuts[i] : events.size();
        auto engine = start(journal, &port, log, config, threads, on_retention);
        if (!engine) return {};
        std::vector<Event> part(events.begin() + done, events.begin() + end);
        feed_all(*engine, part);
        done = end;
    }
    return each_round_once(log);
}

/// Barrier seqs differ between runs (each start journals its config and
/// leadership), so compare what was decided, not where.
std::vector<std::string> decided(const std::vector<events::ActionsPlanned>& plans) {
    std::vector<std::string> out;
    for (events::ActionsPlanned p : plans) {
        p.barrier_seq = 0;
        out.push_back(events::to_json(Event{0, 0, events::Source::engine, p}));
    }
    return out;
}

/// Seeds 1-20 as decided at once; 21-30 with decisions taking effect 2.5 s
/// after their round (Ticks and outcomes flow past the planner meanwhile).
std::vector<std::string> delay_of(uint64_t seed) {
    if (seed <= 20) return {};
    return {"ballast.planner.decision.delay.ms=2500"};
}

/// The seed's delay, and a small snapshot interval: recovery starts from a
/// snapshot and replays a tail.
events::Config recovery_config(uint64_t seed) {
    std::vector<std::string> settings = delay_of(seed);
    settings.push_back("ballast.snapshot.interval.events=25");
    return test_config(settings);
}

TEST(Engine, AKilledAndRecoveredEngineDecidesAsAnUninterruptedOne) {
    for (uint64_t seed = 1; seed <= 30; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const std::vector<Event> events = testing::random_stream(seed);
        const events::Config config = recovery_config(seed);
        TempDir a, b;
        // The uninterrupted run's actors on the test's thread, the killed
        // one's on CAF's workers: the same decisions either way.
        const auto uninterrupted = run_with_kills(a / "journal", events, {}, config, 0);
        const auto killed = run_with_kills(b / "journal", events,
                                           {events.size() / 3, 2 * events.size() / 3}, config, 2);
        ASSERT_FALSE(uninterrupted.empty());
        EXPECT_EQ(decided(killed), decided(uninterrupted));
    }
}

/// A long run (20 simulated minutes, ~2,500 events, a snapshot every 100)
/// under a small `ballast.journal.retention.bytes` (24 KiB: one to two
/// snapshot intervals as RocksDB stores them), killed and restarted twice:
/// the snapshots' retention cuts by size and the journal stays bounded (it
/// starts at a snapshot and keeps one or two intervals, where the same run
/// without the bound keeps everything), and the restarts recover from what
/// retention left to the decisions of an uninterrupted run that deleted
/// nothing. Seeds 1 and 3 run on the test's thread (every snapshot is taken
/// where the interval says); seed 2 on CAF's workers, where retention runs
/// beside the appends and a fast feeder outruns the snapshots, so it is
/// held to the decisions and the journal's shape, not to a count.
TEST(Engine, ASizeBoundKeepsTheJournalSmallAndRestartsDecideTheSame) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const bool own_threads = seed == 2;
        const std::vector<Event> events = testing::random_stream(seed, 20 * 60'000);
        std::vector<std::string> settings = delay_of(seed);
        settings.push_back("ballast.snapshot.interval.events=100");
        std::vector<std::string> unbounded = settings;
        unbounded.push_back("ballast.journal.retention.bytes=0");
        settings.push_back("ballast.journal.retention.bytes=24576");
        TempDir a, b;
        const auto uninterrupted = run_with_kills(a / "journal", events, {}, test_config(unbounded), 0);
        std::atomic<int> cuts{0};
        std::atomic<int> cuts_by_bytes{0};
        const auto killed = run_with_kills(
            b / "journal", events, {events.size() / 3, 2 * events.size() / 3}, test_config(settings),
            own_threads ? 2 : 0, [&](const store::RetentionReport& r) {
                cuts++;
                cuts_by_bytes += r.cut_by == store::RetentionBound::bytes ? 1 : 0;
            });
        ASSERT_FALSE(uninterrupted.empty());
        EXPECT_EQ(decided(killed), decided(uninterrupted));

        store::JournalOptions read_only;
        read_only.read_only = true;
        auto whole = store::Journal::open(a / "journal", read_only);
        auto bounded = store::Journal::open(b / "journal", read_only);
        ASSERT_TRUE(whole.ok() && bounded.ok());
        EXPECT_EQ((*whole)->first_seq(), 1u) << "a cut by size with the size bound off";
        events::Result<std::vector<uint64_t>> snapshots = (*bounded)->snapshot_seqs();
        ASSERT_TRUE(snapshots.ok()) << snapshots.error().to_string();
        ASSERT_FALSE(snapshots->empty());
        EXPECT_EQ(snapshots->front(), (*bounded)->first_seq()) << "the journal does not start at a snapshot";
        EXPECT_GT((*bounded)->first_seq(), 1u);
        EXPECT_GT(cuts.load(), 0);
        EXPECT_EQ(cuts_by_bytes.load(), cuts.load());
        if (!own_threads) {
            // Two intervals are over the bound: at least every second
            // snapshot cuts, and what stays is at most about two intervals.
            events::Result<std::vector<uint64_t>> taken = (*whole)->snapshot_seqs();
            ASSERT_TRUE(taken.ok()) << taken.error().to_string();
            EXPECT_GE(static_cast<size_t>(cuts.load()), taken->size() / 2);
            EXPECT_LE(snapshots->size(), 3u);
            EXPECT_LE((*bounded)->event_count(), 3 * 100u);
        }
    }
}

/// Every event in the journal at `path` (none if there is no journal yet).
std::vector<Event> journaled(const std::string& path) {
    store::JournalOptions read_only;
    read_only.read_only = true;
    read_only.create_if_missing = false;
    auto journal = store::Journal::open(path, read_only);
    if (!journal.ok()) return {};
    auto all = (*journal)->read((*journal)->first_seq(), (*journal)->last_seq());
    EXPECT_TRUE(all.ok()) << all.error().to_string();
    return all.ok() ? std::move(*all) : std::vector<Event>{};
}

/// Inputs in the journal, the engine's own start events included.
uint64_t journaled_inputs(const std::string& path) {
    uint64_t inputs = 0;
    for (const Event& e : journaled(path)) inputs += events::is_decision(e.source) ? 0 : 1;
    return inputs;
}

/// The stream's events in the journal: not the engine's start events (its
/// configuration and leadership, the operator's), but the stream's own
/// operator commands (pause, resume): counting those out would have the
/// feeder feed the events after them twice, and a load window counts a
/// sample fed twice twice.
uint64_t journaled_stream_events(const std::string& path) {
    uint64_t inputs = 0;
    for (const Event& e : journaled(path)) {
        const bool start_event = e.source == events::Source::operator_ &&
                                 (e.type() == events::EventType::config_changed ||
                                  e.type() == events::EventType::leadership_acquired);
        inputs += !events::is_decision(e.source) && !start_event ? 1 : 0;
    }
    return inputs;
}

/// Crashes at arbitrary points: with its actors on the test's thread, the
/// engine is crashed after a seeded number of actor messages (three times
/// per seed: mid-append, mid-round, mid-snapshot, between an intent and its
/// admin call, wherever the count lands), abandoned without running one more
/// message, and started again on its journal. The feeder then feeds every
/// input the journal does not hold, as an adapter reports the cluster again
/// after a restart. Nothing ran after a crash (the journal holds exactly the
/// inputs appended before it), and the decisions are those of an
/// uninterrupted run.
TEST(Engine, AnEngineCrashedAtAnyActorMessageRecoversAndDecidesAsAnUninterruptedOne) {
    int crashes = 0, mid_append = 0, mid_round = 0, mid_snapshot = 0, mid_intent = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const std::vector<Event> events = testing::random_stream(seed);
        const events::Config config = recovery_config(seed);
        TempDir a, b;
        const auto uninterrupted = run_with_kills(a / "journal", events, {}, config, 0);
        ASSERT_FALSE(uninterrupted.empty());

        // How many messages the whole run takes, to draw the crash points from.
        uint64_t messages_total = 0;
        {
            FakePort port;
            DecisionLog log;
            TempDir c;
            auto engine = start(c / "journal", &port, log, config, 0);
            engine->crash_after_messages(UINT64_MAX);
            feed_all(*engine, events);
            messages_total = engine->messages_run();
        }
        std::mt19937_64 random(seed);
        std::uniform_int_distribution<uint64_t> budget(1, std::max<uint64_t>(2, messages_total / 2));

        FakePort port;
        DecisionLog log;
        const std::string path = b / "journal";
        size_t next = 0;  // the first stream event the journal does not hold
        for (int crash = 0; crash <= 3; crash++) {
            const uint64_t inputs_before = journaled_inputs(path);
            auto engine = start(path, &port, log, config, 0);
            ASSERT_NE(engine, nullptr);
            if (crash < 3) engine->crash_after_messages(budget(random));
            for (size_t i = next; i < events.size() && !engine->crashed(); i += 7) {
                std::vector<Event> part(events.begin() + i, events.begin() + std::min(events.size(), i + 7));
                const events::Status fed = engine->feed(std::move(part));
                ASSERT_TRUE(fed.ok() || engine->crashed()) << fed.error().to_string();
            }
            if (!engine->crashed()) {
                const events::Status idle = engine->wait_idle();
                ASSERT_TRUE(idle.ok() || engine->crashed()) << idle.error().to_string();
            }
            if (!engine->crashed()) break;  // the stream ended before the crash point
            const uint64_t fed = engine->inputs_fed();
            const CrashPoint point = engine->abandon();
            engine.reset();
            crashes++;
            mid_append += point.mid_append;
            mid_round += point.mid_round;
            mid_snapshot += point.mid_snapshot;
            mid_intent += point.between_intent_and_submit;
            EXPECT_EQ(journaled_inputs(path), inputs_before + fed - static_cast<uint64_t>(point.inputs_unjournaled))
                << "the journal holds more or less than what was appended before the crash";
            next = journaled_stream_events(path);
        }
        EXPECT_EQ(decided(each_round_once(log)), decided(uninterrupted));
    }
    EXPECT_GE(crashes, 30);
    EXPECT_GT(mid_append, 0);
    EXPECT_GT(mid_round, 0);
    std::printf("%d crashes: %d mid-append, %d mid-round, %d mid-snapshot, %d between intent and submit\n", crashes,
                mid_append, mid_round, mid_snapshot, mid_intent);
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
