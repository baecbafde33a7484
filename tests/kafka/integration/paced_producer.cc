#include "tests/kafka/integration/paced_producer.h"

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace ballast::testing {

using events::ErrorCode;
using events::make_error;
using events::Status;

struct PacedProducerCallbacks {
    static void delivered(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
        if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
        auto* producer = static_cast<PacedProducer*>(opaque);
        std::lock_guard<std::mutex> lock(producer->_mutex);
        if (producer->_failure.empty()) {
            producer->_failure = "a record to " + producer->_topic + " was not delivered: " + rd_kafka_err2str(message->err);
        }
    }
};

PacedProducer::PacedProducer(const std::string& bootstrap_servers, std::string topic, int32_t partition,
                             int record_bytes)
    : _topic(std::move(topic)), _partition(partition), _payload(static_cast<size_t>(record_bytes), 'x') {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    const std::vector<std::pair<const char*, const char*>> settings{{"bootstrap.servers", bootstrap_servers.c_str()},
                                                                    {"acks", "all"},
                                                                    {"linger.ms", "0"},
                                                                    {"batch.num.messages", "1"}};
    for (const auto& [key, value] : settings) {
        if (rd_kafka_conf_set(conf, key, value, error, sizeof(error)) != RD_KAFKA_CONF_OK) {
            std::fprintf(stderr, "PacedProducer: %s=%s: %s\n", key, value, error);
            std::abort();
        }
    }
    rd_kafka_conf_set_dr_msg_cb(conf, &PacedProducerCallbacks::delivered);
    rd_kafka_conf_set_opaque(conf, this);
    _handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error));
    if (_handle == nullptr) {
        std::fprintf(stderr, "PacedProducer: rd_kafka_new: %s\n", error);
        std::abort();
    }
}

PacedProducer::~PacedProducer() {
    (void)stop();
    rd_kafka_destroy(_handle);
}

Status PacedProducer::produce_one() {
    for (;;) {
        const rd_kafka_resp_err_t error =
            rd_kafka_producev(_handle, RD_KAFKA_V_TOPIC(_topic.c_str()), RD_KAFKA_V_PARTITION(_partition),
                              RD_KAFKA_V_VALUE(_payload.data(), _payload.size()),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR) break;
        if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            return make_error(ErrorCode::io_error, "produce to " + _topic + ": " + rd_kafka_err2str(error));
        }
        rd_kafka_poll(_handle, 100);
    }
    rd_kafka_poll(_handle, 0);  // serves the delivery reports
    return Status();
}

Status PacedProducer::fill(int count) {
    for (int i = 0; i < count; ++i) {
        if (Status produced = produce_one(); !produced.ok()) return produced;
    }
    if (rd_kafka_flush(_handle, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error, "produce to " + _topic + ": not acknowledged in 60 s");
    }
    std::lock_guard<std::mutex> lock(_mutex);
    if (!_failure.empty()) return make_error(ErrorCode::io_error, _failure);
    return Status();
}

void PacedProducer::start(double records_per_s) {
    _stopping = false;
    _thread = std::thread([this, records_per_s] { run(records_per_s); });
}

void PacedProducer::run(double records_per_s) {
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / records_per_s));
    auto next = std::chrono::steady_clock::now();
    for (;;) {
        if (Status produced = produce_one(); !produced.ok()) {
            std::lock_guard<std::mutex> lock(_mutex);
            if (_failure.empty()) _failure = produced.error().message;
            return;
        }
        next += period;
        std::unique_lock<std::mutex> lock(_mutex);
        if (_wake.wait_until(lock, next, [this] { return _stopping; })) return;
    }
}

Status PacedProducer::stop() {
    {
        std::lock_guard<std::mutex> lock(_mutex);
        _stopping = true;
    }
    _wake.notify_all();
    if (_thread.joinable()) _thread.join();
    if (rd_kafka_flush(_handle, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error, "produce to " + _topic + ": not acknowledged in 60 s");
    }
    std::lock_guard<std::mutex> lock(_mutex);
    if (!_failure.empty()) return make_error(ErrorCode::io_error, _failure);
    return Status();
}

}  // namespace ballast::testing
