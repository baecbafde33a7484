#include "adapters/kafka/ha/writer.h"

#include <spdlog/spdlog.h>

#include "adapters/kafka/ha/rdkafka.h"
#include "adapters/kafka/ha/snapshot_chunk.h"

namespace ballast::kafka::ha {

using events::ErrorCode;
using events::make_error;
using detail::error_text;
using detail::ErrorPtr;

namespace {

constexpr size_t message_bytes_max = size_t{8} << 20;

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

events::Result<std::unique_ptr<KafkaJournalWriter>> KafkaJournalWriter::become(KafkaJournalWriterOptions options) {
    if (options.transactional_id.empty() || options.journal_topic.empty() || options.snapshots_topic.empty() ||
        options.instance_id.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "the journal's writer needs a transactional id, both topics and an instance id");
    }
    if (options.lease_ms <= 0) {
        return make_error(ErrorCode::invalid_argument,
                          "the journal's writer: lease " + std::to_string(options.lease_ms) + " ms must be positive");
    }
    std::unique_ptr<KafkaJournalWriter> writer(new KafkaJournalWriter(std::move(options)));
    const KafkaJournalWriterOptions& o = writer->_options;
    const std::string what = "the journal's writer (transactional id " + o.transactional_id + ")";
    const detail::Settings settings{
        {"transactional.id", o.transactional_id},
        {"enable.idempotence", "true"},
        {"acks", "all"},
        {"message.max.bytes", std::to_string(message_bytes_max)},
        {"linger.ms", std::to_string(o.linger_ms)},
        {"transaction.timeout.ms", std::to_string(o.transaction_timeout_ms)},
        // A deleted topic is an error, never one made again with the
        // broker's defaults.
        {"allow.auto.create.topics", "false"},
    };
    events::Result<detail::Handle> handle = detail::make_handle(
        RD_KAFKA_PRODUCER, {o.bootstrap_servers, o.instance_id, o.call_timeout_ms, o.client_settings}, settings,
        what);
    if (!handle) return handle.error();
    // InitProducerId: the coordinator bumps the id's epoch (fencing every
    // earlier producer of it) and aborts the transaction one left open.
    ErrorPtr error(rd_kafka_init_transactions(handle->get(), detail::timeout_int(o.call_timeout_ms)));
    if (error) {
        return make_error(rd_kafka_error_is_fatal(error.get()) ? ErrorCode::conflict : ErrorCode::io_error,
                          "becoming " + what + " at bootstrap servers " + o.bootstrap_servers +
                              ": init_transactions: " + error_text(error.get()));
    }
    writer->_handle = handle->release();
    writer->_last_commit_ns.store(steady_ns(), std::memory_order_release);
    spdlog::info("{}: became the journal's writer (transactional id {}, topics {} and {})", o.instance_id,
                 o.transactional_id, o.journal_topic, o.snapshots_topic);
    return writer;
}

KafkaJournalWriter::~KafkaJournalWriter() {
    // An open transaction is left to the coordinator (the next writer's
    // init aborts it, or its timeout does); messages still queued are purged.
    if (_handle != nullptr) rd_kafka_destroy(_handle);
}

bool KafkaJournalWriter::may_act() const {
    if (_spent.load(std::memory_order_acquire)) return false;
    const int64_t since_ns = steady_ns() - _last_commit_ns.load(std::memory_order_acquire);
    return since_ns < _options.lease_ms * 1'000'000;
}

events::Status KafkaJournalWriter::publish(const std::vector<store::ShippedRun>& runs) {
    if (runs.empty()) {
        std::lock_guard<std::mutex> lock(_mutex);
        if (_spent_error) return *_spent_error;
        return {};
    }
    events::Result<std::pair<uint64_t, uint64_t>> first = store::shipped_run_bounds(runs.front());
    events::Result<std::pair<uint64_t, uint64_t>> last = store::shipped_run_bounds(runs.back());
    if (!first || !last) {
        return make_error(ErrorCode::invalid_argument,
                          "publishing journal runs to topic " + _options.journal_topic + ": " +
                              (!first ? first.error().message : last.error().message));
    }
    const std::string what = "publishing journal runs seq " + std::to_string(first->first) + ".." +
                             std::to_string(last->second) + " (" + std::to_string(runs.size()) +
                             " runs) to topic " + _options.journal_topic + " partition 0";
    return transaction(what, [&]() -> events::Status {
        for (const store::ShippedRun& run : runs) {
            if (events::Status produced = produce(_options.journal_topic, run.key, run.value); !produced) {
                return produced;
            }
        }
        return {};
    });
}

events::Status KafkaJournalWriter::publish_snapshot(uint64_t seq, std::span<const uint8_t> bytes) {
    const uint32_t parts = snapshot_part_count(bytes.size());
    const std::string what = "publishing the snapshot at seq " + std::to_string(seq) + " (" +
                             std::to_string(bytes.size()) + " bytes in " + std::to_string(parts) +
                             " parts) to topic " + _options.snapshots_topic + " partition 0";
    const std::string key = snapshot_chunk_key(seq);
    // Several transactions of a few parts each, not one: between them the
    // journal's publications go on (one transaction at a time), so that a
    // large snapshot neither holds the journal's appends nor lets the lease
    // run out. Only this thread writes the snapshots topic, so the parts stay
    // consecutive among its committed messages; a publication cut short
    // leaves parts that readers skip (snapshot_chunk.h).
    const uint32_t per_transaction = std::max<uint32_t>(1, _options.snapshot_parts_per_transaction);
    for (uint32_t from = 0; from < parts; from += per_transaction) {
        const uint32_t to = std::min(parts, from + per_transaction);
        const std::string step = parts <= per_transaction ? what
                                                          : what + ", parts " + std::to_string(from) + ".." +
                                                                std::to_string(to - 1) + " (the ones before committed)";
        events::Status committed = transaction(step, [&]() -> events::Status {
            for (uint32_t part = from; part < to; part++) {
                const std::string value = encode_snapshot_chunk(seq, bytes, part);
                if (events::Status produced = produce(_options.snapshots_topic, key, value); !produced) {
                    return produced;
                }
            }
            return {};
        });
        if (!committed) return committed;
    }
    return {};
}

events::Status KafkaJournalWriter::transaction(const std::string& what,
                                               const std::function<events::Status()>& produce_all) {
    std::lock_guard<std::mutex> lock(_mutex);
    if (_spent_error) return *_spent_error;
    const int timeout = detail::timeout_int(_options.call_timeout_ms);
    if (ErrorPtr error(rd_kafka_begin_transaction(_handle)); error) {
        return failed(what, "begin_transaction", error_text(error.get()), rd_kafka_error_is_fatal(error.get()));
    }
    if (events::Status produced = produce_all(); !produced) {
        return failed(what, "produce", produced.error().message, false);
    }
    if (_options.before_commit) {
        rd_kafka_flush(_handle, timeout);
        _options.before_commit();
    }
    // The lease counts from before the commit is asked: the coordinator
    // accepted it after this, so this instance was the writer then at least.
    const int64_t commit_asked_ns = steady_ns();
    if (ErrorPtr error(rd_kafka_commit_transaction(_handle, timeout)); error) {
        return failed(what, "commit_transaction", error_text(error.get()), rd_kafka_error_is_fatal(error.get()));
    }
    _last_commit_ns.store(commit_asked_ns, std::memory_order_release);
    _commits.fetch_add(1, std::memory_order_relaxed);
    rd_kafka_poll(_handle, 0);  // serves the error callback's queue
    return {};
}

events::Status KafkaJournalWriter::produce(const std::string& topic, const std::string& key, std::string_view value) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(_options.call_timeout_ms);
    for (;;) {
        // Copied: an abort or a fatal error may leave messages queued after
        // the call returns, and the caller's bytes do not live that long.
        const rd_kafka_resp_err_t error = rd_kafka_producev(
            _handle, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
            RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR) return {};
        if (error == RD_KAFKA_RESP_ERR__QUEUE_FULL && detail::ms_until(deadline) > 0) {
            rd_kafka_poll(_handle, 10);
            continue;
        }
        return make_error(ErrorCode::io_error, "a message of " + std::to_string(value.size()) + " bytes for topic " +
                                                   topic + " partition 0: " + error_text(error));
    }
}

