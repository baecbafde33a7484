#include "tests/kafka/integration/kafka_cluster.h"

#include <librdkafka/rdkafka.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace ballast::testing {

using events::ErrorCode;
using events::make_error;
using events::Status;

namespace {

constexpr int admin_timeout_ms = 30000;

/// Runs one admin operation and waits for its result event.
rd_kafka_event_t* wait_event(rd_kafka_queue_t* queue) {
    return rd_kafka_queue_poll(queue, admin_timeout_ms + 5000);
}

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

}  // namespace

std::string bootstrap_servers_from_env() {
    const char* value = std::getenv("KAFKA_BOOTSTRAP_SERVERS");
    return value == nullptr ? std::string() : std::string(value);
}

std::string no_cluster_message() {
    return "no Kafka cluster: KAFKA_BOOTSTRAP_SERVERS is not set. These tests need a real "
           "cluster: run `tools/run test` (it starts one), or `tools/kafka-cluster up` and "
           "`KAFKA_BOOTSTRAP_SERVERS=$(tools/kafka-cluster bootstrap) meson test -C build "
           "--setup kafka --suite kafka`";
}

struct RdKafkaCallbacks {
    // A failed delivery is counted, not lost: flush() returns once every
    // record is done with, delivered or not.
    static void delivered(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
        if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
        auto* rdkafka = static_cast<RdKafka*>(opaque);
        if (rdkafka->_undelivered++ == 0) rdkafka->_first_undelivered = rd_kafka_err2str(message->err);
    }
};

RdKafka::RdKafka(const std::string& bootstrap_servers, const ClientSettings& settings) {
    char error[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    ClientSettings all{{"bootstrap.servers", bootstrap_servers}, {"acks", "all"}, {"linger.ms", "5"}};
    all.insert(all.end(), settings.begin(), settings.end());
    for (const auto& [key, value] : all) {
        if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
            std::fprintf(stderr, "RdKafka: %s: %s\n", key.c_str(), error);
            std::abort();
        }
    }
    rd_kafka_conf_set_dr_msg_cb(conf, &RdKafkaCallbacks::delivered);
    rd_kafka_conf_set_opaque(conf, this);
    _handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error));
    if (_handle == nullptr) {
        std::fprintf(stderr, "rd_kafka_new: %s\n", error);
        std::abort();
    }
}

RdKafka::~RdKafka() {
    rd_kafka_flush(_handle, 10000);
    rd_kafka_destroy(_handle);
}

