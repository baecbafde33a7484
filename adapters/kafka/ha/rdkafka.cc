#include "adapters/kafka/ha/rdkafka.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include <spdlog/spdlog.h>

namespace ballast::kafka::ha::detail {

using events::ErrorCode;
using events::make_error;

namespace {

void log_to_spdlog(const rd_kafka_t* handle, int level, const char* facility, const char* message) {
    // Everything at debug: a broker that is down makes librdkafka log every
    // reconnect; the HA parts report the failures that matter themselves.
    spdlog::debug("librdkafka {} [{}] {}: {}", rd_kafka_name(handle), level, facility, message);
}

void error_to_spdlog(rd_kafka_t* handle, int error, const char* reason, void*) {
    spdlog::debug("librdkafka {}: {}: {}", rd_kafka_name(handle),
                  rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(error)), reason);
}

}  // namespace

events::Result<Handle> make_handle(rd_kafka_type_t type, const Connection& connection, const Settings& settings,
                                   const std::string& what,
                                   const std::function<void(rd_kafka_conf_t*)>& configure) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    Settings all{
        {"bootstrap.servers", connection.bootstrap_servers},
        {"client.id", connection.client_id},
        {"log.connection.close", "false"},
    };
    all.insert(all.end(), connection.client_settings.begin(), connection.client_settings.end());
    all.insert(all.end(), settings.begin(), settings.end());
    for (const auto& [key, value] : all) {
        if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            const bool secret = key.ends_with("password") || key.ends_with(".pem");
            return make_error(ErrorCode::invalid_argument, what + ": librdkafka setting " + key + "=" +
                                                               (secret ? "[hidden]" : value) + ": " + error);
        }
    }
    rd_kafka_conf_set_log_cb(conf, log_to_spdlog);
    rd_kafka_conf_set_error_cb(conf, error_to_spdlog);
    if (configure) configure(conf);
    rd_kafka_t* handle = rd_kafka_new(type, conf, error, sizeof(error));
    if (handle == nullptr) {
        rd_kafka_conf_destroy(conf);
        return make_error(ErrorCode::invalid_argument, what + ": librdkafka: " + error);
    }
    return Handle(handle);
}

std::string error_text(rd_kafka_resp_err_t error) {
    return std::string(rd_kafka_err2name(error)) + " (" + rd_kafka_err2str(error) + ")";
}

std::string error_text(const rd_kafka_error_t* error) {
    return std::string(rd_kafka_error_name(error)) + " (" + rd_kafka_error_string(error) + ")";
}

int timeout_int(int64_t timeout_ms) { return static_cast<int>(std::clamp<int64_t>(timeout_ms, 0, 3'600'000)); }

int64_t ms_until(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return std::max<int64_t>(left.count(), 0);
}

namespace {

TopicInfo topic_of(const rd_kafka_metadata_topic_t& topic) {
    TopicInfo info;
    info.exists = topic.err == RD_KAFKA_RESP_ERR_NO_ERROR;
    info.partitions = topic.partition_cnt;
    for (int p = 0; p < topic.partition_cnt; p++) {
        if (topic.partitions[p].id != 0) continue;
        info.leader_of_0 = topic.partitions[p].err == RD_KAFKA_RESP_ERR_NO_ERROR ? topic.partitions[p].leader : -1;
        info.replicas_of_0 = static_cast<int16_t>(topic.partitions[p].replica_cnt);
    }
    return info;
}

}  // namespace

events::Result<ClusterInfo> cluster_info(rd_kafka_t* handle, const std::vector<std::string>& topics,
                                         int64_t timeout_ms) {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(handle, 1, nullptr, &raw, timeout_int(timeout_ms));
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error, "metadata request: " + error_text(error));
    }
    ClusterInfo info;
    info.brokers = raw->broker_cnt;
    info.topics.resize(topics.size());
    for (int t = 0; t < raw->topic_cnt; t++) {
        for (size_t i = 0; i < topics.size(); i++) {
            if (topics[i] == raw->topics[t].topic) info.topics[i] = topic_of(raw->topics[t]);
        }
    }
    rd_kafka_metadata_destroy(raw);
    return info;
}

