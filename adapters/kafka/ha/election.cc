#include "adapters/kafka/ha/election.h"

#include <spdlog/spdlog.h>

#include "adapters/kafka/ha/rdkafka.h"

namespace ballast::kafka::ha {

using events::ErrorCode;
using events::make_error;
using detail::error_text;
using detail::MessagePtr;
using detail::PartitionListPtr;

struct ElectionCallbacks {
    static void rebalance(rd_kafka_t*, rd_kafka_resp_err_t error, rd_kafka_topic_partition_list_t* partitions,
                          void* opaque) {
        static_cast<KafkaElection*>(opaque)->rebalance(error, partitions);
    }
};

events::Result<std::unique_ptr<KafkaElection>> KafkaElection::join(KafkaElectionOptions options) {
    if (options.topic.empty() || options.group_id.empty() || options.instance_id.empty()) {
        return make_error(ErrorCode::invalid_argument, "the election needs a topic, a group id and an instance id");
    }
    if (options.assignment_strategy != "range" && options.assignment_strategy != "cooperative-sticky") {
        return make_error(ErrorCode::invalid_argument, "the election of group " + options.group_id +
                                                           ": assignment strategy \"" + options.assignment_strategy +
                                                           "\" is neither range nor cooperative-sticky");
    }
    if (options.heartbeat_interval_ms <= 0 || options.heartbeat_interval_ms >= options.session_timeout_ms) {
        return make_error(ErrorCode::invalid_argument,
                          "the election of group " + options.group_id + ": heartbeat interval " +
                              std::to_string(options.heartbeat_interval_ms) +
                              " ms must be positive and shorter than the session timeout " +
                              std::to_string(options.session_timeout_ms) + " ms");
    }
    std::unique_ptr<KafkaElection> election(new KafkaElection(std::move(options)));
    const KafkaElectionOptions& o = election->_options;
    const std::string what = "the election (group " + o.group_id + ", topic " + o.topic + ")";
    const detail::Settings settings{
        {"group.id", o.group_id},
        {"session.timeout.ms", std::to_string(o.session_timeout_ms)},
        {"heartbeat.interval.ms", std::to_string(o.heartbeat_interval_ms)},
        // One partition, one holder (see the header for range against
        // cooperative-sticky).
        {"partition.assignment.strategy", o.assignment_strategy},
        {"enable.auto.commit", "false"},
        {"enable.auto.offset.store", "false"},
        {"allow.auto.create.topics", "false"},
    };
    KafkaElection* self = election.get();
    events::Result<detail::Handle> handle = detail::make_handle(
        RD_KAFKA_CONSUMER, {o.bootstrap_servers, election_client_id(o.instance_id), 10'000, o.client_settings},
        settings, what,
        [self](rd_kafka_conf_t* conf) {
            rd_kafka_conf_set_rebalance_cb(conf, ElectionCallbacks::rebalance);
            rd_kafka_conf_set_opaque(conf, self);
        });
    if (!handle) return handle.error();
    election->_handle = handle->release();
    rd_kafka_poll_set_consumer(election->_handle);
    PartitionListPtr topics(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(topics.get(), o.topic.c_str(), RD_KAFKA_PARTITION_UA);
    if (const rd_kafka_resp_err_t error = rd_kafka_subscribe(election->_handle, topics.get()); error) {
        rd_kafka_destroy(election->_handle);
        election->_handle = nullptr;
        election->_closed = true;
        return make_error(ErrorCode::io_error,
                          what + " at bootstrap servers " + o.bootstrap_servers + ": subscribe: " + error_text(error));
    }
    election->_thread = std::thread([self] { self->run(); });
    spdlog::info("{}: joined the election of group {} (topic {})", o.instance_id, o.group_id, o.topic);
    return election;
}

KafkaElection::~KafkaElection() { close(); }

namespace {

bool holds_zero(const rd_kafka_topic_partition_list_t* partitions, const std::string& topic) {
    for (int i = 0; i < partitions->cnt; i++) {
        if (topic == partitions->elems[i].topic && partitions->elems[i].partition == 0) return true;
    }
    return false;
}

}  // namespace

void KafkaElection::rebalance(int error, rd_kafka_topic_partition_list_s* partitions) {
    if (std::string(rd_kafka_rebalance_protocol(_handle)) == "COOPERATIVE") {
        rebalance_cooperative(error, partitions);
        return;
    }
    if (error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        const bool holds = holds_zero(partitions, _options.topic);
        // Accept the group's assignment with nothing to fetch (see header).
        PartitionListPtr nothing(rd_kafka_topic_partition_list_new(0));
        if (const rd_kafka_resp_err_t assigned = rd_kafka_assign(_handle, nothing.get()); assigned) {
            spdlog::warn("{}: the election of group {}: accepting the assignment: {}", _options.instance_id,
                         _options.group_id, error_text(assigned));
            return;
        }
        if (holds && !_stopping.load()) {
            _elected.store(true, std::memory_order_release);
            _times_elected.fetch_add(1, std::memory_order_relaxed);
            spdlog::info("{}: elected: group {} assigned it {}-0", _options.instance_id, _options.group_id,
                         _options.topic);
        }
        return;
    }
    // A revocation (or a rebalance error): no longer the leader, at once.
    const bool was = _elected.exchange(false, std::memory_order_acq_rel);
    if (was) {
        spdlog::info("{}: no longer elected: group {} {} {}-0", _options.instance_id, _options.group_id,
                     rd_kafka_assignment_lost(_handle) ? "lost" : "revoked", _options.topic);
    }
    rd_kafka_assign(_handle, nullptr);
}

/// Cooperative: the partitions handed over are assigned incrementally
/// (from the end, so no committed offset is looked up) and paused, so that
/// nothing is fetched; only those revoked are taken away.
void KafkaElection::rebalance_cooperative(int error, rd_kafka_topic_partition_list_s* partitions) {
    const bool zero = holds_zero(partitions, _options.topic);
    if (error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        for (int i = 0; i < partitions->cnt; i++) partitions->elems[i].offset = RD_KAFKA_OFFSET_END;
        if (detail::ErrorPtr assigned(rd_kafka_incremental_assign(_handle, partitions)); assigned) {
            spdlog::warn("{}: the election of group {}: accepting the assignment: {}", _options.instance_id,
                         _options.group_id, error_text(assigned.get()));
            return;
        }
        rd_kafka_pause_partitions(_handle, partitions);
        if (zero && !_stopping.load()) {
            _elected.store(true, std::memory_order_release);
            _times_elected.fetch_add(1, std::memory_order_relaxed);
            spdlog::info("{}: elected: group {} assigned it {}-0", _options.instance_id, _options.group_id,
                         _options.topic);
        }
        return;
    }
    if (zero || error != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
        const bool was = _elected.exchange(false, std::memory_order_acq_rel);
        if (was) {
            spdlog::info("{}: no longer elected: group {} {} {}-0", _options.instance_id, _options.group_id,
                         rd_kafka_assignment_lost(_handle) ? "lost" : "revoked", _options.topic);
        }
    }
    if (detail::ErrorPtr unassigned(rd_kafka_incremental_unassign(_handle, partitions)); unassigned) {
        spdlog::warn("{}: the election of group {}: giving up the assignment: {}", _options.instance_id,
                     _options.group_id, error_text(unassigned.get()));
    }
}

void KafkaElection::run() {
    while (!_stopping.load(std::memory_order_acquire)) {
        MessagePtr message(rd_kafka_consumer_poll(_handle, detail::timeout_int(_options.poll_interval_ms)));
        if (!message || message->err == RD_KAFKA_RESP_ERR_NO_ERROR) continue;
        if (message->err == RD_KAFKA_RESP_ERR__FATAL) {
            _elected.store(false, std::memory_order_release);
            char reason[512];
            const rd_kafka_resp_err_t cause = rd_kafka_fatal_error(_handle, reason, sizeof(reason));
            spdlog::error("{}: the election of group {} failed for good: {}: {}", _options.instance_id,
                          _options.group_id, error_text(cause), reason);
            return;
        }
        spdlog::debug("{}: the election of group {}: {}: {}", _options.instance_id, _options.group_id,
                      error_text(message->err), rd_kafka_message_errstr(message.get()));
    }
}

void KafkaElection::close() {
    if (_closed) return;
    _closed = true;
    // Nothing may act on this election from here on.
    _elected.store(false, std::memory_order_release);
    _stopping.store(true, std::memory_order_release);
    if (_thread.joinable()) _thread.join();
    // LeaveGroup; the revocation's callback runs here, on this thread.
    if (const rd_kafka_resp_err_t error = rd_kafka_consumer_close(_handle); error) {
        spdlog::warn("{}: leaving group {}: {}", _options.instance_id, _options.group_id, error_text(error));
    }
    rd_kafka_destroy(_handle);
    _handle = nullptr;
    spdlog::info("{}: left the election of group {}", _options.instance_id, _options.group_id);
}

}  // namespace ballast::kafka::ha
