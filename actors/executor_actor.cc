#include "actors/executor_actor.h"

#include <caf/all.hpp>

#include "actors/supervision.h"

namespace ballast::actors {

namespace {

using ExecutorSelf = caf::stateful_actor<ExecutorState>;

/// An attempt whose intent (its ActionSubmitted) is on its way to the
/// journal; the admin call waits for the journal's answer.
struct Intent {
    uint64_t action_id = 0;
    uint32_t attempt = 0;
};

/// Once the journal holds their intents: hands each action to the port,
/// unless it stopped being in flight at that attempt meanwhile (cancelled,
/// timed out). An admin call is never made for an attempt the journal does
/// not hold, so after a crash every reassignment the cluster runs has its
/// intent journaled, and recovery finds every submission it must follow.
void submit_journaled(ExecutorSelf* self, const std::vector<Intent>& intents) {
    auto& st = self->state;
    for (const Intent& intent : intents) {
        auto it = st.inflight.find(intent.action_id);
        if (it == st.inflight.end()) continue;
        const TrackedAction& tracked = it->second;
        if (tracked.attempt != intent.attempt || tracked.next_retry_ms >= 0) continue;
        st.port->submit(tracked.action, tracked.attempt);
    }
    st.intents_unconfirmed -= static_cast<uint32_t>(intents.size());
    st.in_flight->intents_unsubmitted.store(static_cast<int32_t>(st.intents_unconfirmed), std::memory_order_relaxed);
    if (st.intents_unconfirmed > 0) return;
    for (caf::response_promise& waiter : st.idle_waiters) waiter.deliver(true);
    st.idle_waiters.clear();
}

/// Journals the events the executor made and reports them, then makes the
/// admin calls whose intents they carry; in quiet mode (recovery) they are
/// already in the journal and were acted on, so only reported.
void record(ExecutorSelf* self, EventBatch made, bool quiet, std::vector<Intent> intents = {}) {
    if (made.empty()) return;
    for (const events::Event& e : made) self->state.on_decision(e);
    if (quiet) return;
    self->state.intents_unconfirmed += static_cast<uint32_t>(intents.size());
    self->state.in_flight->intents_unsubmitted.store(static_cast<int32_t>(self->state.intents_unconfirmed),
                                                     std::memory_order_relaxed);
    // A failed append ends the journal actor and, through this request, the
    // executor: nothing whose intent was not journaled is submitted.
    self->request(self->state.journal, caf::infinite, record_atom::value,
                  std::make_shared<EventBatch>(std::move(made)))
        .then([self, intents = std::move(intents)](uint64_t) {
            if (!intents.empty()) submit_journaled(self, intents);
        });
}

/// Kept for naming what a simulated crash interrupted (InFlight).
void note_in_flight(ExecutorState& st) {
    st.in_flight->actions_in_flight.store(static_cast<int32_t>(st.inflight.size()), std::memory_order_relaxed);
}

events::Event made_event(const ExecutorState& st, events::Body body) {
    return events::Event{0, st.now_ms, events::Source::executor, std::move(body)};
}

/// The action ended without completing: its partitions back off.
void ended_unfinished(ExecutorState& st, const TrackedAction& tracked) {
    for (const uint32_t slot : tracked.partition_slots) {
        MoveBackoff& b = st.backoff[slot];
        b.failures++;
        b.last_failed_ms = st.now_ms;
    }
}

/// A new attempt of the action: its intent goes into `made`, and the admin
/// call waits for the journal (see submit_journaled); replay and recovery
/// (quiet) make none.
void submit(ExecutorSelf* self, TrackedAction& tracked, EventBatch& made, std::vector<Intent>& intents,
            bool quiet) {
    auto& st = self->state;
    tracked.attempt++;
    tracked.next_retry_ms = -1;
    made.push_back(made_event(st, events::ActionSubmitted{tracked.action.action_id, tracked.attempt}));
    if (st.port && !quiet) intents.push_back({tracked.action.action_id, tracked.attempt});
}

void execute(ExecutorSelf* self, const Decision& decision) {
    auto& st = self->state;
    EventBatch made;
    std::vector<Intent> intents;
    if (!decision.accepted.empty()) st.last_batch_ms = st.now_ms;
    for (const TrackedAction& accepted : decision.accepted) {
        if (!st.leading) {
            made.push_back(made_event(st, events::ActionCancelled{
                                              accepted.action.action_id,
                                              "this instance does not hold leadership"}));
            continue;
        }
        auto [it, inserted] = st.inflight.emplace(accepted.action.action_id, accepted);
        // Action ids are unique: the scheduler counts them up and snapshots the counter.
        assert(inserted);
        it->second.started_ms = st.now_ms;
        submit(self, it->second, made, intents, decision.quiet);
    }
    note_in_flight(st);
    record(self, std::move(made), decision.quiet, std::move(intents));
}

/// On each tick: time out what ran too long, retry what waited long enough.
void on_tick(ExecutorSelf* self, bool quiet) {
    auto& st = self->state;
    EventBatch made;
    std::vector<Intent> intents;
    for (auto it = st.inflight.begin(); it != st.inflight.end();) {
        TrackedAction& tracked = it->second;
        if (st.now_ms - tracked.started_ms >= st.settings.action_timeout_ms) {
            if (st.port && !quiet) st.port->cancel(tracked.action);
            made.push_back(made_event(st, events::ActionTimedOut{tracked.action.action_id,
                                                                 st.settings.action_timeout_ms}));
            ended_unfinished(st, tracked);
            it = st.inflight.erase(it);
            continue;
        }
        if (tracked.next_retry_ms >= 0 && st.now_ms >= tracked.next_retry_ms) {
            submit(self, tracked, made, intents, quiet);
        }
        ++it;
    }
    record(self, std::move(made), quiet, std::move(intents));
}

void on_failed(ExecutorSelf* self, const events::ActionFailed& failed) {
    auto& st = self->state;
    auto it = st.inflight.find(failed.action_id);
    if (it == st.inflight.end()) return;  // already timed out or cancelled
    TrackedAction& tracked = it->second;
    if (failed.error_code == actors::not_started_code && !failed.retriable) {
        // It never ran: nothing to hold its partitions for. The planner
        // decides again from their current replicas.
        st.inflight.erase(it);
        return;
    }
    if (failed.retriable && tracked.attempt <= st.settings.retries_max) {
        // Backoff doubles per attempt: base, 2 x base, 4 x base, ...
        const int64_t backoff_ms = st.settings.retry_backoff_ms << std::min<uint32_t>(tracked.attempt - 1, 20);
        tracked.next_retry_ms = st.now_ms + backoff_ms;
        return;
    }
    ended_unfinished(st, tracked);
    st.inflight.erase(it);  // for good: the failure event is the record
}

void on_cancel(ExecutorSelf* self, const events::OperatorCommand& command, bool quiet) {
    auto& st = self->state;
    EventBatch made;
    for (const uint64_t id : command.action_ids) {
        auto it = st.inflight.find(id);
        if (it == st.inflight.end()) continue;
        if (st.port && !quiet) st.port->cancel(it->second.action);
        made.push_back(made_event(st, events::ActionCancelled{
                                          id, command.reason.empty() ? "cancelled by operator"
                                                                     : command.reason}));
        ended_unfinished(st, it->second);
        st.inflight.erase(it);
    }
    record(self, std::move(made), quiet);
}

}  // namespace

caf::behavior executor_actor(caf::stateful_actor<ExecutorState>* self, AdminPort* port,
                             caf::actor journal, ExecutorView view, ExecutorSettings settings,
                             uint64_t quiet_until_seq,
                             std::function<void(const events::Event&)> on_decision, InFlight* in_flight) {
    end_with_exception_text(self);
    auto& st = self->state;
    st.in_flight = in_flight;
    st.quiet_until_seq = quiet_until_seq;
    st.port = port;
    st.journal = std::move(journal);
    st.settings = settings;
    st.on_decision = std::move(on_decision);
    st.last_batch_ms = view.last_batch_ms;
    st.leading = view.leading;
    st.backoff = view.backoff;
    st.now_ms = view.now_ms;
    for (TrackedAction& tracked : view.inflight) {
        const uint64_t id = tracked.action.action_id;
        st.inflight.emplace(id, std::move(tracked));
    }
    note_in_flight(st);
    return {
        [=](execute_atom, const DecisionPtr& decision) { execute(self, *decision); },
        [=](control_atom, const EventPtr& event) {
            auto& st = self->state;
            const bool quiet = event->seq <= st.quiet_until_seq;
            if (const auto* tick = std::get_if<events::Tick>(&event->body)) {
                st.now_ms = std::max(st.now_ms, tick->now_ms);
                on_tick(self, quiet);
                // Old failures are forgotten (bounded memory).
                for (auto it = st.backoff.begin(); it != st.backoff.end();) {
                    it = st.now_ms - it->second.last_failed_ms > st.settings.backoff_memory_ms ? st.backoff.erase(it)
                                                                                              : std::next(it);
                }
            } else if (const auto* done = std::get_if<events::ActionCompleted>(&event->body)) {
                if (auto it = st.inflight.find(done->action_id); it != st.inflight.end()) {
                    for (const uint32_t slot : it->second.partition_slots) st.backoff.erase(slot);
                    st.inflight.erase(it);
                }
            } else if (const auto* failed = std::get_if<events::ActionFailed>(&event->body)) {
                on_failed(self, *failed);
            } else if (const auto* command = std::get_if<events::OperatorCommand>(&event->body)) {
                if (command->command == events::CommandKind::cancel_actions) {
                    on_cancel(self, *command, quiet);
                }
            } else if (std::holds_alternative<events::LeadershipAcquired>(event->body)) {
                st.leading = true;
            }
            note_in_flight(st);
        },
        [=](control_atom, const ExecutorSettings& settings) { self->state.settings = settings; },
        // Barrier and snapshot: the state as of everything routed so far.
        [=](barrier_atom) -> ExecutorViewPtr {
            auto view = std::make_shared<ExecutorView>();
            for (const auto& [id, tracked] : self->state.inflight) view->inflight.push_back(tracked);
            view->last_batch_ms = self->state.last_batch_ms;
            view->leading = self->state.leading;
            view->backoff = self->state.backoff;
            view->now_ms = self->state.now_ms;
            return view;
        },
        // After recovery: every action in flight whose retry is not pending
        // is handed to the port to follow, never submitted again. Its intent
        // is in the journal; whether the admin call was made before the
        // restart is the cluster's to say. The port reports what it finds:
        // running (followed to its outcome), done (completed), or neither
        // (failed as not started, and the planner decides again from the
        // partition's current replicas; a stale target is never resubmitted).
        // Nothing of `tracked` changes: the executor's state stays what the
        // journal's inputs make it (a recovery from this journal never sees
        // this step).
        [=](adopt_atom) {
            auto& st = self->state;
            if (!st.port || !st.leading) return;
            for (const auto& [id, tracked] : st.inflight) {
                if (tracked.next_retry_ms < 0) st.port->adopt(tracked.action, tracked.attempt);
            }
        },
        // Idle once every intent made so far is journaled and its admin call made.
        [=](idle_atom) -> caf::result<bool> {
            auto& st = self->state;
            if (st.intents_unconfirmed == 0) return true;
            st.idle_waiters.push_back(self->make_response_promise());
            return st.idle_waiters.back();
        },
    };
}

}  // namespace ballast::actors
