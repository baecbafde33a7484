#include "adapters/kafka/kafka_admin_port.h"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "adapters/kafka/retry_backoff.h"

namespace ballast::kafka {

namespace {

constexpr int16_t network_exception = 13;
constexpr int16_t unknown_server_error = -1;

/// "<what>: <Kafka's error>"; for an authorization error, the ACL that would
/// allow the call instead of Kafka's message (which, for a request a broker
/// forwarded to the controller, is the whole forwarded request's text).
std::string refusal_text(const wire::AdminClient& client, wire::ApiKey api, const std::string& what,
                         const wire::KafkaError& error) {
    const std::string acl = client.missing_acl(api, error.code);
    if (acl.empty()) return what + ": " + error.to_string();
    return what + ": " + wire::KafkaError{error.code, std::nullopt}.to_string() + ": " + acl;
}

std::string part_name(const TrackedPart& part) { return part.topic + "-" + std::to_string(part.partition); }

/// One request with every part's target (nullopt: cancel).
wire::messages::AlterPartitionReassignmentsRequest alter_request(const TrackedAction& tracked, bool cancel) {
    wire::messages::AlterPartitionReassignmentsRequest request;
    for (const TrackedPart& part : tracked.parts) {
        auto topic = std::find_if(request.topics.begin(), request.topics.end(),
                                  [&](const wire::messages::ReassignableTopic& t) { return t.name == part.topic; });
        if (topic == request.topics.end()) {
            request.topics.push_back({part.topic, {}});
            topic = std::prev(request.topics.end());
        }
        wire::messages::ReassignablePartition p;
        p.partition_index = part.partition;
        if (!cancel) p.replicas = part.target;
        topic->partitions.push_back(std::move(p));
    }
    return request;
}

const wire::messages::ReassignablePartitionResponse* find_result(const wire::messages::AlterPartitionReassignmentsResponse& response,
                                                 const TrackedPart& part) {
    for (const wire::messages::ReassignableTopicResponse& t : response.responses) {
        if (t.name != part.topic) continue;
        for (const wire::messages::ReassignablePartitionResponse& p : t.partitions) {
            if (p.partition_index == part.partition) return &p;
        }
    }
    return nullptr;
}

}  // namespace

KafkaAdminPort::KafkaAdminPort(KafkaAdminPortOptions options, EventClock clock, metadata::ClusterView* view)
    : _options(std::move(options)), _clock(std::move(clock)), _view(view) {
    assert(_view != nullptr);
    assert(!_options.client.bootstrap_servers.empty());
}

KafkaAdminPort::~KafkaAdminPort() { stop(); }

void KafkaAdminPort::attach(actors::EventSink sink) { _sink = std::move(sink); }

void KafkaAdminPort::start() {
    assert(_sink);
    if (_thread.joinable()) return;
    _client = std::make_unique<wire::AdminClient>(_options.client);
    _thread = std::thread([this] { run(); });
}

void KafkaAdminPort::stop() {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _stopping = true;
    }
    _wake.notify_all();
    if (_thread.joinable()) _thread.join();
}

int64_t KafkaAdminPort::steady_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void KafkaAdminPort::submit(const events::Action& action, uint32_t attempt) {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        if (_queue.size() < _options.queue_max) {
            _queue.push_back({Request::Kind::submit, action, attempt});
            _wake.notify_all();
            return;
        }
    }
    // Over the bound: refuse at once rather than grow without limit.
    report(events::ActionFailed{action.action_id, network_exception, wire::error_name(network_exception),
                                "the admin port's queue is full (" + std::to_string(_options.queue_max) +
                                    " requests)",
                                true, attempt});
}

void KafkaAdminPort::cancel(const events::Action& action) {
    std::lock_guard<std::mutex> lock(_mutex);
    _queue.push_back({Request::Kind::cancel, action, 0});  // cancels are never refused
    _wake.notify_all();
}

void KafkaAdminPort::adopt(const events::Action& action, uint32_t attempt) {
    std::lock_guard<std::mutex> lock(_mutex);
    _queue.push_back({Request::Kind::adopt, action, attempt});
    _wake.notify_all();
}

std::vector<RunningReassignment> KafkaAdminPort::running() {
    std::lock_guard<std::mutex> lock(_running_mutex);
    if (!_running_client) _running_client = std::make_unique<wire::AdminClient>(_options.client);
    RetryBackoff backoff("ListPartitionReassignments (what runs, to reconcile)", 500, 4000);
    for (uint32_t attempt = 1; attempt <= _options.running_tries; attempt++) {
        events::Result<wire::messages::ListPartitionReassignmentsResponse> listed =
            _running_client->list_partition_reassignments({}, _options.call_timeout_ms);
        std::string problem;
        if (!listed) {
            problem = listed.error().message;
        } else if (!listed->error.ok()) {
            problem = listed->error.to_string();
        } else {
            std::vector<RunningReassignment> out;
            for (const wire::messages::OngoingTopicReassignment& t : listed->topics) {
                for (const wire::messages::OngoingPartitionReassignment& p : t.partitions) {
                    // The target: the listed set without the replicas leaving.
                    std::vector<int32_t> target;
                    for (const int32_t id : p.replicas) {
                        if (std::find(p.removing_replicas.begin(), p.removing_replicas.end(), id) ==
                            p.removing_replicas.end()) {
                            target.push_back(id);
                        }
                    }
                    out.push_back({t.name, p.partition_index, std::move(target)});
                }
            }
            backoff.succeeded();
            return out;
        }
        if (attempt == _options.running_tries) {
            spdlog::error("could not learn which reassignments run ({} tries): {}", attempt, problem);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(backoff.failed(problem)));
    }
    return {};
}