events::Status KafkaJournalWriter::failed(const std::string& what, const std::string& step, const std::string& cause,
                                          bool fatal) {
    char reason[512] = "";
    const rd_kafka_resp_err_t fatal_code = rd_kafka_fatal_error(_handle, reason, sizeof(reason));
    const std::string detail = "transactional id " + _options.transactional_id + "; " + what + ": " + step + ": " +
                               cause;
    if (fatal || fatal_code != RD_KAFKA_RESP_ERR_NO_ERROR) {
        const bool fenced = fatal_code == RD_KAFKA_RESP_ERR__FENCED ||
                            fatal_code == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
                            fatal_code == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
        if (fenced || fatal_code == RD_KAFKA_RESP_ERR_NO_ERROR) {
            return spend("fenced: another instance became the journal's writer (" + detail + ")");
        }
        return spend("fenced: the journal's writer failed fatally and writes no more (" + detail + "; " +
                     error_text(fatal_code) + ": " + reason + ")");
    }
    // Abortable or retriable: abort, so that the producer can go on.
    if (ErrorPtr abort(rd_kafka_abort_transaction(_handle, detail::timeout_int(_options.call_timeout_ms))); abort) {
        if (rd_kafka_error_is_fatal(abort.get())) {
            return spend("fenced: another instance became the journal's writer (" + detail +
                         "; then abort_transaction: " + error_text(abort.get()) + ")");
        }
        return spend("the journal's writer is spent: its transaction may or may not be committed (" + detail +
                     "; then abort_transaction: " + error_text(abort.get()) +
                     "); it writes no more until this instance becomes the writer again");
    }
    spdlog::warn("{}: {}: {} failed ({}); the transaction was aborted", _options.instance_id, what, step, cause);
    return make_error(ErrorCode::io_error, what + ": " + step + " failed: " + cause +
                                               "; the transaction was aborted: nothing of it is committed");
}

events::Status KafkaJournalWriter::spend(std::string message) {
    spdlog::error("{}: {}", _options.instance_id, message);
    _spent_error = make_error(ErrorCode::conflict, std::move(message));
    _spent.store(true, std::memory_order_release);
    return *_spent_error;
}

}  // namespace ballast::kafka::ha
