#include "actors/ha_node.h"

#include <filesystem>

#include <spdlog/spdlog.h>

namespace ballast::actors {

using events::ErrorCode;
using events::make_error;

const char* ha_role_name(HaRole role) { return role == HaRole::leader ? "leader" : "standby"; }

/// The cluster port as a leader may use it: each call passes the lease and
/// the election first, and is dropped (counted, and the node steps down at
/// its next step) when either says no. A dropped submission's intent is in
/// the log; the next leader adopts it and finds it never started.
class HaNode::LeasedPort : public AdminPort {
public:
    LeasedPort(AdminPort* inner, JournalReplica* replica, HaLog* log) : _inner(inner), _replica(replica), _log(log) {}
    void attach(EventSink sink) override { _inner->attach(std::move(sink)); }
    void submit(const events::Action& action, uint32_t attempt) override {
        if (may_act()) _inner->submit(action, attempt);
    }
    void cancel(const events::Action& action) override {
        if (may_act()) _inner->cancel(action);
    }
    void adopt(const events::Action& action, uint32_t attempt) override {
        if (may_act()) _inner->adopt(action, attempt);
    }
    /// Why calls are refused; empty while they are not.
    std::string lost() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _lost;
    }
    uint64_t refused() const { return _refused.load(); }

private:
    bool may_act() {
        std::lock_guard<std::mutex> lock(_mutex);
        if (_lost.empty()) {
            if (!_replica->may_act()) {
                _lost = "its lease ran out (no publication committed recently enough): another instance may lead";
            } else if (!_log->elected()) {
                _lost = "the election names another instance";
            }
        }
        if (_lost.empty()) return true;
        _refused.fetch_add(1);
        return false;
    }
    AdminPort* _inner;
    JournalReplica* _replica;
    HaLog* _log;
    mutable std::mutex _mutex;
    std::string _lost;
    std::atomic<uint64_t> _refused{0};
};

/// A standby's rounds against the leader's, by the seq of their barrier:
/// the same actions, reasons and time, or a divergence. The leader's
/// decision is read from the log after the standby made its own, or before.
class HaNode::DecisionMatch {
public:
    void leader(const events::Event& e) { add(e, _leader, _standby); }
    void standby(const events::Event& e) { add(e, _standby, _leader); }
    uint64_t matched() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _matched;
    }
    uint64_t diverged() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _diverged;
    }
    std::string first_divergence() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _first_divergence;
    }

private:
    /// Rounds waiting for their other half; the oldest go once this many wait
    /// (a standby that joined from a snapshot never makes the leader's
    /// earlier rounds).
    static constexpr size_t waiting_max = 4096;

    void add(const events::Event& e, std::map<uint64_t, events::Event>& mine,
             std::map<uint64_t, events::Event>& theirs) {
        const auto* plan = std::get_if<events::ActionsPlanned>(&e.body);
        if (!plan) return;
        std::lock_guard<std::mutex> lock(_mutex);
        auto other = theirs.find(plan->barrier_seq);
        if (other == theirs.end()) {
            mine[plan->barrier_seq] = e;
            if (mine.size() > waiting_max) mine.erase(mine.begin());
            return;
        }
        if (other->second.body == e.body && other->second.time_ms == e.time_ms) {
            _matched++;
        } else {
            _diverged++;
            if (_first_divergence.empty()) {
                _first_divergence = "the round at barrier seq " + std::to_string(plan->barrier_seq) +
                                    " was decided differently by the standby";
                spdlog::error("standby: {}", _first_divergence);
            }
        }
        theirs.erase(other);
    }

    mutable std::mutex _mutex;
    std::map<uint64_t, events::Event> _leader;
    std::map<uint64_t, events::Event> _standby;
    uint64_t _matched = 0;
    uint64_t _diverged = 0;
    std::string _first_divergence;
};

events::Result<std::unique_ptr<HaNode>> HaNode::start(HaNodeOptions options) {
    if (!options.log) return make_error(ErrorCode::invalid_argument, "high availability needs a log");
    if (options.engine.journal_path.empty()) {
        return make_error(ErrorCode::invalid_argument, "high availability needs a journal directory");
    }
    std::unique_ptr<HaNode> node(new HaNode());
    node->_options = std::move(options);
    node->_match = std::make_shared<DecisionMatch>();
    if (events::Status opened = node->open_standby(); !opened) return opened.error();
    return node;
}

