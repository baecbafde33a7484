#pragma once

/// One instance of a highly available Ballast (ha_ports.h has the rule that
/// makes it safe). It is a standby or the leader:
///
/// - **Standby**: an engine that follows (EngineOptions::follow): it reads
///   the log's committed runs, appends them to its own journal as they are
///   and decides again what the leader decided, acting on nothing. Its
///   decisions are compared with the leader's, round by round.
/// - **Promotion**, once the election names it: read the log to its end,
///   become its writer (fencing every earlier one), read to the end again
///   (what the old writer committed before the fence), then restart the
///   engine on the same journal as the leader: recovery replays its tail,
///   the port adopts every action in flight (the cluster says whether each
///   runs, finished or never started), and the engine journals this
///   instance's configuration and its LeadershipAcquired, whose seq is the
///   epoch.
/// - **Leader**: every append is published before it is journaled or acted
///   on, and every admin call passes the lease (`JournalReplica::may_act`)
///   and the election first. A leader whose engine stopped (a publication
///   fenced or failed), whose lease ran out, or that the election no longer
///   names, steps down: the engine stops, the writer is dropped, and it
///   follows again from its journal, which never holds what the log does
///   not.
///
/// The node is driven: `step()` from one thread, which also runs the
/// callbacks. `ballast run --ha` drives it with Kafka's log, the HA
/// simulation with the simulator's.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "actors/engine.h"
#include "actors/ha_ports.h"

namespace ballast::actors {

enum class HaRole : uint8_t { standby, leader };
const char* ha_role_name(HaRole role);

struct HaNodeOptions {
    std::string instance_id;
    /// The engine's options in both roles: journal, configuration,
    /// callbacks, threads. `port` is the cluster, used only while leading and
    /// behind the lease; the node sets replica, follow, lead and instance_id.
    EngineOptions engine;
    HaLog* log = nullptr;
    /// On promotion: just before the leader's engine starts (its recovery
    /// adopts through the port what was in flight), then with the engine that
    /// now leads (feed it: the cluster's state first); on stepping down,
    /// before that engine stops, and when its start failed.
    std::function<void()> before_lead;
    std::function<void(Engine&)> on_lead;
    std::function<void(const std::string& why)> on_lead_lost;
    /// How long a standby's step waits for the log.
    int64_t read_wait_ms = 100;
};

/// What an instance reports of itself.
struct HaStatus {
    HaRole role = HaRole::standby;
    /// While leading: the seq of this instance's LeadershipAcquired.
    int64_t epoch = 0;
    /// The newest seq in this instance's journal.
    uint64_t journal_seq = 0;
    /// A standby: rounds it decided exactly as the leader did, and otherwise.
    uint64_t decisions_matched = 0;
    uint64_t decisions_diverged = 0;
    std::string first_divergence;
    uint32_t promotions = 0;
    uint32_t demotions = 0;
    std::string last_demotion;
    /// Admin calls the lease or the election refused.
    uint64_t calls_refused = 0;
};

class HaNode {
public:
    /// Starts as a standby on the journal at options.engine.journal_path (an
    /// empty one joins from the log's newest snapshot).
    static events::Result<std::unique_ptr<HaNode>> start(HaNodeOptions options);
    ~HaNode();
    HaNode(const HaNode&) = delete;
    HaNode& operator=(const HaNode&) = delete;

    /// One turn: a standby reads and follows (or is promoted); a leader
    /// checks that it may go on leading (or steps down). An error when the
    /// standby could not be opened (its journal, the log); the next step
    /// tries again.
    events::Status step();

    /// A clean stop (SIGTERM): a leader lets its engine finish what it has,
    /// stops it and gives up writing; the caller then leaves the election.
    events::Status stop();
    /// A kill: the engine is abandoned as it stands, nothing more runs.
    void abandon();

    HaRole role() const { return _role; }
    /// The engine of either role (null between roles).
    Engine* engine() { return _engine.get(); }
    HaStatus status() const;

private:
    class LeasedPort;
    class DecisionMatch;
    HaNode() = default;
    events::Status open_standby();
    events::Status promote();
    events::Status step_down(const std::string& why);
    events::Status follow_until_caught_up();

    HaNodeOptions _options;
    HaRole _role = HaRole::standby;
    std::unique_ptr<Engine> _engine;
    std::unique_ptr<LeasedPort> _port;
    std::shared_ptr<DecisionMatch> _match;
    int64_t _epoch = 0;
    uint32_t _promotions = 0;
    uint32_t _demotions = 0;
    uint64_t _calls_refused = 0;  // by the ports of earlier leaderships
    std::string _last_demotion;
};

}  // namespace ballast::actors
