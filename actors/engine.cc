#include "actors/engine.h"

#include <cassert>
#include <chrono>
#include <thread>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <spdlog/spdlog.h>

#include "actors/executor_actor.h"
#include "events/event_check.h"
#include "actors/journal_actor.h"
#include "actors/scheduler_actor.h"

namespace ballast::actors {

using events::ErrorCode;
using events::make_error;

namespace {

/// Events read from the journal per replay batch during recovery.
constexpr uint64_t recovery_batch_events = 10'000;

/// What recovery finds in the journal: the snapshot to start from and the
/// barriers whose decisions the tail already holds.
struct Recovered {
    std::optional<EngineSnapshot> snapshot;
    std::set<uint64_t> journaled_barriers;
    uint64_t tail_from = 1;
    uint64_t tail_to = 0;
};

events::Result<Recovered> read_recovery(const store::Journal& journal) {
    Recovered recovered;
    events::Result<std::optional<store::Snapshot>> newest = journal.newest_snapshot();
    if (!newest) return newest.error();
    if (newest->has_value()) {
        events::Result<EngineSnapshot> decoded = decode_snapshot((*newest)->bytes);
        if (!decoded) {
            return make_error(decoded.error().code, "snapshot at seq " +
                                                        std::to_string((*newest)->seq) + ": " +
                                                        decoded.error().message);
        }
        recovered.snapshot = std::move(*decoded);
        recovered.tail_from = (*newest)->seq + 1;
    } else {
        recovered.tail_from = journal.first_seq();
    }
    recovered.tail_to = journal.last_seq();
    events::Status scanned = journal.scan(
        recovered.tail_from, recovered.tail_to, [&](uint64_t, std::span<const uint8_t> bytes) {
            const events::Header header = events::header(events::view(bytes));
            if (header.type == events::EventType::actions_planned) {
                const events::Event e = events::from_flatbuffer(events::view(bytes));
                recovered.journaled_barriers.insert(
                    std::get<events::ActionsPlanned>(e.body).barrier_seq);
            }
            return true;
        });
    if (!scanned) return scanned.error();
    return recovered;
}

/// A request from outside the actor system (a scoped_actor) points the
/// calling thread's CAF logger at the system: a thread-local strong
/// reference that the system's destructor waits for. On a thread that
/// outlives the engine (the HTTP API's workers) that wait never ends, so
/// every call that asks leaves the thread as it found it.
struct ForgetSystemOnReturn {
    ~ForgetSystemOnReturn() { caf::logger::set_current_actor_system(nullptr); }
};

}  // namespace

events::Result<std::unique_ptr<Engine>> Engine::start(EngineOptions options) {
    std::unique_ptr<Engine> engine(new Engine());
    Engine& e = *engine;
    e._options = std::move(options);
    const EngineOptions& o = e._options;
    if (o.follow && (o.port || o.lead || o.replica || o.journal_path.empty())) {
        return make_error(ErrorCode::invalid_argument,
                          "a standby engine (follow) needs a journal, and acts on nothing: no port, no leadership, "
                          "no replica");
    }

    // 1. The journal and what to recover from it.
    Recovered recovered;
    if (!o.journal_path.empty()) {
        store::JournalOptions journal_options;
        journal_options.sync = o.config.get_bool("ballast.journal.sync");
        journal_options.env = o.journal_env;
        // RocksDB's flushes and compactions are background work too, but
        // only SCHED_IDLE is passed on: `low` keeps what it always meant.
        if (o.background_priority == store::BackgroundPriority::idle) {
            journal_options.background_priority = store::BackgroundPriority::idle;
        }
        events::Result<std::unique_ptr<store::Journal>> journal =
            store::Journal::open(o.journal_path, journal_options);
        if (!journal) return journal.error();
        e._journal = std::move(*journal);
        // A torn last write that the open cut, with the range it held.
        for (const std::string& warning : e._journal->warnings()) spdlog::warn("{}", warning);
        events::Result<Recovered> read = read_recovery(*e._journal);
        if (!read) return read.error();
        recovered = std::move(*read);
    } else if (o.replay_from) {
        recovered.snapshot = *o.replay_from;
    }
    // Shared with the router, which reads it when it first runs.
    std::shared_ptr<const EngineSnapshot> shared_snapshot;
    if (recovered.snapshot) {
        shared_snapshot = std::make_shared<const EngineSnapshot>(std::move(*recovered.snapshot));
    }
    const EngineSnapshot* snapshot = shared_snapshot.get();
    e._snapshot_seq = snapshot ? snapshot->seq : 0;
    e._recovered_seq = recovered.tail_to >= recovered.tail_from ? recovered.tail_to : e._snapshot_seq;

    // 2. The settings the actors start with: the snapshot's, or the
    // defaults; the journal's ConfigChanged events take it from there.
    events::Config config = events::Config::defaults();
    if (snapshot) {
        if (events::Status loaded = config.load_properties_text(snapshot->config_properties,
                                                                "snapshot");
            !loaded) {
            return make_error(ErrorCode::corruption,
                              "snapshot at seq " + std::to_string(snapshot->seq) +
                                  ": configuration: " + loaded.error().message);
        }
    }
    for (const std::string& assignment : o.overrides) {
        if (events::Status status = config.apply_override(assignment); !status) return status.error();
    }
    const EngineSettings settings = settings_from(config);

    // 3. The partition table, restored.
    e._table = std::make_unique<PartitionTable>();
    if (snapshot) {
        for (const PartitionRecord& record : snapshot->partitions) e._table->at(e._table->add()) = record;
    }

    // 4. The actors. The journal actor needs the router and the router needs
    // the others, which need the journal actor: the router is introduced to
    // the journal actor by message, before any input can arrive.
    e._caf_config = std::make_unique<caf::actor_system_config>();
    const bool on_caller_thread = o.threads == 0;
    if (on_caller_thread) {
        // CAF's stepping scheduler: jobs wait in a queue until run_actors()
        // runs them, one message at a time, in the order they were sent.
        e._caf_config->set("scheduler.policy", caf::atom("testing"));
    } else {
        e._caf_config->set("scheduler.max-threads", o.threads);
        // Sharing: one queue for all workers. Work stealing measured 20x
        // slower here on 2 cores when other processes compete for them.
        e._caf_config->set("scheduler.policy", caf::atom("sharing"));
    }
    e._system = std::make_unique<caf::actor_system>(*e._caf_config);
    caf::actor_system& sys = *e._system;
    if (on_caller_thread) {
        e._caller_thread = dynamic_cast<caf::scheduler::test_coordinator*>(&sys.scheduler());
        assert(e._caller_thread != nullptr);
    }

    auto on_decision = o.on_decision ? o.on_decision : [](const events::Event&) {};
    Engine* raw = &e;
    auto on_fatal = [raw](const events::Error& error) {
        spdlog::critical("journal write failed, stopping: {}", error.to_string());
        raw->fail(error.to_string());
    };
    // On the caller's thread nothing may run on a thread of its own: the
    // stepping scheduler's queue is the caller's alone.
    const HelperThreads helpers{!on_caller_thread, o.background_priority};
    Replication replication{o.replica, o.follow, o.on_followed, &e._events_fed};
    // A leader's appends wait for the replica's commit (a Kafka transaction,
    // milliseconds): on a thread of its own, not one of CAF's two workers.
    e._journal_actor = std::make_unique<caf::actor>(
        o.replica && helpers.own_threads
            ? sys.spawn<caf::detached>(journal_actor, e._journal.get(), caf::actor(), on_fatal, o.on_retention,
                                       helpers, &e._in_flight, replication)
            : sys.spawn(journal_actor, e._journal.get(), caf::actor(), on_fatal, o.on_retention, helpers,
                        &e._in_flight, replication));
    const uint64_t quiet_until = e._recovered_seq;
    e._executor = std::make_unique<caf::actor>(
        sys.spawn(executor_actor, o.port, *e._journal_actor,
                  snapshot ? snapshot->executor : ExecutorView{}, settings.executor,
                  o.port ? quiet_until : UINT64_MAX, on_decision, &e._in_flight));
    // Its own thread (see scheduler_actor.h), unless everything runs on the
    // caller's: a round's planning at 1M partitions would otherwise hold one
    // of the two CAF workers the stream needs for ~100 ms.
    auto spawn_scheduler = [&](auto options) {
        return sys.spawn<decltype(options)::value>(
            scheduler_actor, e._table.get(), *e._journal_actor, config, o.overrides,
            snapshot ? snapshot->scheduler : SchedulerMemory{}, recovered.journaled_barriers, on_decision,
            o.background_priority);
    };
    e._scheduler = std::make_unique<caf::actor>(
        helpers.own_threads
            ? spawn_scheduler(std::integral_constant<caf::spawn_options, caf::detached>{})
            : spawn_scheduler(std::integral_constant<caf::spawn_options, caf::no_spawn_options>{}));
    RouterSetup setup;
    setup.table = e._table.get();
    setup.scheduler = *e._scheduler;
    setup.executor = *e._executor;
    setup.progress = &e._progress;
    setup.in_flight = &e._in_flight;
    setup.config = config;
    setup.overrides = o.overrides;
    setup.restore = shared_snapshot;
    setup.quiet_until_seq = quiet_until;
    setup.snapshots = e._journal != nullptr;
    setup.partition_backlog_max = o.partition_backlog_max;
    e._router = std::make_unique<caf::actor>(sys.spawn(router_actor, setup));
    caf::anon_send(*e._router, control_atom::value, *e._journal_actor);
    caf::anon_send(*e._journal_actor, control_atom::value, *e._router);
    // Supervision: an actor that ends for any reason but the engine's own
    // stop (an exception in a handler, a failed request, a kill) stops the
    // engine, naming the actor and the cause. Every later call reports it,
    // so a feeder waiting on the backlog or on idle never waits forever.
    for (const auto& [actor, name] : e.named_actors()) {
        (*actor)->attach_functor([raw, sys = &sys, name = std::string(name)](const caf::error& reason) {
            // Ends during stop() are the engine's own (an actor whose request
            // met one already stopped ends too), and the system is going.
            if (!reason || reason == caf::exit_reason::user_shutdown || raw->_stopping.load()) return;
            // An actor whose request went to an actor that had ended ends
            // too: a consequence, reported only if no cause is.
            const bool consequence = reason == caf::sec::request_receiver_down;
            raw->fail("the " + name + " actor stopped: " + sys->render(reason), consequence);
        });
    }

    if (!e._journal) return engine;  // replay: the caller feeds the events

    // 5. Recovery: the tail after the snapshot, quietly.
    for (uint64_t from = recovered.tail_from; from <= recovered.tail_to;
         from += recovery_batch_events) {
        const uint64_t to = std::min(recovered.tail_to, from + recovery_batch_events - 1);
        events::Result<std::vector<events::Event>> batch = e._journal->read(from, to);
        if (!batch) return batch.error();
        if (events::Status status = e.replay(std::move(*batch)); !status) return status.error();
    }
    if (events::Status idle = e.wait_idle(); !idle) return idle.error();
    if (recovered.tail_to >= recovered.tail_from) {
        spdlog::info("recovered {} events (seq {}..{}) after snapshot {}",
                     recovered.tail_to - recovered.tail_from + 1, recovered.tail_from,
                     recovered.tail_to, e._snapshot_seq);
    }
    if (o.port) {
        caf::anon_send(*e._executor, adopt_atom::value);
    }

    // A standby's configuration and leadership are the leader's, in its runs.
    if (o.follow) return engine;

    // 6. This run's configuration and leadership, journaled as inputs, at
    // the time of the last event (the engine has no clock of its own).
    int64_t time_ms = 0;
    if (e._journal->last_seq() >= e._journal->first_seq()) {
        events::Result<events::Event> last = e._journal->read_one(e._journal->last_seq());
        if (!last) return last.error();
        time_ms = last->time_ms;
    }
    std::vector<events::Event> start_events;
    start_events.push_back(
        events::Event{0, time_ms, events::Source::operator_, full_config_event(o.config)});
    if (o.lead) {
        start_events.push_back(events::Event{
            0, time_ms, events::Source::operator_,
            events::LeadershipAcquired{static_cast<int64_t>(e._journal->last_seq() + 1), o.instance_id}});
    }
    if (events::Status status = e.feed(std::move(start_events)); !status) return status.error();
    return engine;
}

Engine::~Engine() { stop(); }

std::array<std::pair<caf::actor*, const char*>, 4> Engine::named_actors() {
    return {{{_journal_actor.get(), "journal"},
             {_router.get(), "router"},
             {_scheduler.get(), "scheduler"},
             {_executor.get(), "executor"}}};
}

void Engine::stop() {
    if (!_system) return;
    _stopping.store(true);
    for (const auto& [actor, name] : named_actors()) {
        if (actor) caf::anon_send_exit(*actor, caf::exit_reason::user_shutdown);
    }
    _journal_actor.reset();
    _router.reset();
    _scheduler.reset();
    _executor.reset();
    _crash_budget.reset();
    _crashed = false;
    run_actors();     // on the caller's thread: the exits are messages too
    _system.reset();  // waits for every actor to finish
    _caller_thread = nullptr;
    _caf_config.reset();
}

void Engine::crash_after_messages(uint64_t messages) {
    assert(_caller_thread != nullptr);  // with CAF's threads there is no "next message"
    _crash_budget = messages;
    _crash_kind.reset();
    _messages_run = 0;
}

void Engine::crash_at(CrashKind kind, uint64_t occurrence) {
    crash_after_messages(std::max<uint64_t>(occurrence, 1));
    _crash_kind = kind;
}

void Engine::resume() {
    assert(_caller_thread != nullptr);
    _crashed = false;
    _crash_budget.reset();
    _crash_kind.reset();
    run_actors();
}

bool Engine::under_way(CrashKind kind) const {
    switch (kind) {
        case CrashKind::mid_append: return _in_flight.inputs_unjournaled.load() > 0;
        case CrashKind::mid_round: return _in_flight.round_open.load() > 0;
        case CrashKind::mid_snapshot: return _in_flight.snapshot_open.load() > 0;
        case CrashKind::between_intent_and_submit: return _in_flight.intents_unsubmitted.load() > 0;
        case CrashKind::between_submit_and_outcome: return _in_flight.actions_in_flight.load() > 0;
    }
    return false;
}

CrashPoint Engine::abandon() {
    CrashPoint point;
    point.inputs_unjournaled = _in_flight.inputs_unjournaled.load();
    point.mid_append = point.inputs_unjournaled > 0;
    point.mid_round = _in_flight.round_open.load() > 0;
    point.mid_snapshot = _in_flight.snapshot_open.load() > 0;
    point.between_intent_and_submit = _in_flight.intents_unsubmitted.load() > 0;
    point.between_submit_and_outcome = _in_flight.actions_in_flight.load() > 0;
    point.messages = _messages_run;
    if (!_system) return point;
    _stopping.store(true);
    // Exits at high priority, so each actor takes its kill before anything
    // waiting in its mailbox, and ends without running it. Linked actors
    // (shards, brokers, the snapshot writer) end with their parent.
    for (const auto& [actor, name] : named_actors()) {
        if (actor && *actor) {
            (*actor)->enqueue(nullptr, caf::make_message_id(caf::message_priority::high),
                              caf::make_message(caf::exit_msg{(*actor)->address(), caf::exit_reason::kill}), nullptr);
        }
    }
    _journal_actor.reset();
    _router.reset();
    _scheduler.reset();
    _executor.reset();
    if (_caller_thread) _caller_thread->run();  // only the exits run
    _system.reset();
    _caller_thread = nullptr;
    _caf_config.reset();
    _journal.reset();  // closed as it is: RocksDB writes nothing an append did not
    return point;
}

void Engine::run_actors() {
    if (!_caller_thread || _crashed) return;
    if (!_crash_budget) {
        _caller_thread->run();
        return;
    }
    if (_crash_kind) {
        while (_caller_thread->try_run_once()) {
            _messages_run++;
            if (under_way(*_crash_kind) && --*_crash_budget == 0) {
                _crashed = true;
                return;
            }
        }
        return;
    }
    const size_t ran = _caller_thread->run(*_crash_budget);
    *_crash_budget -= ran;
    _messages_run += ran;
    if (*_crash_budget == 0 && _caller_thread->has_job()) _crashed = true;
}

void Engine::fail(const std::string& failure, bool consequence) {
    std::lock_guard<std::mutex> lock(_failure_mutex);
    // The first cause is the one to report; a consequence only until a cause
    // comes (they are seen on different threads, in either order).
    if (!_failure.empty() && (consequence || !_failure_is_consequence)) return;
    spdlog::critical("engine stopping: {}", failure);
    _failure = failure;
    _failure_is_consequence = consequence;
}

void Engine::inject_actor_failure(const std::string& actor) {
    for (const auto& [handle, name] : named_actors()) {
        if (handle && actor == name) caf::anon_send_exit(*handle, caf::exit_reason::unhandled_exception);
    }
    run_actors();
}

events::Status Engine::check_failed() const {
    if (_crashed) {
        return make_error(ErrorCode::conflict, "engine crashed (simulated) after " + std::to_string(_messages_run) +
                                                   " actor messages; abandon() it and start again");
    }
    std::lock_guard<std::mutex> lock(_failure_mutex);
    if (!_failure.empty()) return make_error(ErrorCode::io_error, "engine stopped: " + _failure);
    return {};
}

events::Status Engine::feed(std::vector<events::Event> batch) {
    if (events::Status failed = check_failed(); !failed) return failed;
    if (!_system) return make_error(ErrorCode::conflict, "engine is stopped");
    if (batch.empty()) return {};
    for (const events::Event& event : batch) {
        if (events::is_decision(event.source)) {
            return make_error(ErrorCode::invalid_argument,
                              std::string("feed takes inputs only; a ") + events::type_name(event.type()) +
                                  " from source " + events::source_name(event.source) +
                                  " is a decision the engine makes itself");
        }
    }
    // Refused whole, before the journal: a bad input must not be journaled
    // (the journal would refuse it, and that failure stops the engine) nor
    // routed (a sample's topic index is trusted from here on).
    if (events::Status valid = events::check_batch(batch); !valid) {
        return make_error(ErrorCode::invalid_argument, "feed refused (nothing journaled): " + valid.error().message);
    }
    // Backpressure: wait while the router is far behind (on the caller's
    // thread it never is: each call runs the actors until they are done).
    while (!_caller_thread && _events_fed.load() - _progress.events_routed.load() > _options.backlog_events_max) {
        if (events::Status failed = check_failed(); !failed) return failed;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    _events_fed.fetch_add(batch.size());
    _inputs_fed.fetch_add(batch.size());
    _in_flight.inputs_unjournaled.fetch_add(static_cast<int64_t>(batch.size()), std::memory_order_relaxed);
    caf::anon_send(*_journal_actor, feed_atom::value,
                   std::make_shared<EventBatch>(std::move(batch)));
    run_actors();
    return check_failed();
}

events::Status Engine::replay(std::vector<events::Event> batch) {
    if (events::Status failed = check_failed(); !failed) return failed;
    if (batch.empty()) return {};
    while (!_caller_thread && _events_fed.load() - _progress.events_routed.load() > _options.backlog_events_max) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    _events_fed.fetch_add(batch.size());
    caf::anon_send(*_journal_actor, route_atom::value,
                   BatchPtr(std::make_shared<const EventBatch>(std::move(batch))));
    run_actors();
    return check_failed();
}

events::Status Engine::follow(std::vector<store::ShippedRun> runs) {
    if (events::Status failed = check_failed(); !failed) return failed;
    if (!_options.follow) return make_error(ErrorCode::conflict, "follow: this engine is not a standby");
    if (runs.empty()) return {};
    uint64_t count = 0;
    for (const store::ShippedRun& run : runs) {
        events::Result<std::pair<uint64_t, uint64_t>> bounds = store::shipped_run_bounds(run);
        if (!bounds) return bounds.error();
        count += bounds->second - bounds->first + 1;
    }
    while (!_caller_thread && _events_fed.load() - _progress.events_routed.load() > _options.backlog_events_max) {
        if (events::Status failed = check_failed(); !failed) return failed;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    _events_fed.fetch_add(count);
    caf::anon_send(*_journal_actor, follow_atom::value,
                   std::make_shared<const std::vector<store::ShippedRun>>(std::move(runs)));
    run_actors();
    return check_failed();
}

events::Status Engine::wait_idle() {
    if (!_system) return make_error(ErrorCode::conflict, "engine is stopped");
    if (events::Status failed = check_failed(); !failed) return failed;
    const ForgetSystemOnReturn forget;
    caf::scoped_actor self{*_system};
    // Asked again each second: an actor that ends while the question is on
    // its way (supervision records it) may leave it unanswered, and the
    // caller must hear that the engine stopped rather than wait forever.
    for (;;) {
        events::Status result;
        bool unanswered = false;
        auto answer = self->request(*_journal_actor, std::chrono::seconds(1), idle_atom::value);
        run_actors();  // on the caller's thread, the answer is waiting once this returns
        if (events::Status failed = check_failed(); !failed) return failed;
        answer.receive([](bool) {},
                       [&](caf::error& error) {
                           if (error == caf::sec::request_timeout) {
                               unanswered = true;
                           } else {
                               result = make_error(ErrorCode::io_error, "engine: " + _system->render(error));
                           }
                       });
        if (events::Status failed = check_failed(); !failed) return failed;
        if (!unanswered) return result;
    }
}

}  // namespace ballast::actors

namespace ballast::actors {

events::Result<DecisionPtr> Engine::plan_now() {
    // The router refuses a dry run while events wait (runtime_error): beside
    // a live stream a Tick can come between the idle and the request. On
    // the caller's thread nothing comes between them.
    constexpr int busy_tries_max = 100;
    for (int attempt = 1;; attempt++) {
        if (events::Status idle = wait_idle(); !idle) return idle.error();
        const ForgetSystemOnReturn forget;
        caf::scoped_actor self{*_system};
        events::Result<DecisionPtr> result = make_error(ErrorCode::io_error, "no answer");
        bool busy = false;
        auto answer = self->request(*_router, caf::infinite, plan_atom::value);
        run_actors();
        answer.receive([&](const DecisionPtr& decision) { result = decision; },
                       [&](caf::error& error) {
                           busy = error == caf::sec::runtime_error && !_caller_thread && attempt < busy_tries_max;
                           result = make_error(ErrorCode::conflict, "plan: " + _system->render(error));
                       });
        if (!busy) return result;
    }
}

events::Result<EngineStatusPtr> Engine::status(int64_t timeout_ms) {
    if (!_system) return make_error(ErrorCode::conflict, "engine is stopped");
    if (events::Status failed = check_failed(); !failed) return failed.error();
    const ForgetSystemOnReturn forget;
    caf::scoped_actor self{*_system};
    events::Result<EngineStatusPtr> result = make_error(ErrorCode::io_error, "no answer");
    auto answer = self->request(*_router, std::chrono::milliseconds(timeout_ms), status_atom::value);
    run_actors();
    answer.receive([&](const EngineStatusPtr& status) { result = status; },
                   [&](caf::error& error) {
                       result = make_error(ErrorCode::io_error,
                                           error == caf::sec::request_timeout
                                               ? "the engine did not answer within " + std::to_string(timeout_ms) + " ms"
                                               : "engine status: " + _system->render(error));
                   });
    return result;
}

}  // namespace ballast::actors
