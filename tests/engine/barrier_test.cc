/// The barrier protocol under CAF's deterministic test coordinator: we pick
/// which actor runs next, so the orders the live scheduler only makes
/// unlikely are forced here. The real router, executor, broker actors and
/// partition shards; a small fake scheduler that records what the barrier
/// hands it.

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "actors/broker_actor.h"
#include "actors/executor_actor.h"
#include "actors/journal_actor.h"
#include "actors/partition_shard.h"
#include "actors/router_actor.h"

namespace ballast::actors {
namespace {

/// What the fake scheduler saw of the table when it was asked to plan.
struct Seen {
    PlanInputPtr input;
    std::vector<PartitionRecord> slots;  // every slot of the input, read as of its epoch
};

/// Records each PlanInput and the table as the round reads it; plans nothing.
caf::behavior fake_scheduler(caf::event_based_actor*, const PartitionTable* table,
                             std::vector<PlanInputPtr>* inputs, std::vector<Seen>* seen) {
    return {
        [=](plan_atom, const PlanInputPtr& input) -> DecisionPtr {
            inputs->push_back(input);
            Seen s{input, {}};
            for (uint32_t slot = 0; slot < input->slot_count; slot++) s.slots.push_back(table->read(slot, input->epoch));
            seen->push_back(std::move(s));
            return std::make_shared<Decision>();
        },
        [=](control_atom, const EventPtr&) {},
        // A snapshot barrier: the records as of its epoch, as the real one does.
        [=](snapshot_atom, const SnapshotDraftPtr& draft, uint32_t epoch, uint32_t slot_count) {
            for (uint32_t slot = 0; slot < slot_count; slot++) draft->partitions.push_back(table->read(slot, epoch));
            table->mark_read(epoch);
            return SnapshotPtr(draft);
        },
    };
}

/// Takes snapshots and writes nothing.
caf::behavior fake_journal(caf::event_based_actor*, std::vector<uint64_t>* snapshots) {
    return {
        [=](snapshot_atom, const SnapshotPtr& snapshot, int64_t, const store::RetentionPolicy&) {
            snapshots->push_back(snapshot->seq);
            return true;
        },
    };
}

class BarrierTest : public ::testing::Test {
protected:
    BarrierTest() {
        _config.set("scheduler.policy", caf::atom("testing"));
        _system = std::make_unique<caf::actor_system>(_config);
        _sched = &dynamic_cast<caf::scheduler::test_coordinator&>(_system->scheduler());
        scheduler = _system->spawn(fake_scheduler, &table, &inputs, &seen);
        executor = _system->spawn(executor_actor, nullptr, caf::actor(), ExecutorView{},
                                  ExecutorSettings{}, UINT64_MAX,
                                  [](const events::Event&) {}, &in_flight);
        spawn_router(barrier_config(), false);
    }

    /// The defaults without a load window: a slot's load is then its newest
    /// sample, which is what these tests follow through the barrier.
    static events::Config barrier_config() {
        events::Config config = events::Config::defaults();
        EXPECT_TRUE(config.apply_override("ballast.metrics.window.ms=0").ok());
        return config;
    }

    ~BarrierTest() override {
        for (auto* a : {&router, &scheduler, &executor, &journal}) {
            if (*a) caf::anon_send_exit(*a, caf::exit_reason::user_shutdown);
        }
        _sched->run();
    }

    /// A router with `settings` ("key=value") on the defaults, before anything is routed.
    void respawn_router(const std::vector<std::string>& settings, bool snapshots) {
        ASSERT_EQ(progress.events_routed.load(), 0u);
        caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
        _sched->run();
        events::Config config = barrier_config();
        for (const std::string& s : settings) ASSERT_TRUE(config.apply_override(s).ok()) << s;
        spawn_router(config, snapshots);
    }

    void spawn_router(events::Config config, bool snapshots) {
        RouterSetup setup;
        setup.table = &table;
        setup.scheduler = scheduler;
        setup.executor = executor;
        setup.progress = &progress;
        setup.in_flight = &in_flight;
        setup.config = std::move(config);
        setup.snapshots = snapshots;
        router = _system->spawn(router_actor, setup);
        if (snapshots) {
            journal = _system->spawn(fake_journal, &snapshots_written);
            caf::anon_send(router, control_atom::value, journal);
        }
        _sched->run();
    }

