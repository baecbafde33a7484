#include "tests/kafka/integration/run_support.h"

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ballast::testing {

namespace {

rd_kafka_t* new_handle(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
    char error[512];
    rd_kafka_t* handle = rd_kafka_new(type, conf, error, sizeof(error));
    if (handle == nullptr) {
        std::fprintf(stderr, "rd_kafka_new: %s\n", error);
        std::abort();
    }
    return handle;
}

void set(rd_kafka_conf_t* conf, const char* key, const std::string& value) {
    char error[512];
    if (rd_kafka_conf_set(conf, key, value.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
        std::fprintf(stderr, "%s=%s: %s\n", key, value.c_str(), error);
        std::abort();
    }
}

void quiet_log(const rd_kafka_t*, int, const char*, const char*) {}

}  // namespace

// ---------------------------------------------------------------- producing

namespace {
void on_delivery_report(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
    static_cast<CountingProducer*>(opaque)->on_delivery(message->partition, message->offset,
                                                        message->err == RD_KAFKA_RESP_ERR_NO_ERROR);
}
}  // namespace

CountingProducer::CountingProducer(const std::string& bootstrap, const std::string& topic, int32_t partitions,
                                   int records_per_s, int record_bytes)
    : _topic(topic) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    set(conf, "bootstrap.servers", bootstrap);
    set(conf, "acks", "all");
    set(conf, "enable.idempotence", "true");
    set(conf, "linger.ms", "20");
    // Long enough to ride out a broker's death and the leader election after it.
    set(conf, "message.timeout.ms", "120000");
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery_report);
    rd_kafka_conf_set_opaque(conf, this);
    _handle = new_handle(RD_KAFKA_PRODUCER, conf);
    _thread = std::thread([=, this] { run(partitions, records_per_s, record_bytes); });
}

CountingProducer::~CountingProducer() {
    stop();
    rd_kafka_destroy(_handle);
}

void CountingProducer::on_delivery(int32_t partition, int64_t offset, bool ok) {
    if (!ok) {
        _failed++;
        return;
    }
    std::lock_guard<std::mutex> lock(_mutex);
    _acked.insert({partition, offset});
}

void CountingProducer::run(int32_t partitions, int records_per_s, int record_bytes) {
    std::string payload(static_cast<size_t>(record_bytes), 'x');
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; !_stopping; i++) {
        payload[0] = static_cast<char>('a' + i % 26);
        const auto partition = static_cast<int32_t>(i % static_cast<uint64_t>(partitions));
        while (!_stopping) {
            const rd_kafka_resp_err_t error = rd_kafka_producev(
                _handle, RD_KAFKA_V_TOPIC(_topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                RD_KAFKA_V_VALUE(payload.data(), payload.size()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                RD_KAFKA_V_END);
            if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
            rd_kafka_poll(_handle, 100);
        }
        rd_kafka_poll(_handle, 0);
        std::this_thread::sleep_until(start + std::chrono::microseconds((i + 1) * 1'000'000 / records_per_s));
    }
}

void CountingProducer::stop() {
    if (_stopping.exchange(true)) return;
    if (_thread.joinable()) _thread.join();
    rd_kafka_flush(_handle, 120'000);
}

std::set<std::pair<int32_t, int64_t>> CountingProducer::acknowledged() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _acked;
}

// ---------------------------------------------------------------- consuming

CountingConsumer::CountingConsumer(const std::string& bootstrap, const std::string& topic, int32_t partitions) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    set(conf, "bootstrap.servers", bootstrap);
    // Assigned, never subscribed: the group is never joined, but librdkafka
    // wants one named (without, every poll returns _UNKNOWN_GROUP at once).
    set(conf, "group.id", "ballast-test-consumer");
    set(conf, "enable.auto.commit", "false");
    set(conf, "enable.partition.eof", "false");
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    _handle = new_handle(RD_KAFKA_CONSUMER, conf);
    rd_kafka_poll_set_consumer(_handle);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
    for (int32_t p = 0; p < partitions; p++) {
        rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    }
    rd_kafka_assign(_handle, list);
    rd_kafka_topic_partition_list_destroy(list);
    _thread = std::thread([this] { run(); });
}

CountingConsumer::~CountingConsumer() {
    _stopping = true;
    if (_thread.joinable()) _thread.join();
    rd_kafka_consumer_close(_handle);
    rd_kafka_destroy(_handle);
}

void CountingConsumer::run() {
    while (!_stopping) {
        rd_kafka_message_t* message = rd_kafka_consumer_poll(_handle, 200);
        if (message == nullptr) continue;
        if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            std::lock_guard<std::mutex> lock(_mutex);
            _received.insert({message->partition, message->offset});
        }
        rd_kafka_message_destroy(message);
    }
}

std::set<std::pair<int32_t, int64_t>> CountingConsumer::received() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _received;
}

}  // namespace ballast::testing
