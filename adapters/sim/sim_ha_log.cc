#include "adapters/sim/sim_ha_log.h"

#include <algorithm>

namespace ballast::sim {

using events::ErrorCode;
using events::make_error;

class SimHaLog::Writer : public actors::JournalReplica {
public:
    Writer(SimHaLog& log, std::string member, uint64_t epoch) : _log(log), _member(std::move(member)), _epoch(epoch) {}
    events::Status publish(const std::vector<store::ShippedRun>& runs) override {
        return _log.publish(_member, _epoch, runs);
    }
    events::Status publish_snapshot(uint64_t seq, std::span<const uint8_t> bytes) override {
        if (!_log.is_current_writer(_member, _epoch)) {
            _log._fenced++;
            return make_error(ErrorCode::conflict, "fenced: another instance became the journal's writer");
        }
        _log._snapshots.push_back({seq, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())});
        _log._members[_member].last_commit_ms = _log._now_ms;
        return {};
    }
    bool may_act() const override {
        const MemberState& m = _log._members.at(_member);
        return m.last_commit_ms >= 0 && _log._now_ms - m.last_commit_ms < _log._settings.lease_ms;
    }

private:
    SimHaLog& _log;
    std::string _member;
    uint64_t _epoch;
};

class SimHaLog::Member : public actors::HaLog {
public:
    Member(SimHaLog& log, std::string name) : _log(log), _name(std::move(name)) {}
    bool elected() override { return _log._members[_name].sees_elected; }
    events::Status become_writer() override {
        const uint64_t epoch = ++_log._writer_epoch;
        _log._writer_member = _name;
        MemberState& m = _log._members[_name];
        m.epoch = epoch;
        m.last_commit_ms = _log._now_ms;
        _writer = std::make_unique<Writer>(_log, _name, epoch);
        return {};
    }
    actors::JournalReplica* writer() override { return _writer.get(); }
    void drop_writer() override {
        _writer.reset();
        _log._members[_name].epoch = 0;
    }
    events::Status seek_after(uint64_t seq) override {
        _after = seq;
        return {};
    }
    events::Result<std::vector<store::ShippedRun>> read(int64_t) override {
        std::vector<store::ShippedRun> out;
        for (const store::ShippedRun& run : _log._runs) {
            auto bounds = store::shipped_run_bounds(run);
            if (bounds && bounds->second > _after) out.push_back(run);
        }
        if (!out.empty()) _after = _log._last_seq;
        return out;
    }
    events::Result<bool> caught_up() override { return _after >= _log._last_seq; }
    events::Result<std::optional<store::Snapshot>> newest_snapshot() override {
        if (_log._snapshots.empty()) return std::optional<store::Snapshot>();
        return std::optional<store::Snapshot>(_log._snapshots.back());
    }
    events::Result<uint64_t> first_seq() override { return _log._first_seq; }

private:
    SimHaLog& _log;
    std::string _name;
    std::unique_ptr<Writer> _writer;
    uint64_t _after = 0;
};

SimHaLog::SimHaLog(SimHaSettings settings) : _settings(settings) {}
SimHaLog::~SimHaLog() = default;

void SimHaLog::set_now(int64_t now_ms) {
    _now_ms = std::max(_now_ms, now_ms);
    elect();
}

std::unique_ptr<actors::HaLog> SimHaLog::join(const std::string& member) {
    if (std::find(_order.begin(), _order.end(), member) == _order.end()) _order.push_back(member);
    MemberState& m = _members[member];
    if (_holder == member) {
        // A new incarnation of the holder: the old session holds the
        // partition until it times out, then the group rebalances.
        _holder.clear();
        _vacant_since_ms = m.last_heartbeat_ms + _settings.session_timeout_ms;
    }
    m.joined = true;
    m.sees_elected = false;
    m.last_heartbeat_ms = _now_ms;
    elect();
    return std::make_unique<Member>(*this, member);
}