    void route(std::vector<events::Event> events) {
        caf::anon_send(router, route_atom::value,
                       BatchPtr(std::make_shared<const EventBatch>(std::move(events))));
    }

    /// Runs every job but those of `held`'s actors.
    void run_all_but(const std::vector<caf::actor>& held) {
        _sched->run_jobs_filtered([&](caf::resumable* job) {
            for (const caf::actor& a : held) {
                if (job == dynamic_cast<caf::resumable*>(caf::actor_cast<caf::abstract_actor*>(a))) {
                    return false;
                }
            }
            return true;
        });
    }

    /// Runs `actor` until its mailbox is empty, nothing else.
    void run_only(const caf::actor& actor) {
        auto* job = dynamic_cast<caf::resumable*>(caf::actor_cast<caf::abstract_actor*>(actor));
        _sched->run_jobs_filtered([&](caf::resumable* j) { return j == job; });
    }

    /// The partition shard with updates waiting: the router spawned it, and
    /// only a shard with mail is among the waiting jobs. The tests that use
    /// it route one partition, so that is the shard of its slot.
    caf::actor waiting_partition_shard() {
        for (caf::resumable* job : _sched->jobs) {
            auto* actor = dynamic_cast<caf::local_actor*>(job);
            if (actor && actor->name() == std::string("partition_shard")) {
                return caf::actor_cast<caf::actor>(actor);
            }
        }
        return caf::actor();
    }

    events::Event event(uint64_t seq, events::Body body) {
        return events::Event{seq, static_cast<int64_t>(seq) * 1000, events::Source::simulator,
                             std::move(body)};
    }

    events::PartitionMetrics sample(double bytes_in_per_s, int64_t time_ms) {
        events::PartitionMetrics m;
        m.broker_id = 1;
        m.sample_time_ms = time_ms;
        m.topics = {"orders"};
        m.samples.push_back({0, 0, bytes_in_per_s, bytes_in_per_s, 1, 100});
        return m;
    }

