#pragma once

/// The simulator's journal log and election, for high-availability runs of
/// several instances (actors/ha_ports.h). It has the semantics Ballast
/// relies on in Kafka, on simulated time:
///
/// - **Election**: members join in order; the first live member holds the
///   journal's partition. A member that stops heartbeating (killed, paused)
///   keeps it until its session times out; one that leaves gives it up at
///   once. Either way the next live member gets it after a rebalance delay.
///   Each member sees the election as of its own last poll (`poll`), as a
///   Kafka client does: a member paused and resumed believes what it last
///   heard until it polls again.
/// - **Fencing**: becoming the writer takes the next writer epoch; a writer
///   of an older epoch can no longer publish (Kafka's InitProducerId).
/// - **Commit**: a publication is committed whole or not at all, and
///   readers see only what was committed.
/// - **Lease**: a writer may act while its newest commit is younger than
///   the lease, on the simulated clock.
///
/// It also keeps what the checks need: every committed run with the epoch
/// and member that wrote it, and the intents (ActionSubmitted) committed in
/// each epoch.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "actors/ha_ports.h"

namespace ballast::sim {

struct SimHaSettings {
    int64_t session_timeout_ms = 6'000;
    int64_t rebalance_ms = 1'000;  // from a session's end (or a leave) to the next assignment
    int64_t lease_ms = 3'000;
};

class SimHaLog {
public:
    explicit SimHaLog(SimHaSettings settings = {});
    ~SimHaLog();

    /// The simulated clock, set by the driver before each step.
    void set_now(int64_t now_ms);
    int64_t now_ms() const { return _now_ms; }

    /// A member joins (or rejoins after a restart) and gets its view.
    std::unique_ptr<actors::HaLog> join(const std::string& member);
    /// The member's process heartbeats now (the driver calls this for every
    /// member that runs).
    void heartbeat(const std::string& member);
    /// The member's view of the election catches up with the group.
    void poll(const std::string& member);
    /// A clean leave: the partition goes to the next member at once.
    void leave(const std::string& member);

    /// Who holds the partition now (empty: nobody, a rebalance is under way).
    std::string holder() const { return _holder; }
    /// The current writer epoch and who holds it.
    uint64_t writer_epoch() const { return _writer_epoch; }
    std::string writer() const { return _writer_member; }
    /// A writer `member` with `epoch` is the current one.
    bool is_current_writer(const std::string& member, uint64_t epoch) const {
        return epoch == _writer_epoch && member == _writer_member;
    }
    /// Whether an ActionSubmitted{action_id, attempt} was committed in `epoch`.
    bool intent_committed(uint64_t action_id, uint32_t attempt, uint64_t epoch) const {
        return _intents.count({action_id, attempt, epoch}) > 0;
    }
    /// The committed runs, in order.
    const std::vector<store::ShippedRun>& committed() const { return _runs; }
    uint64_t last_seq() const { return _last_seq; }
    /// The epoch of the writer a member holds (0: none).
    uint64_t epoch_of(const std::string& member) const;
    /// Publications refused because a newer writer fenced their writer.
    uint64_t fenced_publications() const { return _fenced; }

    /// Drops committed runs before the newest snapshot at or before `seq`
    /// (the topic's retention), so a member joining late must start from it.
    void retain_from_snapshot_at_or_before(uint64_t seq);

private:
    class Member;
    class Writer;
    friend class Member;
    friend class Writer;
    struct MemberState {
        int64_t last_heartbeat_ms = 0;
        bool joined = false;
        bool sees_elected = false;  // as of its last poll
        uint64_t epoch = 0;         // of its writer, 0: none
        int64_t last_commit_ms = -1;
    };
    void elect();
    events::Status publish(const std::string& member, uint64_t epoch, const std::vector<store::ShippedRun>& runs);

    SimHaSettings _settings;
    int64_t _now_ms = 0;
    std::vector<std::string> _order;  // members by join order
    std::map<std::string, MemberState> _members;
    std::string _holder;
    int64_t _vacant_since_ms = 0;  // with no holder: since when
    uint64_t _writer_epoch = 0;
    std::string _writer_member;
    std::vector<store::ShippedRun> _runs;
    uint64_t _first_seq = 0;  // of the first run kept (0: none)
    uint64_t _last_seq = 0;
    std::vector<store::Snapshot> _snapshots;
    std::set<std::tuple<uint64_t, uint32_t, uint64_t>> _intents;  // action id, attempt, epoch
    uint64_t _fenced = 0;
};

}  // namespace ballast::sim
