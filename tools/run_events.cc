#include "tools/run_events.h"

#include <spdlog/spdlog.h>

#include "events/event_check.h"
#include "tools/driver/text_format.h"

namespace ballast::tools {

std::string RunLog::describe(uint64_t action_id) {
    auto it = _actions.find(action_id);
    return it == _actions.end() ? "(planned before this journal's oldest record)" : it->second;
}

void RunLog::set_recovering(bool recovering) {
    std::lock_guard<std::mutex> lock(_mutex);
    if (_recovering && !recovering && _replayed_rounds + _replayed_submissions > 0) {
        spdlog::info("start: {} rounds ({} actions) and {} submissions made again from the journal, none submitted "
                     "again (what was in flight is adopted)",
                     _replayed_rounds, _replayed_actions, _replayed_submissions);
    }
    _replayed_rounds = _replayed_actions = _replayed_submissions = 0;
    _recovering = recovering;
}

void RunLog::decision(const events::Event& e) {
    std::lock_guard<std::mutex> lock(_mutex);
    // During Engine::start decisions are made again from the journal: they
    // happened before the restart, and an operator reading the log must not
    // take them for new ones.
    const bool replayed = _recovering;
    const char* recovered = replayed ? " (during start: replayed)" : "";
    const spdlog::level::level_enum level = replayed ? spdlog::level::debug : spdlog::level::info;
    if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
        _replayed_rounds += replayed;
        _replayed_actions += replayed ? plan->actions.size() : 0;
        for (const events::Action& a : plan->actions) {
            _actions[a.action_id] = driver::describe_action(a);
            spdlog::log(level, "round {}: planned action {}: {}{}", plan->round, a.action_id, _actions[a.action_id],
                        recovered);
        }
        for (const events::HeldAction& h : plan->held) {
            spdlog::debug("round {}: held {}: {}", plan->round, driver::describe_action(h.action), h.reason);
        }
    } else if (const auto* s = std::get_if<events::ActionSubmitted>(&e.body)) {
        _replayed_submissions += replayed;
        spdlog::log(level, "submitted action {} (attempt {}): {}{}", s->action_id, s->attempt, describe(s->action_id),
                    recovered);
    } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
        spdlog::warn("action {} timed out after {} ms and was cancelled: {}{}", t->action_id, t->timeout_ms,
                     describe(t->action_id), recovered);
        _actions.erase(t->action_id);
    } else if (const auto* c = std::get_if<events::ActionCancelled>(&e.body)) {
        spdlog::info("action {} cancelled ({}): {}{}", c->action_id, c->reason, describe(c->action_id), recovered);
        _actions.erase(c->action_id);
    }
}

void RunLog::outcome(const events::Event& e) {
    std::lock_guard<std::mutex> lock(_mutex);
    if (const auto* done = std::get_if<events::ActionCompleted>(&e.body)) {
        spdlog::info("completed action {}: {}", done->action_id, describe(done->action_id));
        _actions.erase(done->action_id);
    } else if (const auto* failed = std::get_if<events::ActionFailed>(&e.body)) {
        spdlog::warn("action {} failed (attempt {}): {} ({}): {}; {}: {}", failed->action_id, failed->attempt,
                     failed->error_name, failed->error_code, failed->message,
                     failed->retriable ? "retriable" : "not retriable", describe(failed->action_id));
    }
}

void RunLog::retention(const store::RetentionReport& report) {
    spdlog::info("journal retention: deleted {} events and {} snapshots, the journal now starts at seq {} "
                 "(cut by {}; estimated {} -> {})",
                 report.events_deleted, report.snapshots_deleted, report.first_seq_after,
                 store::retention_bound_name(report.cut_by), driver::format_bytes(report.estimated_bytes_before),
                 driver::format_bytes(report.estimated_bytes_after));
}

void EngineFeed::feed(std::vector<events::Event> batch) {
    // An adapter's bad event (a sample past its report's topics, a rate that
    // is not a number) is refused alone and named; the rest of its batch and
    // the run go on, and the next poll or report brings fresh state.
    std::erase_if(batch, [](const events::Event& e) {
        events::Status valid = events::check(e);
        if (!valid) spdlog::error("refused an event from the cluster (not journaled): {}", valid.error().message);
        return !valid;
    });
    if (batch.empty()) return;
    for (const events::Event& e : batch) {
        if (e.source == events::Source::kafka_admin) _log->outcome(e);
    }
    std::lock_guard<std::mutex> lock(_mutex);
    if (_stopped || _failed) return;
    if (_engine == nullptr) {
        if (_waiting.size() + batch.size() > waiting_max) {
            spdlog::error("{} events arrived before the engine started; dropping {}", _waiting.size(), batch.size());
            return;
        }
        for (events::Event& e : batch) _waiting.push_back(std::move(e));
        return;
    }
    // Under the lock: feeds from different threads reach the journal in the order they were made.
    if (events::Status fed = _engine->feed(std::move(batch)); !fed) {
        _failure = fed.error().to_string();
        _failed = true;
        spdlog::critical("the engine refused events: {}", _failure);
    }
}

void EngineFeed::wait_for_engine() {
    std::lock_guard<std::mutex> lock(_mutex);
    _engine = nullptr;
    _stopped = false;
    _failed = false;
    _waiting.clear();
}

void EngineFeed::set_engine(actors::Engine* engine) {
    std::lock_guard<std::mutex> lock(_mutex);
    _engine = engine;
    if (engine == nullptr) {
        _stopped = true;
        return;
    }
    if (_waiting.empty()) return;
    if (events::Status fed = _engine->feed(std::move(_waiting)); !fed) {
        _failure = fed.error().to_string();
        _failed = true;
        spdlog::critical("the engine refused events: {}", _failure);
    }
    _waiting.clear();
}

}  // namespace ballast::tools