HaNode::~HaNode() {
    if (_engine) _engine->stop();
}

events::Status HaNode::open_standby() {
    const std::string& path = _options.engine.journal_path;
    HaLog& log = *_options.log;
    // The journal must continue the log: an empty one, or one the log's
    // retention has passed, starts from the log's newest snapshot.
    {
        store::JournalOptions journal_options;
        journal_options.sync = _options.engine.config.get_bool("ballast.journal.sync");
        journal_options.env = _options.engine.journal_env;
        events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, journal_options);
        if (!journal) return journal.error();
        events::Result<uint64_t> log_first = log.first_seq();
        if (!log_first) return log_first.error();
        const uint64_t last = (*journal)->last_seq();
        if (*log_first > last + 1) {
            events::Result<std::optional<store::Snapshot>> snapshot = log.newest_snapshot();
            if (!snapshot) return snapshot.error();
            if (!snapshot->has_value() || (*snapshot)->seq + 1 < *log_first) {
                return make_error(ErrorCode::not_found,
                                  "the journal's log starts at seq " + std::to_string(*log_first) +
                                      " and holds no snapshot to start from before it; this instance's journal " +
                                      path + " ends at seq " + std::to_string(last));
            }
            if (last > 0 || (*journal)->first_seq() > 1) {
                // Kept beside it, never deleted: the log has moved on past it.
                journal->reset();
                const std::string aside = path + ".behind-" + std::to_string(last);
                std::error_code renamed;
                std::filesystem::rename(path, aside, renamed);
                if (renamed) {
                    return make_error(ErrorCode::io_error, "moving the journal " + path + " (ending at seq " +
                                                               std::to_string(last) + ", behind the log's first seq " +
                                                               std::to_string(*log_first) + ") aside to " + aside +
                                                               ": " + renamed.message());
                }
                spdlog::warn("journal {} ended at seq {}, before the log's first seq {}: kept at {}, starting "
                             "again from the log's snapshot at seq {}",
                             path, last, *log_first, aside, (*snapshot)->seq);
                journal = store::Journal::open(path, journal_options);
                if (!journal) return journal.error();
            }
            const std::string& bytes = (*snapshot)->bytes;
            if (events::Status seeded = (*journal)->seed_snapshot(
                    (*snapshot)->seq, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
                !seeded) {
                return seeded;
            }
            spdlog::info("standby: joined from the log's snapshot at seq {}", (*snapshot)->seq);
        }
    }
    EngineOptions o = _options.engine;
    o.port = nullptr;
    o.replica = nullptr;
    o.lead = false;
    o.follow = true;
    o.instance_id = _options.instance_id;
    std::shared_ptr<DecisionMatch> match = _match;
    o.on_decision = [match](const events::Event& e) { match->standby(e); };
    o.on_followed = [match](const events::Event& e) { match->leader(e); };
    events::Result<std::unique_ptr<Engine>> started = Engine::start(std::move(o));
    if (!started) return started.error();
    _engine = std::move(*started);
    _role = HaRole::standby;
    _epoch = 0;
    return log.seek_after(_engine->journal()->last_seq());
}

events::Status HaNode::follow_until_caught_up() {
    HaLog& log = *_options.log;
    for (;;) {
        events::Result<std::vector<store::ShippedRun>> runs = log.read(0);
        if (!runs) return runs.error();
        if (!runs->empty()) {
            if (events::Status followed = _engine->follow(std::move(*runs)); !followed) return followed;
            continue;
        }
        events::Result<bool> caught_up = log.caught_up();
        if (!caught_up) return caught_up.error();
        if (*caught_up) return _engine->wait_idle();
        runs = log.read(_options.read_wait_ms);
        if (!runs) return runs.error();
        if (!runs->empty()) {
            if (events::Status followed = _engine->follow(std::move(*runs)); !followed) return followed;
        }
    }
}

