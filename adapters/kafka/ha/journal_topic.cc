#include "adapters/kafka/ha/journal_topic.h"

#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

#include "adapters/kafka/ha/rdkafka.h"

namespace ballast::kafka::ha {

using events::ErrorCode;
using events::make_error;
using detail::error_text;

namespace {

/// Runs are up to ~1 MiB and a bit, snapshot parts 1 MiB and a header.
constexpr const char* max_message_bytes = "8388608";
constexpr const char* snapshot_retention_ms = "86400000";  // 24 h

struct NewTopicDeleter {
    void operator()(rd_kafka_NewTopic_t* topic) const { rd_kafka_NewTopic_destroy(topic); }
};
using NewTopicPtr = std::unique_ptr<rd_kafka_NewTopic_t, NewTopicDeleter>;

/// CreateTopics for `topics` (name, configs); which were created.
events::Result<std::vector<bool>> create_topics(
    rd_kafka_t* admin, const std::vector<std::pair<std::string, detail::Settings>>& topics,
    int16_t replication_factor, const KafkaHaOptions& options) {
    char error[512];
    std::vector<NewTopicPtr> owned;
    std::vector<rd_kafka_NewTopic_t*> raw;
    for (const auto& [name, configs] : topics) {
        NewTopicPtr topic(rd_kafka_NewTopic_new(name.c_str(), 1, replication_factor, error, sizeof(error)));
        if (!topic) return make_error(ErrorCode::invalid_argument, "topic " + name + ": " + error);
        for (const auto& [key, value] : configs) {
            if (rd_kafka_resp_err_t set = rd_kafka_NewTopic_set_config(topic.get(), key.c_str(), value.c_str()); set) {
                return make_error(ErrorCode::invalid_argument,
                                  "topic " + name + ": config " + key + "=" + value + ": " + error_text(set));
            }
        }
        raw.push_back(topic.get());
        owned.push_back(std::move(topic));
    }
    rd_kafka_queue_t* queue = rd_kafka_queue_new(admin);
    rd_kafka_AdminOptions_t* admin_options = rd_kafka_AdminOptions_new(admin, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(admin_options, detail::timeout_int(options.call_timeout_ms), error,
                                                sizeof(error));
    rd_kafka_AdminOptions_set_request_timeout(admin_options, detail::timeout_int(options.call_timeout_ms), error,
                                              sizeof(error));
    rd_kafka_CreateTopics(admin, raw.data(), raw.size(), admin_options, queue);
    rd_kafka_event_t* event = rd_kafka_queue_poll(queue, detail::timeout_int(options.call_timeout_ms + 5'000));
    events::Result<std::vector<bool>> result = std::vector<bool>(topics.size(), false);
    std::string names;
    for (const auto& [name, configs] : topics) names += (names.empty() ? "" : ", ") + name;
    const std::string what = "creating topic(s) " + names + " at bootstrap servers " + options.bootstrap_servers;
    if (event == nullptr) {
        result = make_error(ErrorCode::io_error, what + ": no answer within " +
                                                     std::to_string(options.call_timeout_ms + 5'000) + " ms");
    } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        result = make_error(ErrorCode::io_error, what + ": " + error_text(rd_kafka_event_error(event)) + ": " +
                                                     rd_kafka_event_error_string(event));
    } else {
        size_t count = 0;
        const rd_kafka_topic_result_t** results =
            rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
        for (size_t i = 0; i < count && result.ok(); i++) {
            const std::string name = rd_kafka_topic_result_name(results[i]);
            const rd_kafka_resp_err_t code = rd_kafka_topic_result_error(results[i]);
            if (code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) continue;  // another instance made it
            if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
                const char* message = rd_kafka_topic_result_error_string(results[i]);
                result = make_error(ErrorCode::io_error, "creating topic " + name + " at bootstrap servers " +
                                                             options.bootstrap_servers + ": " + error_text(code) +
                                                             (message ? std::string(": ") + message : ""));
                break;
            }
            for (size_t t = 0; t < topics.size(); t++) {
                if (topics[t].first == name) (*result)[t] = true;
            }
        }
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(admin_options);
    rd_kafka_queue_destroy(queue);
    return result;
}

}  // namespace

events::Result<HaTopics> ensure_ha_topics(const KafkaHaOptions& options) {
    const std::string journal = options.journal_topic_name();
    const std::string snapshots = options.snapshots_topic_name();
    events::Result<detail::Handle> admin =
        detail::make_handle(RD_KAFKA_PRODUCER,
                            {options.bootstrap_servers, options.instance_id, options.call_timeout_ms,
                             options.client_settings},
                               {{"allow.auto.create.topics", "false"}}, "the HA topics' admin client");
    if (!admin) return admin.error();
    events::Result<detail::ClusterInfo> cluster =
        detail::cluster_info(admin->get(), {journal, snapshots}, options.call_timeout_ms);
    if (!cluster) {
        return make_error(cluster.error().code,
                          cluster.error().message + " (bootstrap servers " + options.bootstrap_servers + ")");
    }
    if (cluster->brokers <= 0) {
        return make_error(ErrorCode::io_error, "the cluster at bootstrap servers " + options.bootstrap_servers +
                                                   " lists no brokers");
    }
    HaTopics topics;
    topics.brokers = cluster->brokers;
    const auto replication_factor = static_cast<int16_t>(std::min(3, cluster->brokers));
    // Two copies must take a commit once there are three: one broker down
    // loses nothing and stops nothing.
    const std::string min_insync = replication_factor >= 3 ? "2" : "1";
    std::vector<std::pair<std::string, detail::Settings>> missing;
    if (!cluster->topics[0].exists) {
        missing.push_back({journal,
                           {{"min.insync.replicas", min_insync},
                            {"max.message.bytes", max_message_bytes},
                            {"cleanup.policy", "delete"},
                            {"retention.ms", std::to_string(options.journal_retention_ms)},
                            {"retention.bytes", options.journal_retention_bytes > 0
                                                    ? std::to_string(options.journal_retention_bytes)
                                                    : std::string("-1")}}});
    }
    if (!cluster->topics[1].exists) {
        missing.push_back({snapshots,
                           {{"min.insync.replicas", min_insync},
                            {"max.message.bytes", max_message_bytes},
                            {"cleanup.policy", "delete"},
                            {"retention.ms", snapshot_retention_ms}}});
    }
    if (!missing.empty()) {
        events::Result<std::vector<bool>> created = create_topics(admin->get(), missing, replication_factor, options);
        if (!created) return created.error();
        for (size_t i = 0; i < missing.size(); i++) {
            if (!(*created)[i]) continue;
            (missing[i].first == journal ? topics.journal_created : topics.snapshots_created) = true;
            spdlog::info("{}: created topic {} (1 partition, replication factor {}, min.insync.replicas {})",
                         options.instance_id, missing[i].first, replication_factor, min_insync);
        }
    }
    // Metadata reaches every broker shortly after the controller commits it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.call_timeout_ms);
    for (const std::string& name : {journal, snapshots}) {
        for (;;) {
            events::Result<detail::TopicInfo> info =
                detail::topic_info(admin->get(), name, detail::ms_until(deadline));
            if (info && info->exists && info->partitions > 1) {
                return make_error(ErrorCode::conflict,
                                  "topic " + name + " at bootstrap servers " + options.bootstrap_servers + " has " +
                                      std::to_string(info->partitions) +
                                      " partitions; high availability needs exactly one (the journal's order is "
                                      "one partition's order)");
            }
            if (info && info->exists && info->partitions == 1 && info->leader_of_0 >= 0) {
                if (name == journal) topics.replication_factor = info->replicas_of_0;
                break;
            }
            if (detail::ms_until(deadline) == 0) {
                return make_error(ErrorCode::io_error,
                                  "topic " + name + " partition 0 at bootstrap servers " + options.bootstrap_servers +
                                      " has no leader after " + std::to_string(options.call_timeout_ms) + " ms" +
                                      (info ? "" : ": " + info.error().message));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    return topics;
}

events::Result<std::unique_ptr<KafkaHaLog>> KafkaHaLog::open(KafkaHaOptions options) {
    if (options.bootstrap_servers.empty() || options.instance_id.empty() || options.group_id.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "high availability on Kafka needs bootstrap servers, an instance id and a group id");
    }
    if (options.heartbeat_interval_ms <= 0 || options.heartbeat_interval_ms >= options.session_timeout_ms) {
        return make_error(ErrorCode::invalid_argument,
                          "heartbeat interval " + std::to_string(options.heartbeat_interval_ms) +
                              " ms must be positive and shorter than the session timeout " +
                              std::to_string(options.session_timeout_ms) + " ms");
    }
    if (options.effective_lease_ms() <= 0 || options.effective_lease_ms() >= options.session_timeout_ms) {
        return make_error(ErrorCode::invalid_argument,
                          "the lease of " + std::to_string(options.effective_lease_ms()) +
                              " ms must be positive and shorter than the session timeout " +
                              std::to_string(options.session_timeout_ms) +
                              " ms (by default it is the session timeout less two heartbeats and a second)");
    }
    std::unique_ptr<KafkaHaLog> log(new KafkaHaLog(std::move(options)));
    const KafkaHaOptions& o = log->_options;
    events::Result<HaTopics> topics = ensure_ha_topics(o);
    if (!topics) return topics.error();
    log->_topics = *topics;

    KafkaJournalReaderOptions reader;
    reader.bootstrap_servers = o.bootstrap_servers;
    reader.client_settings = o.client_settings;
    reader.instance_id = o.instance_id;
    reader.journal_topic = o.journal_topic_name();
    reader.snapshots_topic = o.snapshots_topic_name();
    reader.reader_group = o.group_id + "-reader";
    reader.call_timeout_ms = o.call_timeout_ms;
    reader.caught_up_wait_ms = o.caught_up_wait_ms;
    reader.read_runs_max = o.read_runs_max;
    reader.read_bytes_max = o.read_bytes_max;
    events::Result<std::unique_ptr<KafkaJournalReader>> created = KafkaJournalReader::create(std::move(reader));
    if (!created) return created.error();
    log->_reader = std::move(*created);

    if (o.join_election) {
        KafkaElectionOptions election;
        election.bootstrap_servers = o.bootstrap_servers;
        election.client_settings = o.client_settings;
        election.instance_id = o.instance_id;
        election.group_id = o.group_id;
        election.topic = o.journal_topic_name();
        election.session_timeout_ms = o.session_timeout_ms;
        election.heartbeat_interval_ms = o.heartbeat_interval_ms;
        election.assignment_strategy = o.assignment_strategy;
        events::Result<std::unique_ptr<KafkaElection>> joined = KafkaElection::join(std::move(election));
        if (!joined) return joined.error();
        log->_election = std::move(*joined);
    }
    return log;
}

KafkaHaLog::~KafkaHaLog() { close(); }

bool KafkaHaLog::elected() { return _election != nullptr && _election->elected(); }

events::Status KafkaHaLog::become_writer() {
    // A new producer every time: its InitProducerId is what fences.
    _writer.reset();
    KafkaJournalWriterOptions writer;
    writer.bootstrap_servers = _options.bootstrap_servers;
    writer.client_settings = _options.client_settings;
    writer.instance_id = _options.instance_id;
    writer.transactional_id = _options.transactional_id();
    writer.journal_topic = _options.journal_topic_name();
    writer.snapshots_topic = _options.snapshots_topic_name();
    writer.call_timeout_ms = _options.call_timeout_ms;
    writer.lease_ms = _options.effective_lease_ms();
    writer.transaction_timeout_ms = _options.transaction_timeout_ms;
    writer.before_commit = _options.before_commit;
    writer.snapshot_parts_per_transaction = _options.snapshot_parts_per_transaction;
    events::Result<std::unique_ptr<KafkaJournalWriter>> became = KafkaJournalWriter::become(std::move(writer));
    if (!became) return became.error();
    _writer = std::move(*became);
    return {};
}

actors::JournalReplica* KafkaHaLog::writer() { return _writer.get(); }

void KafkaHaLog::drop_writer() {
    if (_writer) spdlog::info("{}: no longer the journal's writer", _options.instance_id);
    _writer.reset();
}

events::Status KafkaHaLog::seek_after(uint64_t seq) { return _reader->seek_after(seq); }

events::Result<std::vector<store::ShippedRun>> KafkaHaLog::read(int64_t timeout_ms) { return _reader->read(timeout_ms); }

events::Result<bool> KafkaHaLog::caught_up() { return _reader->caught_up(); }

events::Result<std::optional<store::Snapshot>> KafkaHaLog::newest_snapshot() { return _reader->newest_snapshot(); }

events::Result<uint64_t> KafkaHaLog::first_seq() { return _reader->first_seq(); }

void KafkaHaLog::close() {
    drop_writer();
    if (_election) _election->close();
}

}  // namespace ballast::kafka::ha