Status RdKafka::create_topic(const std::string& topic,
                             const std::vector<std::vector<int32_t>>& assignment,
                             const std::vector<std::pair<std::string, std::string>>& configs) {
    char error[512];
    rd_kafka_NewTopic_t* new_topic = rd_kafka_NewTopic_new(
        topic.c_str(), static_cast<int>(assignment.size()), -1, error, sizeof(error));
    if (new_topic == nullptr) return make_error(ErrorCode::invalid_argument, error);
    for (size_t p = 0; p < assignment.size(); ++p) {
        std::vector<int32_t> replicas = assignment[p];
        if (rd_kafka_NewTopic_set_replica_assignment(new_topic, static_cast<int32_t>(p),
                                                     replicas.data(), replicas.size(), error,
                                                     sizeof(error)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            rd_kafka_NewTopic_destroy(new_topic);
            return make_error(ErrorCode::invalid_argument, error);
        }
    }
    for (const auto& [key, value] : configs) {
        rd_kafka_NewTopic_set_config(new_topic, key.c_str(), value.c_str());
    }
    rd_kafka_queue_t* queue = rd_kafka_queue_new(_handle);
    rd_kafka_AdminOptions_t* options =
        rd_kafka_AdminOptions_new(_handle, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(options, admin_timeout_ms, error, sizeof(error));
    rd_kafka_CreateTopics(_handle, &new_topic, 1, options, queue);
    rd_kafka_event_t* event = wait_event(queue);
    Status status;
    if (event == nullptr) {
        status = make_error(ErrorCode::io_error, "CreateTopics " + topic + ": no answer");
    } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = make_error(ErrorCode::io_error,
                            "CreateTopics " + topic + ": " + rd_kafka_event_error_string(event));
    } else {
        size_t count = 0;
        const rd_kafka_topic_result_t** results =
            rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
        for (size_t i = 0; i < count; ++i) {
            if (rd_kafka_topic_result_error(results[i]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
                status = make_error(ErrorCode::conflict,
                                    "CreateTopics " + topic + ": " +
                                        rd_kafka_err2name(rd_kafka_topic_result_error(results[i])) +
                                        ": " + rd_kafka_topic_result_error_string(results[i]));
            }
        }
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_queue_destroy(queue);
    rd_kafka_NewTopic_destroy(new_topic);
    if (!status.ok()) return status;
    // Metadata reaches every broker shortly after the controller commits it.
    const bool ready = eventually(
        [&] {
            for (size_t p = 0; p < assignment.size(); ++p) {
                auto state = partition(topic, static_cast<int32_t>(p));
                if (!state.ok() || state->leader < 0) return false;
            }
            return true;
        },
        30000);
    if (!ready) return make_error(ErrorCode::io_error, topic + ": partitions have no leader");
    return Status();
}

Status RdKafka::delete_topic(const std::string& topic) {
    char error[512];
    rd_kafka_DeleteTopic_t* doomed = rd_kafka_DeleteTopic_new(topic.c_str());
    rd_kafka_queue_t* queue = rd_kafka_queue_new(_handle);
    rd_kafka_AdminOptions_t* options =
        rd_kafka_AdminOptions_new(_handle, RD_KAFKA_ADMIN_OP_DELETETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(options, admin_timeout_ms, error, sizeof(error));
    rd_kafka_DeleteTopics(_handle, &doomed, 1, options, queue);
    rd_kafka_event_t* event = wait_event(queue);
    Status status;
    if (event == nullptr || rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = make_error(ErrorCode::io_error, "DeleteTopics " + topic + " failed");
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_queue_destroy(queue);
    rd_kafka_DeleteTopic_destroy(doomed);
    return status;
}

Status RdKafka::delete_group(const std::string& group) {
    char error[512];
    rd_kafka_DeleteGroup_t* doomed = rd_kafka_DeleteGroup_new(group.c_str());
    rd_kafka_queue_t* queue = rd_kafka_queue_new(_handle);
    rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(_handle, RD_KAFKA_ADMIN_OP_DELETEGROUPS);
    rd_kafka_AdminOptions_set_request_timeout(options, admin_timeout_ms, error, sizeof(error));
    rd_kafka_DeleteGroups(_handle, &doomed, 1, options, queue);
    rd_kafka_event_t* event = wait_event(queue);
    Status status;
    if (event == nullptr || rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = make_error(ErrorCode::io_error, "DeleteGroups " + group + " failed");
    } else {
        size_t count = 0;
        const rd_kafka_group_result_t** results =
            rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(event), &count);
        for (size_t i = 0; i < count; i++) {
            if (const rd_kafka_error_t* failed = rd_kafka_group_result_error(results[i]); failed) {
                status = make_error(ErrorCode::io_error,
                                    "DeleteGroups " + group + ": " + rd_kafka_error_name(failed));
            }
        }
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_queue_destroy(queue);
    rd_kafka_DeleteGroup_destroy(doomed);
    return status;
}

Status RdKafka::set_broker_configs(int32_t broker_id,
                                   const std::vector<std::pair<std::string, std::string>>& configs) {
    char error[512];
    const std::string name = std::to_string(broker_id);
    rd_kafka_ConfigResource_t* resource =
        rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, name.c_str());
    for (const auto& [key, value] : configs) {
        rd_kafka_ConfigResource_set_config(resource, key.c_str(), value.c_str());
    }
    rd_kafka_queue_t* queue = rd_kafka_queue_new(_handle);
    rd_kafka_AdminOptions_t* options =
        rd_kafka_AdminOptions_new(_handle, RD_KAFKA_ADMIN_OP_ALTERCONFIGS);
    rd_kafka_AdminOptions_set_request_timeout(options, admin_timeout_ms, error, sizeof(error));
    // Broker configs must go to the broker they configure.
    rd_kafka_AdminOptions_set_broker(options, broker_id, error, sizeof(error));
    rd_kafka_AlterConfigs(_handle, &resource, 1, options, queue);
    rd_kafka_event_t* event = wait_event(queue);
    Status status;
    if (event == nullptr) {
        status = make_error(ErrorCode::io_error, "AlterConfigs broker " + name + ": no answer");
    } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = make_error(ErrorCode::io_error, "AlterConfigs broker " + name + ": " +
                                                     rd_kafka_event_error_string(event));
    } else {
        size_t count = 0;
        const rd_kafka_ConfigResource_t** results = rd_kafka_AlterConfigs_result_resources(
            rd_kafka_event_AlterConfigs_result(event), &count);
        for (size_t i = 0; i < count; ++i) {
            if (rd_kafka_ConfigResource_error(results[i]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
                status = make_error(ErrorCode::conflict,
                                    "AlterConfigs broker " + name + ": " +
                                        rd_kafka_ConfigResource_error_string(results[i]));
            }
        }
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_queue_destroy(queue);
    rd_kafka_ConfigResource_destroy(resource);
    return status;
}

events::Result<std::string> RdKafka::broker_config(int32_t broker_id, const std::string& key) {
    return describe_config(RD_KAFKA_RESOURCE_BROKER, std::to_string(broker_id), broker_id, key);
}

events::Result<std::string> RdKafka::topic_config(const std::string& topic, const std::string& key) {
    return describe_config(RD_KAFKA_RESOURCE_TOPIC, topic, -1, key);
}

events::Result<std::string> RdKafka::describe_config(int type, const std::string& name, int32_t broker_id,
                                                     const std::string& key) {
    char error[512];
    rd_kafka_ConfigResource_t* resource =
        rd_kafka_ConfigResource_new(static_cast<rd_kafka_ResourceType_t>(type), name.c_str());
    rd_kafka_queue_t* queue = rd_kafka_queue_new(_handle);
    rd_kafka_AdminOptions_t* options =
        rd_kafka_AdminOptions_new(_handle, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
    rd_kafka_AdminOptions_set_request_timeout(options, admin_timeout_ms, error, sizeof(error));
    // A broker's own configs must be asked of that broker.
    if (broker_id >= 0) rd_kafka_AdminOptions_set_broker(options, broker_id, error, sizeof(error));
    rd_kafka_DescribeConfigs(_handle, &resource, 1, options, queue);
    rd_kafka_event_t* event = wait_event(queue);
    events::Result<std::string> result =
        make_error(ErrorCode::io_error, std::string("DescribeConfigs ") + (broker_id >= 0 ? "broker " : "topic ") +
                                            name + ": no answer");
    if (event != nullptr && rd_kafka_event_error(event) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        size_t count = 0;
        const rd_kafka_ConfigResource_t** results = rd_kafka_DescribeConfigs_result_resources(
            rd_kafka_event_DescribeConfigs_result(event), &count);
        result = std::string();
        for (size_t i = 0; i < count; ++i) {
            size_t entry_count = 0;
            const rd_kafka_ConfigEntry_t** entries =
                rd_kafka_ConfigResource_configs(results[i], &entry_count);
            for (size_t e = 0; e < entry_count; ++e) {
                const char* value = rd_kafka_ConfigEntry_value(entries[e]);
                if (key == rd_kafka_ConfigEntry_name(entries[e]) && value != nullptr) {
                    result = std::string(value);
                }
            }
        }
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_queue_destroy(queue);
    rd_kafka_ConfigResource_destroy(resource);
    return result;
}

Status RdKafka::produce(const std::string& topic, int32_t partition, int count, int bytes) {
    const std::string name = topic + "-" + std::to_string(partition);
    std::string payload(static_cast<size_t>(bytes), 'x');
    int remaining = count;
    for (int attempt = 1;; ++attempt) {
        _undelivered = 0;
        _first_undelivered.clear();
        for (int i = 0; i < remaining; ++i) {
            // Vary the payload a little so that compression (none by default) cannot matter.
            payload[0] = static_cast<char>('a' + i % 26);
            // A topic created a moment ago may not be in the client's metadata
            // yet, or be there without its partitions: wait for them (30 s),
            // as for a full queue.
            for (int unknown_waits = 0;;) {
                const rd_kafka_resp_err_t error = rd_kafka_producev(
                    _handle, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                    RD_KAFKA_V_VALUE(payload.data(), payload.size()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                    RD_KAFKA_V_END);
                if (error == RD_KAFKA_RESP_ERR_NO_ERROR) break;
                const bool unknown =
                    error == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION || error == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
                if ((error != RD_KAFKA_RESP_ERR__QUEUE_FULL && !unknown) || (unknown && ++unknown_waits > 300)) {
                    return make_error(ErrorCode::io_error, "produce to " + name + ": " + rd_kafka_err2str(error));
                }
                if (unknown) {
                    // Ask for the metadata now: the client's own refresh of a
                    // topic it has seen without partitions may be minutes away.
                    const rd_kafka_metadata_t* metadata = nullptr;
                    if (rd_kafka_metadata(_handle, 1, nullptr, &metadata, 1000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
                        rd_kafka_metadata_destroy(metadata);
                    }
                }
                rd_kafka_poll(_handle, 100);
            }
            rd_kafka_poll(_handle, 0);
        }
        if (rd_kafka_flush(_handle, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            return make_error(ErrorCode::io_error, "produce to " + name + ": not acknowledged in 60 s");
        }
        if (_undelivered == 0) return Status();
        if (attempt == 3) {
            return make_error(ErrorCode::io_error, "produce to " + name + ": " + std::to_string(_undelivered) +
                                                       " of " + std::to_string(count) +
                                                       " records not delivered after 3 attempts (" +
                                                       _first_undelivered + ")");
        }
        std::fprintf(stderr, "RdKafka: produce to %s: %d records not delivered (%s), producing them again\n",
                     name.c_str(), _undelivered, _first_undelivered.c_str());
        remaining = _undelivered;
    }
}

events::Result<PartitionState> RdKafka::partition(const std::string& topic, int32_t partition) {
    rd_kafka_topic_t* handle = rd_kafka_topic_new(_handle, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* metadata = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(_handle, 0, handle, &metadata, 10000);
    rd_kafka_topic_destroy(handle);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error, "metadata of " + topic + ": " + rd_kafka_err2str(error));
    }
    events::Result<PartitionState> result =
        make_error(ErrorCode::not_found, topic + "-" + std::to_string(partition) + " not in metadata");
    for (int t = 0; t < metadata->topic_cnt; ++t) {
        const rd_kafka_metadata_topic_t& entry = metadata->topics[t];
        if (topic != entry.topic || entry.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
        for (int p = 0; p < entry.partition_cnt; ++p) {
            const rd_kafka_metadata_partition_t& found = entry.partitions[p];
            if (found.id != partition) continue;
            PartitionState state;
            state.leader = found.leader;
            state.replicas.assign(found.replicas, found.replicas + found.replica_cnt);
            state.isr.assign(found.isrs, found.isrs + found.isr_cnt);
            result = state;
        }
    }
    rd_kafka_metadata_destroy(metadata);
    return result;
}

events::Result<int64_t> RdKafka::end_offset(const std::string& topic, int32_t partition) {
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (int attempt = 0; attempt < 10; ++attempt) {
        int64_t low = -1, high = -1;
        error = rd_kafka_query_watermark_offsets(_handle, topic.c_str(), partition, &low, &high, 10000);
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR) return high;
        if (error != RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION && error != RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE) break;
        // The handle still knows the previous leader: this call does not refresh
        // its metadata, asking for the topic's does.
        (void)this->partition(topic, partition);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return make_error(ErrorCode::io_error,
                      "end offset of " + topic + "-" + std::to_string(partition) + ": " + rd_kafka_err2str(error));
}

events::Result<std::map<int32_t, int>> RdKafka::replica_counts() {
    const rd_kafka_metadata_t* metadata = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(_handle, 1, nullptr, &metadata, 10000);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return make_error(ErrorCode::io_error, std::string("metadata: ") + rd_kafka_err2str(error));
    }
    std::map<int32_t, int> counts;
    for (int b = 0; b < metadata->broker_cnt; ++b) counts[metadata->brokers[b].id] = 0;
    for (int t = 0; t < metadata->topic_cnt; ++t) {
        for (int p = 0; p < metadata->topics[t].partition_cnt; ++p) {
            const rd_kafka_metadata_partition_t& partition = metadata->topics[t].partitions[p];
            for (int r = 0; r < partition.replica_cnt; ++r) counts[partition.replicas[r]]++;
        }
    }
    rd_kafka_metadata_destroy(metadata);
    return counts;
}

std::string RdKafka::cluster_id() {
    char* id = rd_kafka_clusterid(_handle, 10000);
    std::string out = id == nullptr ? "" : id;
    if (id != nullptr) rd_kafka_mem_free(_handle, id);
    return out;
}


CommandOutput kafka_cluster(const std::vector<std::string>& args) {
    const char* script = std::getenv("KAFKA_CLUSTER_SCRIPT");
    CommandOutput result;
    if (script == nullptr) {
        result.output = "KAFKA_CLUSTER_SCRIPT is not set (meson sets it to tools/kafka-cluster)";
        return result;
    }
    std::string command = shell_quote(script);
    for (const std::string& arg : args) command += " " + shell_quote(arg);
    command += " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        result.output = "popen failed: " + command;
        return result;
    }
    char buffer[4096];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, got);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

events::Result<std::string> ask_script(const std::vector<std::string>& args) {
    CommandOutput answer = kafka_cluster(args);
    std::string text = answer.output;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (answer.exit_code != 0) {
        std::string command = "tools/kafka-cluster";
        for (const std::string& arg : args) command += " " + arg;
        return make_error(ErrorCode::io_error, command + " failed: " + text);
    }
    const size_t line = text.rfind('\n');
    return line == std::string::npos ? text : text.substr(line + 1);
}

events::Result<SecuredCluster> SecuredCluster::find(const std::string& bootstrap_servers) {
    events::Result<std::string> security = ask_script({"security"});
    if (!security) return security.error();
    if (*security != "sasl_ssl") {
        return make_error(ErrorCode::invalid_argument,
                          "the cluster is " + *security + ", these tests need a secured one: "
                          "`tools/kafka-cluster up --security sasl_ssl`, then KAFKA_BOOTSTRAP_SERVERS="
                          "$(tools/kafka-cluster bootstrap)");
    }
    SecuredCluster cluster;
    cluster._bootstrap_servers = bootstrap_servers;
    for (const char* user : users) {
        events::Result<std::string> password = ask_script({"password", user});
        if (!password) return password.error();
        cluster._passwords[user] = *password;
    }
    events::Result<std::string> ca = ask_script({"ca-file"});
    if (!ca) return ca.error();
    cluster._ca_file = *ca;
    events::Result<std::string> untrusted = ask_script({"ca-file", "--untrusted"});
    if (!untrusted) return untrusted.error();
    cluster._untrusted_ca_file = *untrusted;
    return cluster;
}

const std::string& SecuredCluster::password(const std::string& user) const {
    auto found = _passwords.find(user);
    if (found == _passwords.end()) {
        std::fprintf(stderr, "SecuredCluster: no user '%s'\n", user.c_str());
        std::abort();
    }
    return found->second;
}

events::Result<std::string> SecuredCluster::client_config(const std::string& user, const std::string& mechanism,
                                                          const std::string& truststore) const {
    return ask_script({"client-config", user, mechanism, truststore});
}

std::vector<std::string> SecuredCluster::broker_logs() const {
    // The CA lives in RUN/security/, the logs in RUN/logs/.
    const std::string security = _ca_file.substr(0, _ca_file.rfind('/'));
    const std::string run = security.substr(0, security.rfind('/'));
    return {run + "/logs/broker-1.log", run + "/logs/broker-2.log", run + "/logs/broker-3.log"};
}

ClientSettings SecuredCluster::rdkafka_settings(const std::string& user, const std::string& mechanism,
                                                const std::string& password) const {
    return {{"security.protocol", "SASL_SSL"},
            {"sasl.mechanisms", mechanism},
            {"sasl.username", user},
            {"sasl.password", password.empty() ? this->password(user) : password},
            {"ssl.ca.location", _ca_file},
            // librdkafka's default since 2.0, named so that no test depends on the default.
            {"ssl.endpoint.identification.algorithm", "https"}};
}

bool eventually(const std::function<bool()>& condition, int64_t timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        if (condition()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

}  // namespace ballast::testing
