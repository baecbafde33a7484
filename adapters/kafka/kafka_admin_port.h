#pragma once

/// The admin port on a real Kafka cluster: how the engine's executor acts.
///
/// - MOVE and SWAP: one AlterPartitionReassignments with the action's
///   replicas_after (and swap_replicas_after) as targets.
/// - LEADER: a reassignment to the same replicas in the new order (it moves
///   no data and completes at once), then ElectLeaders (preferred) once the
///   report shows the new order.
/// - cancel: a reassignment with a null target for each part.
/// - adopt(): after a restart, follows an action in flight without
///   submitting it again: running or done, as for a submitted one; neither
///   running nor at its target for `abandon_after_ms`, failed as not started
///   (actors::not_started_code).
/// - running(): ListPartitionReassignments, for status and tests.
///
/// The executor calls from its actor thread, so submit, cancel and adopt
/// only queue the request and return. A worker thread of the port, with a
/// wire client of its own, carries them out in order and follows every
/// action (action_tracker.h) every `poll_interval_ms` (steady clock) until
/// it completes or fails. Outcomes go through the sink given to attach() as
/// ActionCompleted / ActionFailed (Kafka's error code and name, retriable as
/// Kafka judges the code, the attempt number), source `kafka_admin`, stamped
/// with the event clock.
///
/// Failures: a request that never got an answer (unreachable, timed out, the
/// connection dropped) fails as NETWORK_EXCEPTION (13, retriable): the
/// executor retries with backoff, and a reassignment that did start is
/// simply restarted to the same target, which Kafka accepts. An error Kafka
/// returns for a partition fails the action with that error; a swap whose
/// second half was refused cancels the first half. A target that would
/// change the replication factor, or repeats a broker, is refused before
/// anything is sent (INVALID_REPLICA_ASSIGNMENT).
///
/// Bounds: at most `queue_max` requests wait (the executor keeps at most
/// execution.concurrency actions in flight, 50 by default); over it a submit
/// fails at once as retriable. One ListPartitionReassignments per poll
/// covers every action followed.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "actors/admin_port.h"
#include "adapters/kafka/action_tracker.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/event_clock.h"

namespace ballast::kafka {

/// A reassignment Kafka is running now.
struct RunningReassignment {
    std::string topic;
    int32_t partition = -1;
    std::vector<int32_t> target_replicas;
};

struct KafkaAdminPortOptions {
    wire::ClientOptions client;
    /// How often the actions followed are checked.
    int64_t poll_interval_ms = 1000;
    /// Each call to the cluster.
    int64_t call_timeout_ms = 15'000;
    /// A part neither listed by Kafka nor at its target this long is given up.
    int64_t abandon_after_ms = 30'000;
    /// running() tries this many times before it answers "nothing known".
    uint32_t running_tries = 5;
    size_t queue_max = 100'000;
};

class KafkaAdminPort : public actors::AdminPort {
public:
    KafkaAdminPort(KafkaAdminPortOptions options, EventClock clock, metadata::ClusterView* view);
    ~KafkaAdminPort() override;
    KafkaAdminPort(const KafkaAdminPort&) = delete;
    KafkaAdminPort& operator=(const KafkaAdminPort&) = delete;

    void attach(actors::EventSink sink) override;
    void submit(const events::Action& action, uint32_t attempt) override;
    void cancel(const events::Action& action) override;
    void adopt(const events::Action& action, uint32_t attempt) override;
    std::vector<RunningReassignment> running();

    /// Starts the worker (requests queued before are carried out then).
    /// Precondition: attach().
    void start();
    /// Stops the worker; what it followed keeps running in Kafka (a restart
    /// reconciles it).
    void stop();

    /// Actions followed now (for tests and status).
    size_t following() const { return _following.load(); }

private:
    struct Request {
        enum class Kind : uint8_t { submit, cancel, adopt } kind = Kind::submit;
        events::Action action;
        uint32_t attempt = 0;
    };

    void run();
    void carry_out(const Request& request);
    void begin(const events::Action& action, uint32_t attempt);
    void cancel_parts(const TrackedAction& tracked, const std::string& why);
    void check_progress();
    /// Tells the view which topics the actions followed touch, so the
    /// incremental poller reads them every poll.
    void watch_tracked();
    void elect(TrackedAction& tracked);
    void report(events::Body body);
    void failed(const TrackedAction& tracked, int16_t code, const std::string& message);
    int64_t steady_ms() const;

    KafkaAdminPortOptions _options;
    EventClock _clock;
    metadata::ClusterView* _view;  // read, and told which topics to watch
    actors::EventSink _sink;

    // The worker's own.
    std::unique_ptr<wire::AdminClient> _client;
    std::map<uint64_t, TrackedAction> _tracked;  // by action id
    std::set<std::string> _watched;             // what the view was last told
    std::atomic<size_t> _following{0};

    // Between the executor's thread and the worker.
    std::mutex _mutex;
    std::condition_variable _wake;
    std::deque<Request> _queue;
    bool _stopping = false;
    std::thread _thread;

    // running(), from the engine's start.
    std::mutex _running_mutex;
    std::unique_ptr<wire::AdminClient> _running_client;
};

}  // namespace ballast::kafka