events::Result<TopicInfo> topic_info(rd_kafka_t* handle, const std::string& topic, int64_t timeout_ms) {
    rd_kafka_topic_t* topic_handle = rd_kafka_topic_new(handle, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(handle, 0, topic_handle, &raw, timeout_int(timeout_ms));
    rd_kafka_topic_destroy(topic_handle);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error, "metadata of topic " + topic + ": " + error_text(error));
    }
    TopicInfo info;
    for (int t = 0; t < raw->topic_cnt; t++) {
        if (topic == raw->topics[t].topic) info = topic_of(raw->topics[t]);
    }
    rd_kafka_metadata_destroy(raw);
    return info;
}

events::Result<std::unique_ptr<CommittedReader>> CommittedReader::create(Connection connection, std::string topic,
                                                                         std::string group, std::string what,
                                                                         Fetching fetching) {
    std::unique_ptr<CommittedReader> reader(
        new CommittedReader(std::move(connection), std::move(topic), std::move(group), std::move(what), fetching));
    if (events::Status made = reader->make(); !made) return made.error();
    return reader;
}

events::Status CommittedReader::make() {
    const Settings settings{
        {"group.id", _group},
        {"enable.auto.commit", "false"},
        {"enable.auto.offset.store", "false"},
        // The end of the partition is how caught_up and the searches know
        // that nothing committed is left before the last stable offset.
        {"enable.partition.eof", "true"},
        {"isolation.level", "read_committed"},
        // A position retention passed is an error, never a silent jump.
        {"auto.offset.reset", "error"},
        {"fetch.wait.max.ms", std::to_string(_fetching.wait_max_ms)},
        {"fetch.message.max.bytes", std::to_string(_fetching.partition_bytes_max)},
        {"queued.max.messages.kbytes", std::to_string(_fetching.queued_kbytes_max)},
    };
    events::Result<Handle> handle = make_handle(RD_KAFKA_CONSUMER, _connection, settings, _what);
    if (!handle) return handle.error();
    _handle = std::move(*handle);
    rd_kafka_poll_set_consumer(_handle.get());
    return {};
}

events::Status CommittedReader::start_at(int64_t offset) {
    stop();
    PartitionListPtr list(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(list.get(), _topic.c_str(), 0)->offset = offset;
    const rd_kafka_resp_err_t error = rd_kafka_assign(_handle.get(), list.get());
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error,
                          _what + ": reading " + where() + " from offset " + std::to_string(offset) + ": " +
                              error_text(error));
    }
    _started_at = offset;
    return {};
}

void CommittedReader::stop() {
    rd_kafka_assign(_handle.get(), nullptr);
    // What was fetched ahead still counts against queued.max.messages.kbytes
    // until a poll drops it (it is outdated now): left there, it keeps the
    // next assignment from fetching until the broker thread's next turn, a
    // second later. Bounded: the queue holds at most what was fetched ahead.
    for (int dropped = 0; dropped < 1'000'000; dropped++) {
        MessagePtr message(rd_kafka_consumer_poll(_handle.get(), 0));
        if (!message) break;
    }
    _started_at = std::numeric_limits<int64_t>::max();  // nothing is handed out until start_at
}