void KafkaAdminPort::report(events::Body body) {
    std::vector<events::Event> batch;
    batch.push_back(events::Event{0, _clock(), events::Source::kafka_admin, std::move(body)});
    _sink(std::move(batch));
}

void KafkaAdminPort::failed(const TrackedAction& tracked, int16_t code, const std::string& message) {
    report(events::ActionFailed{tracked.action.action_id, code, wire::error_name(code), message, wire::is_retriable(code),
                                tracked.attempt});
}

void KafkaAdminPort::run() {
    int64_t next_check_ms = steady_ms();
    for (;;) {
        std::deque<Request> requests;
        {
            std::unique_lock<std::mutex> lock(_mutex);
            auto due = [&] { return _stopping || !_queue.empty(); };
            if (_tracked.empty()) {
                _wake.wait(lock, due);
            } else {
                const auto wait = std::chrono::milliseconds(std::max<int64_t>(next_check_ms - steady_ms(), 0));
                _wake.wait_for(lock, wait, due);
            }
            if (_stopping) return;
            requests.swap(_queue);
        }
        for (const Request& request : requests) carry_out(request);
        if (!_tracked.empty() && steady_ms() >= next_check_ms) {
            check_progress();
            next_check_ms = steady_ms() + _options.poll_interval_ms;
        }
        _following.store(_tracked.size());
        watch_tracked();
    }
}

void KafkaAdminPort::watch_tracked() {
    std::set<std::string> topics;
    for (const auto& [id, tracked] : _tracked) {
        for (const TrackedPart& part : tracked.parts) topics.insert(part.topic);
    }
    if (topics == _watched) return;
    _watched = topics;
    _view->watch(std::move(topics));
}

void KafkaAdminPort::carry_out(const Request& request) {
    const uint64_t id = request.action.action_id;
    switch (request.kind) {
        case Request::Kind::submit: begin(request.action, request.attempt); break;
        case Request::Kind::adopt:
            spdlog::info("action {}: in flight before the restart ({}); following it until Kafka shows it done, "
                         "running, or never started",
                         id, events::describe_action(request.action));
            _tracked[id] = track(request.action, request.attempt);
            _tracked[id].adopted = true;
            break;
        case Request::Kind::cancel: {
            auto it = _tracked.find(id);
            TrackedAction tracked = it != _tracked.end() ? it->second : track(request.action, 0);
            if (it != _tracked.end()) _tracked.erase(it);
            // A reorder (LEADER) is over at once; only moves have something to stop.
            if (request.action.kind != events::ActionKind::leader) cancel_parts(tracked, "cancelled by the engine");
            break;
        }
    }
}

void KafkaAdminPort::begin(const events::Action& action, uint32_t attempt) {
    _tracked.erase(action.action_id);  // a retry replaces what an earlier try left
    TrackedAction tracked = track(action, attempt);
    const metadata::ClusterView::Snapshot reported = _view->snapshot();
    for (const TrackedPart& part : tracked.parts) {
        const std::set<int32_t> distinct(part.target.begin(), part.target.end());
        std::string problem;
        if (part.target.empty() || distinct.size() != part.target.size() || *distinct.begin() < 0) {
            problem = "target replicas of " + part_name(part) + " must be distinct broker ids, at least one";
        } else if (const metadata::PartitionState* now = reported->partition(part.topic, part.partition);
                   now && now->replicas.size() != part.target.size()) {
            problem = part_name(part) + " has " + std::to_string(now->replicas.size()) +
                      " replicas; the target has " + std::to_string(part.target.size()) +
                      " (Ballast never changes a replication factor)";
        }
        if (!problem.empty()) {
            failed(tracked, wire::error_codes::invalid_replica_assignment, problem);
            return;
        }
    }
    events::Result<wire::messages::AlterPartitionReassignmentsResponse> answer =
        _client->alter_partition_reassignments(alter_request(tracked, false), _options.call_timeout_ms);
    if (!answer) {
        failed(tracked, network_exception, "AlterPartitionReassignments: " + answer.error().message);
        return;
    }
    if (!answer->error.ok()) {
        failed(tracked, answer->error.code,
               refusal_text(*_client, wire::ApiKey::alter_partition_reassignments, "AlterPartitionReassignments",
                            answer->error));
        return;
    }
    std::vector<const TrackedPart*> started;
    const TrackedPart* refused = nullptr;
    wire::KafkaError refusal;
    for (const TrackedPart& part : tracked.parts) {
        const wire::messages::ReassignablePartitionResponse* result = find_result(*answer, part);
        if (result && result->error.ok()) {
            started.push_back(&part);
        } else if (!refused) {
            refused = &part;
            refusal = result ? result->error : wire::KafkaError{unknown_server_error, "no answer for the partition"};
        }
    }
    if (refused) {
        if (!started.empty()) {
            // Half a swap is no swap: take back the half that started.
            TrackedAction undo = tracked;
            undo.parts.clear();
            for (const TrackedPart* part : started) undo.parts.push_back(*part);
            cancel_parts(undo, "the other half of the swap was refused");
        }
        failed(tracked, refusal.code,
               refusal_text(*_client, wire::ApiKey::alter_partition_reassignments,
                            "AlterPartitionReassignments " + part_name(*refused), refusal));
        return;
    }
    _tracked[action.action_id] = std::move(tracked);
}

