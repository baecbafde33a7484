/// Recovery: an engine killed, or crashed at an arbitrary actor message with
/// unsynced writes lost, and started again on its journal decides exactly
/// as an uninterrupted run, also under a journal size bound.

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>

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

}  // namespace
}  // namespace ballast::actors
