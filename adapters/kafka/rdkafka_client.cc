#include "adapters/kafka/rdkafka_client.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "adapters/kafka/rdkafka_security.h"

namespace ballast::kafka {

using events::ErrorCode;
using events::make_error;

namespace {

void log_to_spdlog(const rd_kafka_t*, int level, const char* facility, const char* message) {
    // syslog levels: 0-3 errors, 4 warning; everything is debug here (see header).
    spdlog::debug("librdkafka [{}] {}: {}", level, facility, message);
}

void error_to_spdlog(rd_kafka_t*, int error, const char* reason, void*) {
    spdlog::debug("librdkafka: {}: {}", rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(error)), reason);
}

struct PartitionList {
    rd_kafka_topic_partition_list_t* list;
    explicit PartitionList(int size) : list(rd_kafka_topic_partition_list_new(size)) {}
    ~PartitionList() { rd_kafka_topic_partition_list_destroy(list); }
    PartitionList(const PartitionList&) = delete;
    PartitionList& operator=(const PartitionList&) = delete;
};

int timeout_int(int64_t timeout_ms) { return static_cast<int>(std::min<int64_t>(timeout_ms, 3'600'000)); }

}  // namespace

events::Result<std::unique_ptr<RdKafkaClient>> RdKafkaClient::create(
    Kind kind, const std::string& bootstrap_servers, const std::string& client_id,
    const std::vector<std::pair<std::string, std::string>>& settings) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    std::vector<std::pair<std::string, std::string>> all{
        {"bootstrap.servers", bootstrap_servers},
        {"client.id", client_id},
        // Reconnect attempts to a dead broker: from 100 ms up to 10 s apart.
        {"reconnect.backoff.max.ms", "10000"},
        {"log.connection.close", "false"},
    };
    if (kind == Kind::consumer) {
        // Assigned, never subscribed: the group is never joined, but
        // librdkafka wants one named (without, every poll fails at once
        // with _UNKNOWN_GROUP and the reader would spin).
        all.push_back({"group.id", client_id});
        all.push_back({"enable.auto.commit", "false"});
        all.push_back({"enable.auto.offset.store", "false"});
        all.push_back({"enable.partition.eof", "false"});
    }
    all.insert(all.end(), settings.begin(), settings.end());
    for (const auto& [key, value] : all) {
        if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            return make_error(events::ErrorCode::invalid_argument,
                              "librdkafka setting " + rdkafka_setting_text(key, value) + ": " + error);
        }
    }
    rd_kafka_conf_set_log_cb(conf, log_to_spdlog);
    rd_kafka_conf_set_error_cb(conf, error_to_spdlog);
    rd_kafka_t* handle = rd_kafka_new(kind == Kind::producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER, conf,
                                      error, sizeof(error));
    if (handle == nullptr) {
        rd_kafka_conf_destroy(conf);
        return make_error(events::ErrorCode::invalid_argument, std::string("librdkafka: ") + error);
    }
    if (kind == Kind::consumer) rd_kafka_poll_set_consumer(handle);
    return std::unique_ptr<RdKafkaClient>(new RdKafkaClient(handle));
}

int librdkafka_version() { return rd_kafka_version(); }

RdKafkaClient::~RdKafkaClient() {
    if (_handle == nullptr) return;
    if (rd_kafka_type(_handle) == RD_KAFKA_CONSUMER) rd_kafka_consumer_close(_handle);
    rd_kafka_destroy(_handle);
}

events::Result<metadata::Metadata> RdKafkaClient::metadata(int64_t timeout_ms) {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(_handle, 1, nullptr, &raw, timeout_int(timeout_ms));
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(events::ErrorCode::io_error, std::string("metadata request: ") + rd_kafka_err2name(error) +
                                                   " (" + rd_kafka_err2str(error) + ")");
    }
    metadata::Metadata out;
    for (int b = 0; b < raw->broker_cnt; b++) {
        out.brokers.push_back({raw->brokers[b].id, raw->brokers[b].host, raw->brokers[b].port});
    }
    for (int t = 0; t < raw->topic_cnt; t++) {
        const rd_kafka_metadata_topic_t& topic = raw->topics[t];
        metadata::MetadataTopic entry;
        entry.name = topic.topic;
        entry.error_code = static_cast<int16_t>(topic.err);
        for (int p = 0; p < topic.partition_cnt; p++) {
            const rd_kafka_metadata_partition_t& partition = topic.partitions[p];
            metadata::MetadataPartition part;
            part.id = partition.id;
            part.error_code = static_cast<int16_t>(partition.err);
            part.leader = partition.leader;
            part.replicas.assign(partition.replicas, partition.replicas + partition.replica_cnt);
            part.isr.assign(partition.isrs, partition.isrs + partition.isr_cnt);
            entry.partitions.push_back(std::move(part));
        }
        out.topics.push_back(std::move(entry));
    }
    rd_kafka_metadata_destroy(raw);
    return out;
}

events::Status RdKafkaClient::assign_topic_from(const std::string& topic, const std::vector<int32_t>& partitions,
                                        int64_t from_timestamp_ms, int64_t timeout_ms) {
    PartitionList list(static_cast<int>(partitions.size()));
    for (const int32_t p : partitions) {
        rd_kafka_topic_partition_list_add(list.list, topic.c_str(), p)->offset = from_timestamp_ms;
    }
    rd_kafka_resp_err_t error = rd_kafka_offsets_for_times(_handle, list.list, timeout_int(timeout_ms));
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(events::ErrorCode::io_error, "offsets of " + topic + " at time " + std::to_string(from_timestamp_ms) +
                                                   ": " + rd_kafka_err2name(error));
    }
    for (int i = 0; i < list.list->cnt; i++) {
        rd_kafka_topic_partition_t& entry = list.list->elems[i];
        // No record at or after the time (or an error): start at the end.
        if (entry.err || entry.offset < 0) entry.offset = RD_KAFKA_OFFSET_END;
        entry.err = RD_KAFKA_RESP_ERR_NO_ERROR;
    }
    error = rd_kafka_assign(_handle, list.list);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(events::ErrorCode::io_error, "assign " + topic + ": " + rd_kafka_err2name(error));
    }
    return {};
}

events::Result<std::vector<ConsumedRecord>> RdKafkaClient::consume(int64_t timeout_ms, size_t max) {
    std::vector<ConsumedRecord> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (out.size() < max) {
        const int64_t left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count();
        rd_kafka_message_t* message = rd_kafka_consumer_poll(_handle, static_cast<int>(std::max<int64_t>(left_ms, 0)));
        if (message == nullptr) break;  // nothing within the time left
        if (message->err) {
            const rd_kafka_resp_err_t error = message->err;
            const std::string text = rd_kafka_message_errstr(message);
            rd_kafka_message_destroy(message);
            if (error == RD_KAFKA_RESP_ERR__FATAL) {
                return make_error(events::ErrorCode::io_error, "consumer: fatal: " + text);
            }
            spdlog::debug("consumer: {}: {}", rd_kafka_err2name(error), text);
            // An error can repeat at once (a partition gone): never spin on it.
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        ConsumedRecord record;
        record.partition = message->partition;
        record.offset = message->offset;
        rd_kafka_timestamp_type_t type;
        record.timestamp_ms = rd_kafka_message_timestamp(message, &type);
        const auto* bytes = static_cast<const uint8_t*>(message->payload);
        record.value.assign(bytes, bytes + message->len);
        rd_kafka_message_destroy(message);
        out.push_back(std::move(record));
        if (left_ms <= 0) break;
    }
    return out;
}

}  // namespace ballast::kafka
