#include "adapters/kafka/metadata_log/observer.h"

#include <algorithm>
#include <utility>

#include "adapters/kafka/wire/deadline.h"
#include "adapters/kafka/wire/protocol_errors.h"

namespace ballast::kafka::metadata_log {

namespace {

/// What is wrong with an answer refused as a whole (`error`), or without the one partition
/// asked (no error).
std::string answer_problem(const wire::KafkaError& error) {
    if (std::string(wire::error_name(error.code)) == "CLUSTER_AUTHORIZATION_FAILED") {
        return "not authorized: the principal needs ClusterAction on the cluster";
    }
    return error.ok() ? "an answer without the one partition asked" : error.to_string();
}

}  // namespace

MetadataLogObserver::MetadataLogObserver(ObserverOptions options, int64_t next_offset,
                                         int32_t last_fetched_epoch)
    : _options(std::move(options)),
      _decoder(next_offset, last_fetched_epoch),
      _committed_offset(next_offset) {}

Result<wire::BrokerConnection*> MetadataLogObserver::connection() {
    if (_connection) return _connection.get();
    if (_options.controllers.empty()) {
        return events::make_error(ErrorCode::invalid_argument,
                                  "metadata log: no controller given (--bootstrap-controller)");
    }
    wire::BrokerAddress address;
    if (_leader_address) {
        address = *_leader_address;
    } else {
        address = _options.controllers[_next_controller % _options.controllers.size()];
        ++_next_controller;
    }
    _connection = std::make_unique<wire::BrokerConnection>(address.host, address.port,
                                                           _options.connection);
    return _connection.get();
}

wire::messages::FetchRequest MetadataLogObserver::request() const {
    wire::messages::FetchRequest request;
    request.cluster_id = _options.cluster_id;
    request.max_wait_ms = _options.max_wait_ms;
    request.min_bytes = 1;
    request.max_bytes = _options.max_bytes;
    wire::messages::FetchRequestTopic& topic = request.topics.emplace_back();
    topic.topic_id = wire::messages::metadata_topic_id;
    wire::messages::FetchRequestPartition& partition = topic.partitions.emplace_back();
    partition.current_leader_epoch = _leader_epoch;
    partition.fetch_offset = _decoder.next_offset();
    partition.last_fetched_epoch = std::max(_decoder.last_epoch(), 0);
    partition.partition_max_bytes = _options.max_bytes;
    return request;
}

std::vector<std::string> MetadataLogObserver::take_warnings() {
    std::vector<std::string> warnings = std::exchange(_snapshot_warnings, {});
    for (std::string& warning : _decoder.take_warnings()) warnings.push_back(std::move(warning));
    return warnings;
}

void MetadataLogObserver::follow(const std::optional<wire::messages::FetchLeader>& leader,
                                 const std::vector<std::pair<int32_t, wire::BrokerAddress>>& endpoints,
                                 const wire::BrokerConnection& asked) {
    if (!leader || leader->leader_epoch < 0) return;
    _leader_id = leader->leader_id;
    _leader_epoch = leader->leader_epoch;
    for (const auto& [node_id, address] : endpoints) {
        if (node_id != _leader_id) continue;
        if (address.host != asked.host() || address.port != asked.port()) {
            _leader_address = address;
            _connection.reset();  // `asked` with it: read no further
        }
        return;
    }
}

PollResult MetadataLogObserver::result_header(int64_t high_watermark) const {
    PollResult result;
    result.leader_id = _leader_id;
    result.leader_epoch = _leader_epoch;
    result.high_watermark = high_watermark;
    return result;
}

Result<PollResult> MetadataLogObserver::poll() {
    if (_snapshot) return fetch_snapshot_chunk();
    // The first fetch cannot name the quorum's epoch, and the leader refuses a last fetched
    // epoch above the one named (INVALID_REQUEST), saying its epoch: ask again with it.
    const bool epoch_known = _leader_epoch >= 0;
    Result<PollResult> result = fetch_once();
    if (!epoch_known && _leader_epoch >= 0 && result.ok() && result->entries.empty() &&
        _refused_for_epoch) {
        result = fetch_once();
    }
    return result;
}

Result<PollResult> MetadataLogObserver::fetch_once() {
    _refused_for_epoch = false;
    Result<wire::BrokerConnection*> opened = connection();
    if (!opened.ok()) return opened.error();
    wire::BrokerConnection& controller = **opened;
    const std::string where = "controller " + controller.host() + ":" +
                              std::to_string(controller.port());
    const int32_t request_epoch = _leader_epoch;
    Result<wire::messages::FetchResponse> answer = controller.call<wire::messages::Fetch>(
        request(), wire::Deadline::after_ms(_options.call_timeout_ms + _options.max_wait_ms));
    if (!answer.ok()) {
        // Unreachable or refused: the next poll tries the next controller listed.
        _connection.reset();
        _leader_address.reset();
        return events::make_error(answer.error().code, "metadata log: Fetch of " +
                                                           std::string(wire::messages::metadata_topic_name) +
                                                           " from " + where + ": " +
                                                           answer.error().message);
    }
    const wire::messages::FetchResponse& response = *answer;
    if (!response.error.ok() || response.responses.size() != 1 ||
        response.responses[0].partitions.size() != 1) {
        return events::make_error(ErrorCode::io_error, "metadata log: Fetch from " + where +
                                                           ": " + answer_problem(response.error));
    }
    const wire::messages::FetchResponsePartition& partition = response.responses[0].partitions[0];
    std::vector<std::pair<int32_t, wire::BrokerAddress>> endpoints;
    for (const wire::messages::FetchNodeEndpoint& node : response.node_endpoints) {
        endpoints.emplace_back(node.node_id, wire::BrokerAddress{node.host, node.port});
    }
    follow(partition.current_leader, endpoints, controller);
    PollResult result = result_header(partition.high_watermark);
    if (!partition.error.ok()) {
        const std::string name = wire::error_name(partition.error.code);
        if (name == "INVALID_REQUEST" && partition.current_leader && result.leader_epoch >= 0 &&
            request_epoch < 0) {
            _refused_for_epoch = true;
            return result;
        }
        if (name == "FENCED_LEADER_EPOCH" || name == "UNKNOWN_LEADER_EPOCH" ||
            name == "NOT_LEADER_OR_FOLLOWER") {
            // The leader or its epoch changed: the next poll asks the one named.
            if (name == "NOT_LEADER_OR_FOLLOWER" && !_leader_address) _connection.reset();
            return result;
        }
        return events::make_error(ErrorCode::io_error,
                                  "metadata log: Fetch from " + where + " at offset " +
                                      std::to_string(_decoder.next_offset()) + ": " +
                                      partition.error.to_string());
    }
    if (partition.snapshot_id) {
        // The position is older than the log's start: the snapshot replaces everything
        // before its end, what was held and an open transaction included.
        _snapshot.emplace(SnapshotId{partition.snapshot_id->end_offset, partition.snapshot_id->epoch});
        _held.clear();
        _transactions.reset();
        return result;
    }
    if (partition.diverging_epoch) {
        // Uncommitted records this observer held were replaced: drop them, read again.
        const int64_t end_offset = std::max(partition.diverging_epoch->end_offset, _committed_offset);
        std::erase_if(_held, [&](const MetadataEntry& entry) { return entry.offset >= end_offset; });
        _decoder.rewind(end_offset, partition.diverging_epoch->epoch);
        return result;
    }
    if (partition.records) {
        Result<size_t> used = _decoder.decode(*partition.records, _held);
        if (!used.ok()) {
            return events::make_error(used.error().code, "metadata log from " + where + ": " +
                                                             used.error().message);
        }
    }
    // Hand out what the quorum committed, a transaction's records only at its End.
    auto committed_end = std::find_if(_held.begin(), _held.end(), [&](const MetadataEntry& entry) {
        return entry.offset >= partition.high_watermark;
    });
    std::vector<MetadataEntry> committed(std::make_move_iterator(_held.begin()),
                                         std::make_move_iterator(committed_end));
    _held.erase(_held.begin(), committed_end);
    _transactions.pass(std::move(committed), result.entries);
    int64_t committed_offset = std::min(partition.high_watermark, _decoder.next_offset());
    if (const std::optional<int64_t> begin = _transactions.open_since()) {
        committed_offset = std::min(committed_offset, *begin);
    }
    _committed_offset = std::max(_committed_offset, committed_offset);
    return result;
}

Result<PollResult> MetadataLogObserver::fetch_snapshot_chunk() {
    Result<wire::BrokerConnection*> opened = connection();
    if (!opened.ok()) return opened.error();
    wire::BrokerConnection& controller = **opened;
    const std::string where = "controller " + controller.host() + ":" +
                              std::to_string(controller.port());
    const std::string name = "snapshot " + _snapshot->id().to_string();
    wire::messages::FetchSnapshotRequest request;
    request.cluster_id = _options.cluster_id;
    request.max_bytes = _options.max_bytes;
    wire::messages::FetchSnapshotRequestPartition& asked =
        request.topics.emplace_back(wire::messages::FetchSnapshotRequestTopic{
                                        wire::messages::metadata_topic_name, {}})
            .partitions.emplace_back();
    asked.current_leader_epoch = _leader_epoch;
    asked.snapshot_id = {_snapshot->id().epoch, _snapshot->id().end_offset};
    asked.position = _snapshot->position();
    Result<wire::messages::FetchSnapshotResponse> answer =
        controller.call<wire::messages::FetchSnapshot>(
            request, wire::Deadline::after_ms(_options.call_timeout_ms));
    if (!answer.ok()) {
        // Unreachable: the next poll asks the next controller listed, from the snapshot's start
        // (another controller's copy of it is the same records, not always the same bytes).
        _connection.reset();
        _leader_address.reset();
        const SnapshotId id = _snapshot->id();
        _snapshot.emplace(id);
        return events::make_error(answer.error().code, "metadata log: FetchSnapshot of " + name +
                                                           " from " + where + ": " +
                                                           answer.error().message);
    }
    const wire::messages::FetchSnapshotResponse& response = *answer;
    if (!response.error.ok() || response.topics.size() != 1 ||
        response.topics[0].partitions.size() != 1) {
        return events::make_error(ErrorCode::io_error, "metadata log: FetchSnapshot of " + name +
                                                           " from " + where + ": " +
                                                           answer_problem(response.error));
    }
    const wire::messages::FetchSnapshotResponsePartition& partition = response.topics[0].partitions[0];
    std::vector<std::pair<int32_t, wire::BrokerAddress>> endpoints;
    for (const wire::messages::FetchSnapshotNodeEndpoint& node : response.node_endpoints) {
        endpoints.emplace_back(node.node_id, wire::BrokerAddress{node.host, node.port});
    }
    follow(partition.current_leader, endpoints, controller);
    PollResult result = result_header(-1);
    if (!partition.error.ok()) {
        // SNAPSHOT_NOT_FOUND (a newer snapshot replaced it) or a leader change: Fetch again
        // from the old position, whose answer names the snapshot to read now, and where.
        _snapshot.reset();
        const std::string error = wire::error_name(partition.error.code);
        if (error == "SNAPSHOT_NOT_FOUND" || error == "FENCED_LEADER_EPOCH" ||
            error == "UNKNOWN_LEADER_EPOCH" || error == "NOT_LEADER_OR_FOLLOWER") {
            if (error == "NOT_LEADER_OR_FOLLOWER" && !_leader_address) _connection.reset();
            return result;
        }
        return events::make_error(ErrorCode::io_error, "metadata log: FetchSnapshot of " + name +
                                                           " from " + where + " at byte " +
                                                           std::to_string(asked.position) + ": " +
                                                           partition.error.to_string());
    }
    if (partition.snapshot_id != wire::messages::FetchEpochEndOffset{_snapshot->id().epoch,
                                                                     _snapshot->id().end_offset}) {
        const std::string sent = std::to_string(partition.snapshot_id.end_offset) + "-" +
                                 std::to_string(partition.snapshot_id.epoch);
        _snapshot.reset();
        return events::make_error(ErrorCode::io_error, "metadata log: FetchSnapshot of " + name +
                                                           " from " + where + ": answered with snapshot " +
                                                           sent);
    }
    Status added = _snapshot->add(partition.position, partition.size, partition.bytes);
    if (!added.ok()) {
        _snapshot.reset();
        return events::make_error(added.error().code,
                                  "metadata log from " + where + ": " + added.error().message);
    }
    if (!_snapshot->complete()) return result;
    // The whole image: the log goes on from the snapshot's end.
    const SnapshotId id = _snapshot->id();
    result.entries = _snapshot->take_entries();
    result.image = true;
    for (std::string& warning : _snapshot->take_warnings()) _snapshot_warnings.push_back(std::move(warning));
    _snapshot.reset();
    _decoder.rewind(id.end_offset, id.epoch);
    _committed_offset = id.end_offset;
    return result;
}

}  // namespace ballast::kafka::metadata_log
