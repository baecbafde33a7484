#pragma once

/// What the integration tests need around the client under test, done with
/// independent tools: librdkafka (topics, configs, producing, metadata) and
/// Kafka's own command-line classes through tools/kafka-cluster. The cluster
/// is real: `tools/kafka-cluster up` started it, and its bootstrap servers
/// arrive in KAFKA_BOOTSTRAP_SERVERS. A secured one (`up --security sasl_ssl`)
/// is reached through SecuredCluster below.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "events/result.h"

struct rd_kafka_s;

namespace ballast::testing {

/// KAFKA_BOOTSTRAP_SERVERS, or "" when unset.
std::string bootstrap_servers_from_env();

/// The message a test fails with when no cluster is there.
std::string no_cluster_message();

/// librdkafka settings beyond bootstrap.servers, key and value.
using ClientSettings = std::vector<std::pair<std::string, std::string>>;

struct PartitionState {
    int32_t leader = -1;
    std::vector<int32_t> replicas;
    std::vector<int32_t> isr;
};

/// A librdkafka producer handle, used for admin calls and metadata as well.
class RdKafka {
public:
    /// `settings` come on top of the defaults (a secured cluster's, from
    /// SecuredCluster::rdkafka_settings); one librdkafka refuses aborts.
    explicit RdKafka(const std::string& bootstrap_servers, const ClientSettings& settings = {});
    ~RdKafka();
    RdKafka(const RdKafka&) = delete;
    RdKafka& operator=(const RdKafka&) = delete;

    /// Creates `topic` with one replica list per partition (first = preferred leader)
    /// and topic configs; waits until metadata shows every partition with a leader.
    events::Status create_topic(const std::string& topic,
                                const std::vector<std::vector<int32_t>>& assignment,
                                const std::vector<std::pair<std::string, std::string>>& configs = {});
    events::Status delete_topic(const std::string& topic);
    /// Deletes consumer group `group` (it must have no members left).
    events::Status delete_group(const std::string& group);
    /// Replaces the dynamic configs of broker `broker_id` (AlterConfigs is not
    /// incremental in librdkafka 2.0.2): an empty list removes them all.
    events::Status set_broker_configs(int32_t broker_id,
                                      const std::vector<std::pair<std::string, std::string>>& configs);
    /// The value broker `broker_id` itself reports for config `key` ("" if unset).
    events::Result<std::string> broker_config(int32_t broker_id, const std::string& key);
    /// The value of topic config `key` (DescribeConfigs; "" if it has none).
    events::Result<std::string> topic_config(const std::string& topic, const std::string& key);
    /// Produces `count` records of `bytes` bytes each to one partition, acks=all,
    /// and waits until every one is acknowledged; records whose delivery failed
    /// are produced again (twice at most), and an error names how many never were.
    events::Status produce(const std::string& topic, int32_t partition, int count, int bytes);
    events::Result<PartitionState> partition(const std::string& topic, int32_t partition);
    /// The partition's end offset (high watermark), asked of its leader.
    events::Result<int64_t> end_offset(const std::string& topic, int32_t partition);
    /// Replicas per broker id over every topic (internal ones too).
    events::Result<std::map<int32_t, int>> replica_counts();
    std::string cluster_id();

private:
    events::Result<std::string> describe_config(int type, const std::string& name, int32_t broker_id,
                                                const std::string& key);
    rd_kafka_s* _handle = nullptr;
    // Delivery reports of the current produce() call (served on its thread).
    int _undelivered = 0;
    std::string _first_undelivered;

    friend struct RdKafkaCallbacks;
};

/// Runs `tools/kafka-cluster ARGS` (KAFKA_CLUSTER_SCRIPT); stdout and stderr together.
struct CommandOutput {
    int exit_code = -1;
    std::string output;
};
CommandOutput kafka_cluster(const std::vector<std::string>& args);

/// The script's answer to `args`, its last line without the newline; an error quoting it
/// when it failed.
events::Result<std::string> ask_script(const std::vector<std::string>& args);

/// The running cluster when it is secured (`tools/kafka-cluster up --security sasl_ssl`;
/// BALLAST_KAFKA_RUN, inherited, names its run directory): one SASL_SSL listener a broker,
/// SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN, a CA made at start-up, Kafka's StandardAuthorizer.
/// Its users: `admin` (a super user), `ballast` (the ACLs Ballast needs), `observer` (Describe
/// on the cluster, every topic and group, nothing else) and `nobody` (no ACL); passwords are
/// drawn at each start.
class SecuredCluster {
public:
    static constexpr const char* users[] = {"admin", "ballast", "observer", "nobody"};

    /// Asks the script for the passwords and the CAs; an error says why when the cluster is
    /// not up or not secured.
    static events::Result<SecuredCluster> find(const std::string& bootstrap_servers);

    const std::string& bootstrap_servers() const { return _bootstrap_servers; }
    /// The password `user` has this run.
    const std::string& password(const std::string& user) const;
    /// The PEM CA that signed the brokers' certificate, and one that signed nothing of them.
    const std::string& ca_file() const { return _ca_file; }
    const std::string& untrusted_ca_file() const { return _untrusted_ca_file; }
    /// The brokers' log files (the run folder's logs/broker-N.log): a broker logs each
    /// failed authentication there, "Failed authentication with /127.0.0.1 (...)".
    std::vector<std::string> broker_logs() const;

    /// The path of `user`'s Kafka client properties (for Kafka's own tools: --command-config
    /// and the like): `mechanism` SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN, `truststore` pem
    /// (ssl.truststore.type=PEM) or pkcs12.
    events::Result<std::string> client_config(const std::string& user, const std::string& mechanism = "SCRAM-SHA-512",
                                              const std::string& truststore = "pem") const;

    /// librdkafka settings that log in as `user` with `mechanism` over TLS, the CA trusted and
    /// the host name checked. `password` replaces the user's own when given (a wrong one).
    /// PLAIN unless told: Kafka 4.x refuses the SCRAM of librdkafka before 2.6.1.
    ClientSettings rdkafka_settings(const std::string& user, const std::string& mechanism = "PLAIN",
                                    const std::string& password = "") const;

private:
    std::string _bootstrap_servers;
    std::map<std::string, std::string> _passwords;
    std::string _ca_file;
    std::string _untrusted_ca_file;
};

/// Polls `condition` every 200 ms until it holds or `timeout_ms` passes; the
/// bound keeps a broken cluster from hanging the suite, never a pass/fail on speed.
bool eventually(const std::function<bool()>& condition, int64_t timeout_ms);

}  // namespace ballast::testing