    PartitionTable table;
    RouterProgress progress;
    InFlight in_flight;
    std::vector<PlanInputPtr> inputs;
    std::vector<Seen> seen;
    caf::actor scheduler;
    caf::actor executor;
    caf::actor router;
    caf::actor journal;
    std::vector<uint64_t> snapshots_written;
    caf::actor_system_config _config;
    std::unique_ptr<caf::actor_system> _system;
    caf::scheduler::test_coordinator* _sched = nullptr;
};

TEST_F(BarrierTest, TheSchedulerWaitsForEveryPartitionAndSeesNothingAfterTheTick) {
    route({event(1, events::BrokerRegistered{1, "rack-a", {}}),
           event(2, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(3, sample(1000, 3000)),
           event(4, events::Tick{4000}),       // the first Tick: a round is due
           event(5, sample(9999, 5000)),       // after the barrier: routed, not seen by the round
           event(6, events::Tick{5000})});     // not partition state: waits for the decision
    // The router routes up to the Tick, starts the barrier and routes on
    // what only changes partition state.
    _sched->prioritize(router);
    _sched->run_once();
    const caf::actor partition = waiting_partition_shard();
    ASSERT_TRUE(partition) << "no shard holds the partition's updates";
    EXPECT_EQ(progress.events_routed.load(), 5u) << "the sample after the Tick waits, or the Tick after it passed";

    // Everything but the partition's shard runs: brokers and executor answer,
    // yet the scheduler is not asked while the partition lags.
    run_all_but({partition});
    EXPECT_TRUE(inputs.empty()) << "planned before the partition's shard applied its updates";
    EXPECT_EQ(table.at(0).applied_seq, 0u);

    // The partition catches up, and runs ahead to seq 5 (its mailbox holds
    // it); the round still sees the slot as of seq 4.
    run_only(partition);
    EXPECT_EQ(table.at(0).applied_seq, 5u);
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    const PlanInput& input = *inputs.front();
    EXPECT_EQ(input.seq, 4u);
    EXPECT_EQ(input.now_ms, 4000);
    EXPECT_EQ(input.dirty_slots, std::vector<uint32_t>{0});
    ASSERT_EQ(input.brokers.size(), 1u);
    EXPECT_EQ(input.brokers[0].rack, "rack-a");
    EXPECT_EQ(input.brokers[0].applied_seq, 3u);  // the report at seq 3 refreshed it, seq 5's did not count
    ASSERT_EQ(seen.front().slots.size(), 1u);
    EXPECT_EQ(seen.front().slots[0].applied_seq, 3u);
    EXPECT_EQ(seen.front().slots[0].bytes_in_per_s, 1000);
    // The live slot has the later sample, and the Tick went on after the decision.
    EXPECT_EQ(table.at(0).bytes_in_per_s, 9999);
    EXPECT_EQ(progress.events_routed.load(), 6u);
}

TEST_F(BarrierTest, ARoundThatReadsBeforeThePartitionRunsAheadSeesTheSameSlot) {
    route({event(1, events::BrokerRegistered{1, "rack-a", {}}),
           event(2, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(3, sample(1000, 3000))});
    _sched->run();
    route({event(4, events::Tick{4000}), event(5, sample(9999, 5000))});
    _sched->prioritize(router);
    _sched->run_once();  // barrier at seq 4, the sample of seq 5 in its shard's mailbox
    EXPECT_EQ(progress.events_routed.load(), 5u);
    const caf::actor partition = waiting_partition_shard();
    ASSERT_TRUE(partition);
    run_all_but({partition});  // the round reads while seq 5 waits
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(seen.front().slots[0].bytes_in_per_s, 1000);
    _sched->run();
    EXPECT_EQ(table.at(0).bytes_in_per_s, 9999);
    // The next round sees the new sample.
    route({event(6, events::Tick{64'000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[1]->dirty_slots, std::vector<uint32_t>{0});
    EXPECT_EQ(seen[1].slots[0].bytes_in_per_s, 9999);
    EXPECT_EQ(seen[1].slots[0].applied_seq, 5u);
}

TEST_F(BarrierTest, APartitionFirstSeenAfterTheTickIsNotInTheRound) {
    route({event(1, events::BrokerRegistered{1, "", {}}),
           event(2, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(3, events::Tick{3000}),
           event(4, events::PartitionChanged{"orders", 1, {1}, 1, {1}, 0}),
           event(5, events::TopicDeleted{"orders"})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(inputs[0]->slot_count, 1u);
    EXPECT_EQ(inputs[0]->dirty_slots, std::vector<uint32_t>{0});
    EXPECT_TRUE(seen[0].slots[0].exists) << "the deletion after the Tick showed in the round";
    EXPECT_FALSE(table.at(0).exists);
    EXPECT_EQ(table.size(), 2u);
}

TEST_F(BarrierTest, APartitionThatIsAlreadyCaughtUpDoesNotHoldTheRound) {
    route({event(1, events::BrokerRegistered{1, "", {}}),
           event(2, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0})});
    _sched->run();  // everything applied before the Tick arrives
    route({event(3, events::Tick{3000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(inputs.front()->seq, 3u);
}

TEST_F(BarrierTest, OnlyPartitionsThatChangedAreDirtyInTheNextRound) {
    route({event(1, events::BrokerRegistered{1, "", {}}),
           event(2, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(3, events::PartitionChanged{"orders", 1, {1}, 1, {1}, 0}),
           event(4, events::Tick{4000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(inputs[0]->dirty_slots, (std::vector<uint32_t>{0, 1}));
    // 60 s later (the default detect interval), only partition 1 changed.
    route({event(5, events::PartitionChanged{"orders", 1, {1}, -1, {}, 1}),
           event(6, events::Tick{64'000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[1]->dirty_slots, std::vector<uint32_t>{1});
    EXPECT_EQ(table.at(1).leader, -1);
}

TEST_F(BarrierTest, ABrokerChangePlansAtTheNextTick) {
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::Tick{2000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    route({event(3, events::Tick{3000})});  // interval not passed, nothing changed
    _sched->run();
    EXPECT_EQ(inputs.size(), 1u);
    route({event(4, events::BrokerFenced{1}), event(5, events::Tick{5000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[1]->seq, 5u);
    EXPECT_EQ(inputs[1]->brokers[0].liveness, goals::Liveness::fenced);
    // And again when its failure grace (10 s from the fence at 4 s) runs out.
    route({event(6, events::Tick{13'999})});
    _sched->run();
    EXPECT_EQ(inputs.size(), 2u);
    route({event(7, events::Tick{14'000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 3u);
    EXPECT_EQ(inputs[2]->seq, 7u);
}

TEST_F(BarrierTest, ABrokerFencedWhileARoundPlansPassesAndMakesTheNextRoundDue) {
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::BrokerRegistered{2, "", {}}),
           event(3, events::Tick{3000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    // A round at seq 5; the fence at seq 6 is routed while it plans (the
    // scheduler is held), and the round does not see it.
    route({event(4, events::BrokerUnfenced{2}), event(5, events::Tick{5000}),
           event(6, events::BrokerFenced{2}), event(7, events::Tick{5500})});
    run_all_but({scheduler});
    EXPECT_EQ(progress.events_routed.load(), 6u) << "the fence waited for the decision, or the Tick did not";
    _sched->run();
    // The next Tick plans again (half a second later, far inside the detect
    // interval) because of the fence, and sees it.
    ASSERT_EQ(inputs.size(), 3u) << "the fence routed during the round was forgotten";
    EXPECT_EQ(inputs[1]->seq, 5u);
    EXPECT_EQ(inputs[1]->brokers[1].liveness, goals::Liveness::alive);
    EXPECT_EQ(inputs[2]->seq, 7u);
    EXPECT_EQ(inputs[2]->brokers[1].liveness, goals::Liveness::fenced);
}

// With a decision delay the stream flows past a planning round: Ticks before
// the round's time and what the executor reports pass; the Tick at its time
// (and an event for the scheduler) waits for the decision, which takes
// effect just before it.
TEST_F(BarrierTest, WithADecisionDelayTicksFlowPastAPlanningRoundUntilItsTime) {
    respawn_router({"ballast.planner.decision.delay.ms=2000"}, false);
    route({event(1, events::BrokerRegistered{1, "", {}}),
           event(2, events::Tick{3000}),  // the first Tick: a round, to take effect at 5000
           event(3, events::Tick{3500}),
           event(4, events::ActionCompleted{7}),
           event(5, events::BrokerFenced{1}),
           event(6, events::Tick{4999}),
           event(7, events::Tick{5000}),  // waits for the decision
           event(8, events::Tick{5500})});
    run_all_but({scheduler});
    EXPECT_EQ(progress.events_routed.load(), 6u) << "the round's Tick passed before its decision, or an earlier one waited";
    ASSERT_EQ(inputs.size(), 0u);
    _sched->run();
    EXPECT_EQ(progress.events_routed.load(), 8u);
    // Ticks that passed while the round planned started no round of their
    // own, though the fence made one due; the Tick at 5000 did, after the decision.
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[0]->seq, 2u);
    EXPECT_EQ(inputs[0]->now_ms, 3000) << "the round planned with the clock of a Tick that passed it";
    EXPECT_EQ(inputs[1]->seq, 7u);
    EXPECT_EQ(inputs[1]->now_ms, 5000);
    EXPECT_EQ(inputs[1]->brokers[0].liveness, goals::Liveness::fenced);
}

// An event for the scheduler cannot pass a decision: it waits for it and
// comes right after.
TEST_F(BarrierTest, WithADecisionDelayAConfigChangeTakesTheDecisionFirst) {
    respawn_router({"ballast.planner.decision.delay.ms=60000"}, false);
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::Tick{3000}),
           event(3, events::Tick{4000}),
           event(4, events::ConfigChanged{{{"ballast.partition.cooldown.ms", "1000"}}}),
           event(5, events::Tick{5000})});
    run_all_but({scheduler});
    EXPECT_EQ(progress.events_routed.load(), 3u);
    _sched->run();
    EXPECT_EQ(progress.events_routed.load(), 5u);
    EXPECT_EQ(inputs.size(), 1u);
}

// Every start journals its whole configuration; one that changes nothing
// (a restart with the same settings, in recovery) passes the decision, or a
// recovered engine would apply it sooner than an uninterrupted one.
TEST_F(BarrierTest, WithADecisionDelayAConfigChangeThatChangesNothingPassesTheDecision) {
    respawn_router({"ballast.planner.decision.delay.ms=60000"}, false);
    events::Config unchanged = barrier_config();
    ASSERT_TRUE(unchanged.apply_override("ballast.planner.decision.delay.ms=60000").ok());
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::Tick{3000}),
           event(3, events::Tick{4000}), event(4, full_config_event(unchanged)),
           event(5, events::Tick{5000})});
    run_all_but({scheduler});
    EXPECT_EQ(progress.events_routed.load(), 5u) << "the unchanged configuration waited for the decision";
    _sched->run();
    EXPECT_EQ(progress.events_routed.load(), 5u);
    EXPECT_EQ(inputs.size(), 1u);
}

// A snapshot decides nothing: Ticks that make no round due and action
// outcomes pass while it copies the table; a Tick that makes a round due
// waits for the copy (one barrier at a time).
TEST_F(BarrierTest, TicksPassASnapshotUnlessARoundIsDue) {
    respawn_router({"ballast.snapshot.interval.events=3"}, true);
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::Tick{2000})});
    _sched->run();
    ASSERT_EQ(inputs.size(), 1u);
    // seq 3 makes a snapshot due; the scheduler, which copies the records, is held.
    route({event(3, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(4, events::Tick{3000}),
           event(5, events::ActionCompleted{7}),
           event(6, events::BrokerFenced{1}),
           event(7, events::Tick{4000}),  // the fence makes a round due: waits for the snapshot
           event(8, events::Tick{5000})});
    run_all_but({scheduler});
    EXPECT_EQ(progress.events_routed.load(), 6u) << "a Tick waited for the snapshot, or the round-due one passed";
    EXPECT_TRUE(snapshots_written.empty());
    _sched->run();
    ASSERT_FALSE(snapshots_written.empty());
    EXPECT_EQ(snapshots_written.front(), 3u) << "the snapshot is as of the event that made it due";
    EXPECT_EQ(progress.events_routed.load(), 8u);
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[1]->seq, 7u);
}

// With a decision delay and rounds due at every Tick, a round is always
// open: the Tick that applies one decision opens the next. The snapshot is
// taken between the two, as of the last event routed, and the Tick waits.
TEST_F(BarrierTest, ASnapshotIsTakenBetweenRoundsThatRunBackToBack) {
    respawn_router({"ballast.snapshot.interval.events=3", "ballast.planner.decision.delay.ms=1000",
                    "autobalancer.controller.anomaly.detect.interval.ms=1000"},
                   true);
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::Tick{2000}),  // a round, applied at 3000
           event(3, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(4, events::PartitionChanged{"orders", 1, {1}, 1, {1}, 0}),
           event(5, events::Tick{3000}),  // applies it, and a round is due again
           event(6, events::Tick{4000}), event(7, events::Tick{5000})});
    _sched->run();
    EXPECT_EQ(progress.events_routed.load(), 7u);
    ASSERT_EQ(inputs.size(), 4u) << "a round at every Tick";
    EXPECT_EQ(inputs[1]->seq, 5u);
    ASSERT_FALSE(snapshots_written.empty()) << "no snapshot while rounds ran back to back";
    EXPECT_EQ(snapshots_written.front(), 4u) << "as of the last event before the Tick that applied the decision";
}

// Samples count toward a snapshot as well as events: a restart replays what
// came after the newest snapshot, and a report costs by its samples.
TEST_F(BarrierTest, ASnapshotIsDueAfterEnoughSamplesAsWellAsEvents) {
    respawn_router({"ballast.snapshot.interval.samples=5"}, true);
    const auto report = [](int64_t sample_time_ms) {
        events::PartitionMetrics m;
        m.broker_id = 1;
        m.sample_time_ms = sample_time_ms;
        m.topics = {"orders"};
        m.samples = {{0, 0, 100, 100, 1, 1000}, {0, 1, 100, 100, 1, 1000}};
        return m;
    };
    route({event(1, events::BrokerRegistered{1, "", {}}), event(2, events::PartitionChanged{"orders", 0, {1}, 1, {1}, 0}),
           event(3, events::PartitionChanged{"orders", 1, {1}, 1, {1}, 0}), event(4, report(1000)),
           event(5, report(2000))});
    _sched->run();
    EXPECT_TRUE(snapshots_written.empty()) << "4 samples, 5 events: none due";
    route({event(6, report(3000))});
    _sched->run();
    ASSERT_EQ(snapshots_written.size(), 1u);
    EXPECT_EQ(snapshots_written.front(), 6u) << "the report that brought the samples to 5";
    // Counted again from the snapshot.
    route({event(7, report(4000)), event(8, report(5000))});
    _sched->run();
    EXPECT_EQ(snapshots_written.size(), 1u);
    route({event(9, report(6000))});
    _sched->run();
    ASSERT_EQ(snapshots_written.size(), 2u);
    EXPECT_EQ(snapshots_written.back(), 9u);
}

}  // namespace
}  // namespace ballast::actors
