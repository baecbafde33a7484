#pragma once

/// The engine: wires the journal, router, broker, partition, scheduler and
/// executor actors, and is the one way in from outside. Adapters and tools
/// `feed` input events; the engine journals them, routes them, plans on the
/// clock and acts through the admin port; every decision is reported to
/// `on_decision` and journaled.
///
/// Start = open the journal, load the newest snapshot, replay the events
/// after it quietly (decisions are made again but not acted on or written
/// twice), hand the executor's in-flight actions to the port to reconcile,
/// then journal the current configuration and this instance's leadership.

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actors/admin_port.h"
#include "actors/engine_snapshot.h"
#include "actors/engine_status.h"
#include "actors/ha_ports.h"
#include "actors/router_actor.h"
#include "events/config.h"
#include "events/event.h"
#include "events/result.h"
#include "store/journal.h"

namespace caf {
class actor_system;
class actor_system_config;
class actor;
namespace scheduler {
class test_coordinator;
}
}  // namespace caf

namespace ballast::actors {

struct EngineOptions {
    /// The configuration this run wants. Journaled at start (as a
    /// ConfigChanged) so that a replay decides with the same settings.
    events::Config config = events::Config::defaults();
    /// "key=value" applied on top of every configuration change (replay --set).
    std::vector<std::string> overrides;
    /// Empty: no journal (replay); nothing is written and nothing recovered.
    std::string journal_path;
    /// The cluster; null: never act (replay, dry runs).
    AdminPort* port = nullptr;
    /// Every decision and execution record, from the actors' threads.
    std::function<void(const events::Event&)> on_decision;
    /// What each retention after a snapshot deleted, and which bound made
    /// the cut (`ballast run` logs it); not called when nothing went.
    std::function<void(const store::RetentionReport&)> on_retention;
    /// CAF worker threads. 0: none; every actor runs on the caller's thread,
    /// inside feed, replay, wait_idle, plan_now and stop, in the order its
    /// messages were sent (the simulator's stepping). A step then costs no
    /// thread wakeup: on this KVM guest one costs 0.09-0.8 ms, and a
    /// simulated run waits for the engine at every tick. Decisions are the
    /// same either way; `ballast run` and storms use threads.
    size_t threads = 2;
    /// Journal a LeadershipAcquired at start: a single instance leads.
    bool lead = true;
    /// Who this instance is, in its LeadershipAcquired.
    std::string instance_id = "local";
    /// High availability, the leader: every append is published to the
    /// replica (and committed) before this journal holds it and before
    /// anything acts on it; snapshots are published too. Null: none.
    JournalReplica* replica = nullptr;
    /// High availability, a standby: no inputs are fed; the leader's runs
    /// come through `follow`, are appended as they are and routed, and the
    /// engine decides again what the leader decided, acting on nothing and
    /// writing none of its own events (needs port == null, lead == false).
    bool follow = false;
    /// A standby: each decision and execution record of the leader as it is
    /// followed (the leader's ActionsPlanned, to compare with this engine's).
    std::function<void(const events::Event&)> on_followed;
    /// Start from this snapshot instead of the journal's (replay from a
    /// retained journal). Ignored when journal_path is set.
    const EngineSnapshot* replay_from = nullptr;
    /// Upper bound on events fed but not yet routed; feed() waits above it.
    /// Each waits as a decoded Event (~100-300 bytes): 100,000 bound that
    /// memory to tens of MB and still keep the journal's batches full.
    uint64_t backlog_events_max = 100'000;
    /// Partition messages the router lets wait in mailboxes before it pauses
    /// routing (flow control inside the engine). One metrics report of a
    /// 1M-partition cluster is a million messages of ~250 bytes (update +
    /// mailbox element); routed at once they would sit in the mailboxes as
    /// ~250 MB while one core works through them. Capped at 65,536 the
    /// backlog is ~16 MB, and feed() feels the pause (its backlog counts
    /// routed events), so the flow backs up to the producer.
    uint64_t partition_backlog_max = 1u << 16;
    /// Priority of the scheduler's and the snapshot writer's threads, and
    /// with `idle` of RocksDB's flushes and compactions (thread_priority.h):
    /// `normal` keeps them at the stream's priority; a storm runs them at
    /// `idle` so that the stream's latency comes first.
    store::BackgroundPriority background_priority = store::BackgroundPriority::normal;
    /// The journal's file system (store::JournalOptions::env); null: the OS's.
    rocksdb::Env* journal_env = nullptr;
};

/// Where a simulated crash is aimed (Engine::crash_at).
enum class CrashKind : uint8_t {
    mid_append,                  // inputs fed and not yet appended
    mid_round,                   // a round begun, its decision not yet applied
    mid_snapshot,                // a snapshot asked for and not yet written
    between_intent_and_submit,   // intents on their way to the journal
    between_submit_and_outcome,  // actions submitted, no outcome yet
};
inline constexpr uint8_t crash_kind_count = 5;

/// What a simulated crash interrupted (Engine::abandon).
struct CrashPoint {
    bool mid_append = false;                  // inputs fed and not yet appended
    int64_t inputs_unjournaled = 0;           // how many
    bool mid_round = false;                   // a round begun, its decision not yet applied
    bool mid_snapshot = false;                // a snapshot asked for and not yet written
    bool between_intent_and_submit = false;   // intents on their way to the journal
    bool between_submit_and_outcome = false;  // actions submitted, no outcome yet
    uint64_t messages = 0;                    // actor messages run before the crash
};

class Engine {
public:
    static events::Result<std::unique_ptr<Engine>> start(EngineOptions options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    /// Inputs (not decisions), without sequence numbers: journaled, then
    /// routed. Waits while the backlog is over backlog_events_max. A batch
    /// holding a decision or an event that fails `events::check` is refused
    /// whole (invalid_argument, naming the event, field and value), nothing
    /// of it journaled, and the engine goes on.
    events::Status feed(std::vector<events::Event> batch);

    /// Events that already carry their sequence numbers (a journal read back
    /// for replay): routed without being written.
    events::Status replay(std::vector<events::Event> batch);

    /// A standby's input (EngineOptions::follow): runs the leader shipped,
    /// checked and appended as they are, then routed. A run that does not
    /// continue the journal, or a damaged record, stops the engine with the
    /// error naming the seqs.
    events::Status follow(std::vector<store::ShippedRun> runs);

    /// OK while the engine runs; else why it stopped (a journal write or a
    /// publication that failed, an actor that ended).
    events::Status health() const { return check_failed(); }

    /// Returns once everything fed so far has been journaled, routed,
    /// applied, and planned on.
    events::Status wait_idle();

    /// `ballast plan`: waits for idle, then runs a planning round as of
    /// everything routed, changing nothing (no journal, no executor). Beside
    /// a live stream (CAF's threads) events may come between the idle and the
    /// round: it waits for idle again, a bounded number of times.
    events::Result<DecisionPtr> plan_now();

    /// What the engine says of itself (engine_status.h), asked of its actors
    /// by request; from any thread with CAF's threads, from the caller's
    /// (where every other call is made) without. Waits for nothing but the
    /// answers: an actor that does not answer within `timeout_ms` (a round
    /// at a million partitions takes about half a second) is an error.
    events::Result<EngineStatusPtr> status(int64_t timeout_ms = 10'000);

    /// Stops the actors; the journal stays as it is. Called by the destructor.
    void stop();

    const RouterProgress& progress() const { return _progress; }
    /// The seq recovery replayed up to at start (0: nothing to recover).
    uint64_t recovered_seq() const { return _recovered_seq; }
    /// The snapshot recovery started from (0: none).
    uint64_t snapshot_seq() const { return _snapshot_seq; }
    store::Journal* journal() { return _journal.get(); }
    const PartitionTable& partition_table() const { return *_table; }

    /// Simulated crashes, for an engine whose actors run on the caller's
    /// thread (threads == 0): after `messages` more actor messages nothing
    /// more runs, as in a process killed at that instant, and every call but
    /// abandon() fails. Messages are the engine's finest steps (an append, a
    /// routed batch, a round, an intent, an admin call), so a seeded budget
    /// lands anywhere between them.
    void crash_after_messages(uint64_t messages);
    /// The same, aimed: the crash comes after the `occurrence`-th actor
    /// message (from 1) after which `kind` is under way. Messages then run
    /// one at a time; a kind that never comes never crashes.
    void crash_at(CrashKind kind, uint64_t occurrence);
    bool crashed() const { return _crashed; }
    /// A stop set up by crash_at / crash_after_messages, taken as a pause
    /// instead (SIGSTOP, then SIGCONT): the engine goes on from the message
    /// where it stopped, with everything it held, as a process resumed.
    void resume();
    /// Actor messages run since crash_after_messages() was called.
    uint64_t messages_run() const { return _messages_run; }
    /// Inputs fed since start (the engine's own start events included; not
    /// what recovery replayed).
    uint64_t inputs_fed() const { return _inputs_fed.load(); }
    /// The crash: ends the engine without running one more message. Nothing
    /// pending is appended, routed or acted on; RocksDB is closed as it is
    /// (a store::PowerCutFileSystem under it decides what reached the disk).
    /// Returns what was under way. The journal is then as a kill -9 leaves it.
    CrashPoint abandon();

    /// Tests of supervision: ends the named actor ("journal", "router",
    /// "scheduler", "executor") with an error, as an exception in one of its
    /// handlers would.
    void inject_actor_failure(const std::string& actor);

private:
    Engine() = default;
    events::Status check_failed() const;
    /// Records why the engine stopped: the first cause; a consequence (an
    /// actor that ended because another had) until a cause is known.
    void fail(const std::string& failure, bool consequence = false);
    /// threads == 0: runs every actor until none has a message left (or the
    /// crash budget is spent).
    void run_actors();
    /// The four actors the engine spawns, with their names.
    std::array<std::pair<caf::actor*, const char*>, 4> named_actors();

    EngineOptions _options;
    std::unique_ptr<store::Journal> _journal;
    std::unique_ptr<PartitionTable> _table;
    RouterProgress _progress;
    InFlight _in_flight;
    std::optional<uint64_t> _crash_budget;  // actor messages left before a simulated crash
    std::optional<CrashKind> _crash_kind;   // with crash_at: the budget counts messages where it holds
    bool under_way(CrashKind kind) const;
    uint64_t _messages_run = 0;             // while a crash budget is set
    bool _crashed = false;
    std::unique_ptr<caf::actor_system_config> _caf_config;
    std::unique_ptr<caf::actor_system> _system;
    caf::scheduler::test_coordinator* _caller_thread = nullptr;  // threads == 0: the system's scheduler
    std::unique_ptr<caf::actor> _journal_actor;
    std::unique_ptr<caf::actor> _router;
    std::unique_ptr<caf::actor> _scheduler;
    std::unique_ptr<caf::actor> _executor;
    std::atomic<uint64_t> _events_fed{0};  // fed and replayed: the backlog's count
    std::atomic<uint64_t> _inputs_fed{0};
    uint64_t _recovered_seq = 0;
    uint64_t _snapshot_seq = 0;
    mutable std::mutex _failure_mutex;
    std::string _failure;  // why the engine stopped: a journal write, an actor that ended
    bool _failure_is_consequence = false;
    std::atomic<bool> _stopping{false};  // stop() has begun: actors ending now are not failures
};

}  // namespace ballast::actors
