#include "tools/driver/ha_sim.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "actors/ha_node.h"
#include "store/journal.h"

namespace ballast::driver {

namespace {

using events::ErrorCode;
using events::make_error;

/// One instance's way to the cluster: checks each call against the log's
/// promises, then hands it to the cluster's port.
class CheckedPort : public actors::AdminPort {
public:
    CheckedPort(std::string name, actors::AdminPort& cluster, sim::SimHaLog& log, HaSimSummary& summary,
                std::set<std::pair<uint64_t, uint32_t>>& submitted)
        : _name(std::move(name)), _cluster(cluster), _log(log), _summary(summary), _submitted(submitted) {}
    void attach(actors::EventSink sink) override { _cluster.attach(std::move(sink)); }
    void submit(const events::Action& action, uint32_t attempt) override {
        _summary.submissions++;
        const uint64_t epoch = _log.epoch_of(_name);
        const std::string what = _name + " submitted action " + std::to_string(action.action_id) + " attempt " +
                                 std::to_string(attempt) + " at t+" + std::to_string(_log.now_ms()) + " ms";
        if (!_log.is_current_writer(_name, epoch)) {
            _summary.violations.push_back(what + " while not the log's writer (its epoch " + std::to_string(epoch) +
                                          ", the writer's " + std::to_string(_log.writer_epoch()) + ", " +
                                          _log.writer() + ")");
        }
        if (!_log.intent_committed(action.action_id, attempt, epoch)) {
            _summary.violations.push_back(what + " with no intent committed in its epoch " + std::to_string(epoch));
        }
        if (!_submitted.insert({action.action_id, attempt}).second) {
            _summary.violations.push_back(what + ": submitted before");
        }
        _cluster.submit(action, attempt);
    }
    void cancel(const events::Action& action) override { _cluster.cancel(action); }
    void adopt(const events::Action& action, uint32_t attempt) override { _cluster.adopt(action, attempt); }

private:
    std::string _name;
    actors::AdminPort& _cluster;
    sim::SimHaLog& _log;
    HaSimSummary& _summary;
    std::set<std::pair<uint64_t, uint32_t>>& _submitted;
};

struct Instance {
    std::string name;
    std::string journal_path;
    std::unique_ptr<actors::HaLog> view;
    std::unique_ptr<CheckedPort> port;
    std::unique_ptr<actors::HaNode> node;
    int64_t down_until_ms = -1;    // killed or stopped: started again then (-1: running)
    int64_t paused_until_ms = -1;  // paused: resumed then
    int64_t pausing_since_ms = -1;  // to be paused at its next admin call after an intent
    bool joined_late = false;
};

}  // namespace

events::Result<HaSimSummary> run_ha_simulation(const HaSimOptions& options) {
    const sim::Scenario& scenario = options.scenario;
    const int64_t until_ms = options.until_ms >= 0 ? options.until_ms : scenario.duration_ms;
    sim::SimCluster cluster(scenario);
    sim::SimHaLog log(options.ha);
    HaSimSummary summary;
    std::set<std::pair<uint64_t, uint32_t>> submitted;
    std::mt19937_64 random(scenario.seed ^ 0x4a11'0000'0000'0000ULL);

    std::vector<Instance> instances(options.instances);
    // Events that reach no leader (none, or one being replaced) are not
    // fed again: each new leader is told the cluster's state instead, as a
    // poller that starts reports it (on_lead).
    auto start_instance = [&](Instance& in) -> events::Status {
        in.view = log.join(in.name);
        in.port = std::make_unique<CheckedPort>(in.name, cluster.port(), log, summary, submitted);
        actors::HaNodeOptions o;
        o.instance_id = in.name;
        o.log = in.view.get();
        o.engine.config = options.config;
        o.engine.journal_path = in.journal_path;
        o.engine.port = in.port.get();
        o.engine.threads = 0;
        o.on_lead = [&](actors::Engine& engine) {
            std::vector<events::Event> state = cluster.resync();
            for (events::Event& e : state) e = store::as_journaled(std::move(e));
            if (engine.feed(std::move(state))) (void)engine.wait_idle();
        };
        events::Result<std::unique_ptr<actors::HaNode>> node = actors::HaNode::start(std::move(o));
        if (!node) return make_error(node.error().code, in.name + ": " + node.error().message);
        in.node = std::move(*node);
        in.down_until_ms = -1;
        in.paused_until_ms = -1;
        return {};
    };
    auto gather = [&](Instance& in) {
        if (!in.node) return;
        const actors::HaStatus s = in.node->status();
        summary.promotions += s.promotions;
        summary.demotions += s.demotions;
        summary.calls_refused += s.calls_refused;
        summary.decisions_matched += s.decisions_matched;
        if (s.decisions_diverged > 0) {
            summary.violations.push_back(in.name + ": " + std::to_string(s.decisions_diverged) +
                                         " rounds decided differently than the leader (first: " +
                                         s.first_divergence + ")");
        }
    };

    // The last instance joins late, with an empty journal, after the log's
    // retention: it starts from a snapshot in the log.
    const int64_t late_join_ms = until_ms / 3 + static_cast<int64_t>(random() % static_cast<uint64_t>(until_ms / 3));
    for (uint32_t i = 0; i < options.instances; i++) {
        Instance& in = instances[i];
        in.name = "ballast-" + std::to_string(i + 1);
        in.journal_path = (std::filesystem::path(options.dir) / in.name).string();
        if (i + 1 == options.instances && options.instances >= 3) {
            in.joined_late = true;
            in.down_until_ms = late_join_ms;
            continue;
        }
        if (events::Status started = start_instance(in); !started) return started.error();
    }

    // Faults on the leader, at times drawn from the seed, in the middle
    // third to two thirds of the run: the end is quiet, so it settles.
    struct Fault {
        int64_t at_ms;
        int kind;  // 0 kill, 1 pause, 2 handover
    };
    std::vector<Fault> faults;
    const int64_t fault_from = 60'000;
    const int64_t fault_to = std::max<int64_t>(fault_from + 1, until_ms * 2 / 3);
    for (int i = 0; i < 6; i++) {
        faults.push_back({fault_from + static_cast<int64_t>(random() % static_cast<uint64_t>(fault_to - fault_from)),
                          static_cast<int>(random() % 3)});
    }
    // And a pause early, while the first rounds move partitions: most of a
    // run's admin calls come then.
    faults.push_back({5'000 + static_cast<int64_t>(random() % 25'000), 1});
    std::sort(faults.begin(), faults.end(), [](const Fault& a, const Fault& b) { return a.at_ms < b.at_ms; });
    size_t next_fault = 0;

    auto leader = [&]() -> Instance* {
        for (Instance& in : instances) {
            if (in.node && in.paused_until_ms < 0 && in.node->role() == actors::HaRole::leader) return &in;
        }
        return nullptr;
    };

    (void)cluster.start();  // the first leader is told the cluster's state when it leads
    for (int64_t now_ms = scenario.tick_interval_ms; now_ms <= until_ms; now_ms += scenario.tick_interval_ms) {
        log.set_now(now_ms);
        // Faults due now, on whoever leads.
        while (next_fault < faults.size() && faults[next_fault].at_ms <= now_ms) {
            const int kind = faults[next_fault++].kind;
            Instance* target = leader();
            if (!target) continue;
            if (kind == 0) {
                gather(*target);
                target->node->abandon();  // a kill: its session times out on its own
                target->node.reset();
                target->down_until_ms = now_ms + 2'000 + static_cast<int64_t>(random() % 20'000);
                summary.kills++;
            } else if (kind == 1) {
                // Paused right after an intent was committed and before its
                // admin call, when the engine next gets there: the one call
                // only the lease stops once another instance leads.
                target->node->engine()->crash_at(actors::CrashKind::between_intent_and_submit, 1 + random() % 4);
                target->pausing_since_ms = now_ms;
                summary.pauses++;
            } else {
                gather(*target);
                (void)target->node->stop();
                target->node.reset();
                log.leave(target->name);
                target->down_until_ms = now_ms + 1'000 + static_cast<int64_t>(random() % 10'000);
                summary.handovers++;
            }
        }
        // Instances coming back: restarted, or (once) joining late.
        for (Instance& in : instances) {
            if (in.node || in.down_until_ms < 0 || now_ms < in.down_until_ms) continue;
            if (in.joined_late) {
                in.joined_late = false;
                log.retain_from_snapshot_at_or_before(log.last_seq());
                summary.late_joins++;
            }
            if (events::Status started = start_instance(in); !started) {
                return make_error(started.error().code, "at t+" + std::to_string(now_ms) + " ms: " +
                                                            started.error().message);
            }
        }
        // The cluster moves on; whoever leads hears it. A resumed zombie
        // hears it too, before it polls the election: its sources never stopped.
        std::vector<events::Event> fed = cluster.advance(now_ms);
        for (events::Event& e : fed) e = store::as_journaled(std::move(e));
        for (Instance& in : instances) {
            if (!in.node || in.paused_until_ms < 0 || now_ms < in.paused_until_ms) continue;
            in.paused_until_ms = -1;
            if (in.node->role() == actors::HaRole::leader) {
                actors::Engine* engine = in.node->engine();
                engine->resume();  // the admin call it was about to make
                if (engine->feed(fed)) (void)engine->wait_idle();
            }
        }
        for (Instance& in : instances) {
            if (!in.node || in.paused_until_ms >= 0) continue;
            log.heartbeat(in.name);
        }
        log.set_now(now_ms);
        if (Instance* now_leader = leader()) {
            actors::Engine* engine = now_leader->node->engine();
            if (engine->feed(fed)) (void)engine->wait_idle();
            // No intent came for a while: paused where it is.
            const bool waited = now_leader->pausing_since_ms >= 0 && now_ms - now_leader->pausing_since_ms > 120'000;
            if (waited) engine->resume();  // disarmed
            if (now_leader->pausing_since_ms >= 0 && (engine->crashed() || waited)) {
                now_leader->pausing_since_ms = -1;
                now_leader->paused_until_ms =
                    now_ms + options.ha.session_timeout_ms + 1'000 + static_cast<int64_t>(random() % 10'000);
            }
        }
        for (Instance& in : instances) {
            if (!in.node || in.paused_until_ms >= 0) continue;
            log.poll(in.name);
            if (events::Status stepped = in.node->step(); !stepped) {
                return make_error(stepped.error().code, "at t+" + std::to_string(now_ms) + " ms: " + in.name + ": " +
                                                      stepped.error().message);
            }
            if (in.node->role() == actors::HaRole::standby && in.node->engine()) {
                if (events::Status idle = in.node->engine()->wait_idle(); !idle) {
                    // The node finds out at its next step and follows again.
                    (void)idle;
                }
            }
        }
        summary.simulated_ms = now_ms;
    }

    // The end: every instance's journal holds exactly the log's events.
    std::map<uint64_t, events::Event> logged;
    for (const store::ShippedRun& run : log.committed()) {
        events::Result<std::vector<events::Event>> decoded = store::decode_shipped_run(run);
        if (!decoded) return decoded.error();
        for (events::Event& e : *decoded) logged.emplace(e.seq, std::move(e));
    }
    summary.log_last_seq = log.last_seq();
    for (Instance& in : instances) {
        if (!in.node || !in.node->engine()) continue;
        if (in.paused_until_ms < 0) (void)in.node->step();  // a standby reads what the leader wrote last
        if (in.node->engine()) (void)in.node->engine()->wait_idle();
        gather(in);
        store::Journal* journal = in.node->engine() ? in.node->engine()->journal() : nullptr;
        if (!journal) continue;
        const uint64_t from = std::max(journal->first_seq(), logged.empty() ? 1 : logged.begin()->first);
        events::Result<std::vector<events::Event>> held = journal->read(from, journal->last_seq());
        if (!held) return make_error(held.error().code, in.name + ": " + held.error().message);
        for (const events::Event& e : *held) {
            auto it = logged.find(e.seq);
            if (it == logged.end() || !(it->second == e)) {
                summary.violations.push_back(in.name + "'s journal holds seq " + std::to_string(e.seq) +
                                             (it == logged.end() ? ", which the log does not" : " unlike the log"));
                break;
            }
        }
        (void)in.node->stop();
    }
    summary.fenced_publications = log.fenced_publications();
    summary.cluster = cluster.counters();
    return summary;
}

}  // namespace ballast::driver