events::Result<std::optional<CommittedReader::Item>> CommittedReader::next(int64_t timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0));
    for (;;) {
        MessagePtr message(rd_kafka_consumer_poll(_handle.get(), timeout_int(ms_until(deadline))));
        if (!message) return std::optional<Item>();
        const rd_kafka_resp_err_t error = message->err;
        if (error == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (message->offset >= _started_at) {
                Item end;
                end.kind = Item::Kind::end;
                end.offset = message->offset;
                return std::optional<Item>(std::move(end));
            }
        } else if (error == RD_KAFKA_RESP_ERR_NO_ERROR) {
            // A message from before the position (an earlier assignment's)
            // is skipped; librdkafka drops those itself, this is the belt.
            if (message->offset >= _started_at) {
                Item item;
                item.offset = message->offset;
                item.timestamp_ms = rd_kafka_message_timestamp(message.get(), nullptr);
                if (message->key != nullptr) item.key.assign(static_cast<const char*>(message->key), message->key_len);
                if (message->payload != nullptr) {
                    item.value.assign(static_cast<const char*>(message->payload), message->len);
                }
                return std::optional<Item>(std::move(item));
            }
        } else if (error == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || error == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
            return make_error(ErrorCode::not_found, _what + ": " + where() + " no longer holds offset " +
                                                        std::to_string(message->offset) +
                                                        " (retention removed it?): " + rd_kafka_message_errstr(message.get()));
        } else if (error == RD_KAFKA_RESP_ERR__FATAL || error == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                   error == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC || error == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
                   error == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
            return make_error(ErrorCode::io_error, _what + ": reading " + where() + " " + brokers() + ": " +
                                                       error_text(error) + ": " +
                                                       rd_kafka_message_errstr(message.get()));
        } else {
            // Transient (a broker restarting, a leader moving): librdkafka
            // retries; an error can repeat at once, so never spin on it.
            spdlog::debug("{}: reading {}: {}: {}", _what, where(), error_text(error),
                          rd_kafka_message_errstr(message.get()));
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(20, ms_until(deadline))));
        }
        if (ms_until(deadline) == 0) return std::optional<Item>();
    }
}

namespace {

/// One ListOffsets for partition 0 of `topic` at `which` (RD_KAFKA_OFFSET_BEGINNING
/// or _END), with the handle's isolation level. offsets_for_times, not
/// query_watermark_offsets: the latter waits for its answer with no bound of
/// its own, and when the partition's leader died it retries against that
/// broker until it is back (measured: minutes, the whole outage).
rd_kafka_resp_err_t list_offset(rd_kafka_t* handle, const std::string& topic, int64_t which, int64_t timeout_ms,
                                int64_t* offset) {
    PartitionListPtr list(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_t* partition = rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), 0);
    partition->offset = which;
    rd_kafka_resp_err_t error = rd_kafka_offsets_for_times(handle, list.get(), timeout_int(timeout_ms));
    if (error == RD_KAFKA_RESP_ERR_NO_ERROR) error = partition->err;
    *offset = partition->offset;
    return error;
}

}  // namespace

events::Result<CommittedReader::Bounds> CommittedReader::bounds() {
    Bounds bounds;
    // ListOffsets (earliest, latest) with the handle's isolation level,
    // read_committed: "latest" is the last stable offset, not the high
    // watermark. A topic just made (by this instance or another) may be
    // unknown to this handle's metadata for a moment, and the partition's
    // leader may have died (the request times out) or moved: asked again,
    // after asking the topic's metadata (which updates the leader the handle
    // sends to), until the call's timeout. Each try gets a third of the call.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(_connection.call_timeout_ms);
    const int64_t try_ms = std::max<int64_t>(1'000, _connection.call_timeout_ms / 3);
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (;;) {
        const int64_t this_try_ms = std::min(try_ms, ms_until(deadline));
        error = list_offset(_handle.get(), _topic, RD_KAFKA_OFFSET_BEGINNING, this_try_ms, &bounds.log_start);
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR) {
            error = list_offset(_handle.get(), _topic, RD_KAFKA_OFFSET_END, this_try_ms, &bounds.stable_end);
        }
        const bool not_yet = error == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
                             error == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
                             error == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                             error == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE ||
                             error == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION ||
                             error == RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH ||
                             error == RD_KAFKA_RESP_ERR__TIMED_OUT || error == RD_KAFKA_RESP_ERR__TRANSPORT ||
                             error == RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT;
        if (!not_yet || std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        (void)topic_info(_handle.get(), _topic, ms_until(deadline));
    }
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error,
                          _what + ": offsets of " + where() + " " + brokers() + ": " + error_text(error));
    }
    return bounds;
}

std::string CommittedReader::where() const { return "topic " + _topic + " partition 0"; }

std::string CommittedReader::brokers() const { return "at bootstrap servers " + _connection.bootstrap_servers; }

}  // namespace ballast::kafka::ha::detail