void SimHaLog::heartbeat(const std::string& member) {
    auto it = _members.find(member);
    if (it == _members.end() || !it->second.joined) return;
    it->second.last_heartbeat_ms = _now_ms;
    elect();
}

void SimHaLog::poll(const std::string& member) {
    auto it = _members.find(member);
    if (it == _members.end()) return;
    it->second.sees_elected = it->second.joined && _holder == member;
}

void SimHaLog::leave(const std::string& member) {
    auto it = _members.find(member);
    if (it == _members.end()) return;
    it->second.joined = false;
    it->second.sees_elected = false;
    if (_holder == member) {
        _holder.clear();
        _vacant_since_ms = _now_ms;
    }
    elect();
}

void SimHaLog::elect() {
    if (!_holder.empty()) {
        const MemberState& h = _members[_holder];
        if (h.joined && _now_ms - h.last_heartbeat_ms <= _settings.session_timeout_ms) return;
        _vacant_since_ms = h.joined ? h.last_heartbeat_ms + _settings.session_timeout_ms : _now_ms;
        _holder.clear();
    }
    if (_now_ms < _vacant_since_ms + _settings.rebalance_ms) return;
    for (const std::string& name : _order) {
        const MemberState& m = _members[name];
        if (m.joined && _now_ms - m.last_heartbeat_ms <= _settings.session_timeout_ms) {
            _holder = name;
            return;
        }
    }
}

uint64_t SimHaLog::epoch_of(const std::string& member) const {
    auto it = _members.find(member);
    return it == _members.end() ? 0 : it->second.epoch;
}

events::Status SimHaLog::publish(const std::string& member, uint64_t epoch,
                                 const std::vector<store::ShippedRun>& runs) {
    if (!is_current_writer(member, epoch)) {
        _fenced++;
        return make_error(ErrorCode::conflict, "fenced: another instance became the journal's writer");
    }
    // Checked as a reader would check them; a run that does not continue the
    // log would be a bug in the writer, refused here before any is kept.
    uint64_t last = _last_seq;
    std::vector<std::tuple<uint64_t, uint32_t, uint64_t>> intents;
    for (const store::ShippedRun& run : runs) {
        events::Result<std::vector<events::Event>> decoded = store::decode_shipped_run(run);
        if (!decoded) return decoded.error();
        if (decoded->empty() || decoded->front().seq != last + 1) {
            return make_error(ErrorCode::conflict, "simulated log: a run from seq " +
                                                       std::to_string(decoded->empty() ? 0 : decoded->front().seq) +
                                                       " does not continue seq " + std::to_string(last));
        }
        for (const events::Event& e : *decoded) {
            if (const auto* s = std::get_if<events::ActionSubmitted>(&e.body)) {
                intents.emplace_back(s->action_id, s->attempt, epoch);
            }
        }
        last = decoded->back().seq;
    }
    for (const store::ShippedRun& run : runs) _runs.push_back(run);
    if (_first_seq == 0 && !runs.empty()) _first_seq = _last_seq + 1;
    _last_seq = last;
    _intents.insert(intents.begin(), intents.end());
    _members[member].last_commit_ms = _now_ms;
    return {};
}

void SimHaLog::retain_from_snapshot_at_or_before(uint64_t seq) {
    const store::Snapshot* base = nullptr;
    for (const store::Snapshot& s : _snapshots) {
        if (s.seq <= seq) base = &s;
    }
    if (!base) return;
    const uint64_t cut = base->seq;
    std::vector<store::ShippedRun> kept;
    for (store::ShippedRun& run : _runs) {
        auto bounds = store::shipped_run_bounds(run);
        if (bounds && bounds->second > cut) kept.push_back(std::move(run));
    }
    _runs = std::move(kept);
    if (!_runs.empty()) {
        _first_seq = store::shipped_run_bounds(_runs.front())->first;
    } else {
        _first_seq = cut + 1;
    }
}

}  // namespace ballast::sim