void KafkaAdminPort::cancel_parts(const TrackedAction& tracked, const std::string& why) {
    events::Result<wire::messages::AlterPartitionReassignmentsResponse> answer =
        _client->alter_partition_reassignments(alter_request(tracked, true), _options.call_timeout_ms);
    if (!answer) {
        spdlog::warn("action {}: cancel ({}): {}", tracked.action.action_id, why, answer.error().message);
        return;
    }
    for (const TrackedPart& part : tracked.parts) {
        const wire::messages::ReassignablePartitionResponse* result = find_result(*answer, part);
        const wire::KafkaError error = result ? result->error : answer->error;
        // Nothing running (it finished, or never started) is what a cancel wants.
        if (!error.ok() && error.code != wire::error_codes::no_reassignment_in_progress) {
            spdlog::warn("action {}: cancel of {} ({}): {}", tracked.action.action_id, part_name(part), why,
                         error.to_string());
        }
    }
}

void KafkaAdminPort::elect(TrackedAction& tracked) {
    const TrackedPart& part = tracked.parts.front();
    wire::messages::ElectLeadersRequest request;
    request.topic_partitions = std::vector<wire::TopicPartitions>{{part.topic, {part.partition}}};
    events::Result<wire::messages::ElectLeadersResponse> answer = _client->elect_leaders(request, _options.call_timeout_ms);
    int16_t code = 0;
    std::string message;
    if (!answer) {
        code = network_exception;
        message = "ElectLeaders: " + answer.error().message;
    } else if (!answer->error.ok()) {
        code = answer->error.code;
        message = refusal_text(*_client, wire::ApiKey::elect_leaders, "ElectLeaders", answer->error);
    } else if (const wire::messages::ElectLeadersPartitionResult* result = answer->find(part.topic, part.partition);
               result && !result->error.ok() && result->error.code != wire::error_codes::election_not_needed) {
        code = result->error.code;
        message = refusal_text(*_client, wire::ApiKey::elect_leaders, "ElectLeaders " + part_name(part), result->error);
    }
    if (code == 0) return;  // elected (or already leading): the report will show it
    failed(tracked, code, message);
    _tracked.erase(tracked.action.action_id);
}

void KafkaAdminPort::check_progress() {
    events::Result<wire::messages::ListPartitionReassignmentsResponse> moving =
        _client->list_partition_reassignments({}, _options.call_timeout_ms);
    if (!moving || !moving->error.ok()) {
        // Judged again at the next check; the engine's action timeout bounds the wait.
        spdlog::debug("ListPartitionReassignments: {}", moving ? moving->error.to_string() : moving.error().message);
        return;
    }
    const metadata::ClusterView::Snapshot reported = _view->snapshot();
    const int64_t now_ms = steady_ms();
    std::vector<uint64_t> ids;
    for (const auto& [id, tracked] : _tracked) ids.push_back(id);
    for (const uint64_t id : ids) {
        auto it = _tracked.find(id);
        if (it == _tracked.end()) continue;
        TrackedAction& tracked = it->second;
        std::string why;
        switch (next_step(tracked, *moving, *reported, now_ms, _options.abandon_after_ms, &why)) {
            case TrackStep::wait: break;
            case TrackStep::elect: elect(tracked); break;
            case TrackStep::complete:
                report(events::ActionCompleted{id});
                _tracked.erase(it);
                break;
            case TrackStep::abandoned:
                if (tracked.adopted && !tracked.seen_running) {
                    report(events::ActionFailed{id, actors::not_started_code, actors::not_started_name,
                                                "adopted after a restart, never seen running: " + why, false,
                                                tracked.attempt});
                } else {
                    failed(tracked, unknown_server_error, why);
                }
                _tracked.erase(it);
                break;
        }
    }
}

}  // namespace ballast::kafka
