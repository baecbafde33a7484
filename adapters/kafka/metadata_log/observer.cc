#include "adapters/kafka/metadata_log/observer.h"

#include <algorithm>
#include <utility>

#include "adapters/kafka/wire/deadline.h"
#include "adapters/kafka/wire/protocol_errors.h"

namespace ballast::kafka::metadata_log {

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

Result<PollResult> MetadataLogObserver::poll() {
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
        std::string problem = response.error.to_string();
        if (std::string(wire::error_name(response.error.code)) == "CLUSTER_AUTHORIZATION_FAILED") {
            problem = "not authorized: the principal needs ClusterAction on the cluster";
        } else if (response.error.ok()) {
            problem = "an answer without the one partition asked";
        }
        return events::make_error(ErrorCode::io_error, "metadata log: Fetch from " + where +
                                                           ": " + problem);
    }
    const wire::messages::FetchResponsePartition& partition = response.responses[0].partitions[0];
    if (partition.current_leader && partition.current_leader->leader_epoch >= 0) {
        _leader_id = partition.current_leader->leader_id;
        _leader_epoch = partition.current_leader->leader_epoch;
        for (const wire::messages::FetchNodeEndpoint& node : response.node_endpoints) {
            if (node.node_id != _leader_id) continue;
            const wire::BrokerAddress leader{node.host, node.port};
            if (leader.host != controller.host() || leader.port != controller.port()) {
                _leader_address = leader;
                _connection.reset();
            }
        }
    }
    PollResult result;
    result.leader_id = _leader_id;
    result.leader_epoch = _leader_epoch;
    result.high_watermark = partition.high_watermark;
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
        return events::make_error(
            ErrorCode::unsupported,
            "metadata log: offset " + std::to_string(_decoder.next_offset()) +
                " is older than the log's start on " + where + ": the leader points to snapshot " +
                std::to_string(partition.snapshot_id->end_offset) + "-" +
                std::to_string(partition.snapshot_id->epoch) +
                ", and reading snapshots (FetchSnapshot) is not implemented yet");
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
    // Hand out what the quorum committed.
    auto committed_end = std::find_if(_held.begin(), _held.end(), [&](const MetadataEntry& entry) {
        return entry.offset >= partition.high_watermark;
    });
    result.entries.assign(std::make_move_iterator(_held.begin()),
                          std::make_move_iterator(committed_end));
    _held.erase(_held.begin(), committed_end);
    _committed_offset = std::max(_committed_offset,
                                 std::min(partition.high_watermark, _decoder.next_offset()));
    return result;
}

}  // namespace ballast::kafka::metadata_log