events::Status HaNode::promote() {
    HaLog& log = *_options.log;
    // Everything committed, then the fence, then what the old writer
    // committed before it.
    if (events::Status caught = follow_until_caught_up(); !caught) return caught;
    if (events::Status fenced = log.become_writer(); !fenced) return fenced;
    if (events::Status caught = follow_until_caught_up(); !caught) {
        log.drop_writer();
        return caught;
    }
    _engine->stop();
    _engine.reset();

    JournalReplica* replica = log.writer();
    _port = std::make_unique<LeasedPort>(_options.engine.port, replica, &log);
    EngineOptions o = _options.engine;
    o.port = _options.engine.port ? _port.get() : nullptr;
    o.replica = replica;
    o.follow = false;
    o.lead = true;
    o.instance_id = _options.instance_id;
    // The epoch is the seq of this leadership's events: the engine journals
    // its configuration and LeadershipAcquired right after what it holds.
    if (_options.before_lead) _options.before_lead();
    events::Result<std::unique_ptr<Engine>> started = Engine::start(std::move(o));
    if (!started) {
        if (_options.on_lead_lost) _options.on_lead_lost("the leader's engine did not start: " + started.error().message);
        log.drop_writer();
        if (events::Status reopened = open_standby(); !reopened) return reopened;
        return started.error();
    }
    _engine = std::move(*started);
    _epoch = static_cast<int64_t>(_engine->recovered_seq() + 1);
    _role = HaRole::leader;
    _promotions++;
    spdlog::info("{}: leading, epoch {} (journal at seq {})", _options.instance_id, _epoch,
                 _engine->journal()->last_seq());
    if (_options.on_lead) _options.on_lead(*_engine);
    return {};
}

events::Status HaNode::step_down(const std::string& why) {
    spdlog::warn("{}: stepping down: {}", _options.instance_id, why);
    if (_options.on_lead_lost) _options.on_lead_lost(why);
    _engine->stop();
    _engine.reset();
    _options.log->drop_writer();
    _calls_refused += _port->refused();
    _port.reset();
    _demotions++;
    _last_demotion = why;
    return open_standby();
}

events::Status HaNode::step() {
    // A standby that could not open (the log unreachable, say) tries again.
    if (!_engine) return open_standby();
    HaLog& log = *_options.log;
    if (_role == HaRole::leader) {
        if (events::Status health = _engine->health(); !health) return step_down(health.error().message);
        if (std::string lost = _port->lost(); !lost.empty()) return step_down(lost);
        if (!log.elected()) return step_down("the election names another instance");
        return {};
    }
    if (events::Status health = _engine->health(); !health) {
        // A run that does not continue the journal, a damaged record: start
        // again from the journal, which holds what was checked.
        spdlog::error("{}: standby stopped ({}); following again from its journal", _options.instance_id,
                      health.error().message);
        _engine->stop();
        _engine.reset();
        return open_standby();
    }
    if (log.elected()) {
        if (events::Status promoted = promote(); !promoted) {
            spdlog::warn("{}: promotion failed: {}", _options.instance_id, promoted.error().message);
            if (_role == HaRole::leader || !_engine) return promoted;
        }
        return {};
    }
    events::Result<std::vector<store::ShippedRun>> runs = log.read(_options.read_wait_ms);
    if (!runs) {
        spdlog::warn("{}: reading the journal's log: {}", _options.instance_id, runs.error().message);
        return {};
    }
    if (runs->empty()) return {};
    if (events::Status followed = _engine->follow(std::move(*runs)); !followed) {
        // A gap (the log's retention passed this standby before it read what
        // it needed) or a damaged run: the next step follows again from the
        // journal, or from the log's snapshot when the log has moved past it.
        spdlog::warn("{}: {}", _options.instance_id, followed.error().message);
    }
    return {};
}

events::Status HaNode::stop() {
    if (!_engine) return {};
    events::Status idle;
    if (_role == HaRole::leader) {
        if (_options.on_lead_lost) _options.on_lead_lost("stopping");
        idle = _engine->wait_idle();
    }
    _engine->stop();
    _engine.reset();
    _options.log->drop_writer();
    if (_port) _calls_refused += _port->refused();
    _port.reset();
    return idle;
}

void HaNode::abandon() {
    if (!_engine) return;
    (void)_engine->abandon();
    _engine.reset();
    _port.reset();
}

HaStatus HaNode::status() const {
    HaStatus s;
    s.role = _role;
    s.epoch = _role == HaRole::leader ? _epoch : 0;
    s.journal_seq = _engine && _engine->journal() ? _engine->journal()->last_seq() : 0;
    s.decisions_matched = _match->matched();
    s.decisions_diverged = _match->diverged();
    s.first_divergence = _match->first_divergence();
    s.promotions = _promotions;
    s.demotions = _demotions;
    s.last_demotion = _last_demotion;
    s.calls_refused = _calls_refused + (_port ? _port->refused() : 0);
    return s;
}

}  // namespace ballast::actors
