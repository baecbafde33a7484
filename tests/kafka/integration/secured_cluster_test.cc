// A secured cluster (tools/kafka-cluster up --security sasl_ssl: SASL_SSL, SCRAM and PLAIN,
// Kafka's StandardAuthorizer) proved with independent clients, librdkafka and Kafka's own
// tools: the `ballast` user gets in and does with its ACLs what Ballast does; a wrong password,
// an untrusted CA, a user without the Alter ACL and one without any ACL are each refused, with
// the error that says why. SCRAM goes through Kafka's Java client: librdkafka before 2.6.1
// (Debian 12 has 2.0.2) sends a SCRAM proof that Kafka 4.x refuses, which one case records.
// Run by `tools/run test` with a secured cluster up.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::testing {
namespace {

constexpr int metadata_timeout_ms = 10000;
// A refused client retries; its first refusal is reported within a second or two. The bound
// only keeps a broken cluster from hanging the suite.
constexpr int64_t refusal_timeout_ms = 30000;
// Once refused, a metadata call that still gets no answer in this time shows that the client
// did not get in.
constexpr int refused_metadata_timeout_ms = 2000;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A topic name unique to this run, so that a rerun against the same cluster starts clean.
std::string topic_name(const std::string& base) { return "ballast-sec-" + base + "-" + std::to_string(::getpid()); }

/// What a librdkafka client saw when it asked for the metadata of every topic: the answer,
/// and every error librdkafka reported meanwhile. A refused login or TLS handshake shows
/// there: the metadata call itself only times out.
struct Probe {
    bool answered = false;
    std::string failure;  // the metadata call's error when not answered
    int brokers = 0;
    std::vector<std::string> topics;
    std::vector<std::pair<rd_kafka_resp_err_t, std::string>> errors;

    bool has_topic(const std::string& name) const {
        return std::find(topics.begin(), topics.end(), name) != topics.end();
    }
    /// The first reported error with `code`, or "".
    std::string error(rd_kafka_resp_err_t code) const {
        for (const auto& [seen, text] : errors) {
            if (seen == code) return text;
        }
        return "";
    }
    std::string all_errors() const {
        std::string out;
        for (const auto& [code, text] : errors) out += std::string(rd_kafka_err2name(code)) + ": " + text + "\n";
        return out.empty() ? "(none)" : out;
    }
};

struct ProbeErrors {
    std::mutex mutex;
    std::vector<std::pair<rd_kafka_resp_err_t, std::string>> seen;

    static void on_error(rd_kafka_t*, int error, const char* reason, void* opaque) {
        auto* self = static_cast<ProbeErrors*>(opaque);
        std::lock_guard<std::mutex> lock(self->mutex);
        self->seen.emplace_back(static_cast<rd_kafka_resp_err_t>(error), reason);
    }
    bool saw(rd_kafka_resp_err_t code) {
        std::lock_guard<std::mutex> lock(mutex);
        return std::any_of(seen.begin(), seen.end(), [&](const auto& error) { return error.first == code; });
    }
};

// The same refusals come through on_error, which a failing case prints: the log stays quiet.
void no_log(const rd_kafka_t*, int, const char*, const char*) {}

/// Asks for the metadata of every topic with `settings`. With `refusal`, first waits for an
/// error of that code to be reported, then gives the metadata call only a short time.
Probe probe(const std::string& bootstrap_servers, const ClientSettings& settings,
            std::optional<rd_kafka_resp_err_t> refusal = std::nullopt) {
    ProbeErrors errors;
    char text[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    ClientSettings all{{"bootstrap.servers", bootstrap_servers}, {"client.id", "ballast-secured-probe"}};
    all.insert(all.end(), settings.begin(), settings.end());
    for (const auto& [key, value] : all) {
        if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), text, sizeof(text)) != RD_KAFKA_CONF_OK) {
            ADD_FAILURE() << "librdkafka refuses " << key << ": " << text;
            rd_kafka_conf_destroy(conf);
            return {};
        }
    }
    rd_kafka_conf_set_error_cb(conf, &ProbeErrors::on_error);
    rd_kafka_conf_set_log_cb(conf, &no_log);
    rd_kafka_conf_set_opaque(conf, &errors);
    rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, text, sizeof(text));
    if (handle == nullptr) {
        ADD_FAILURE() << "rd_kafka_new: " << text;
        return {};
    }
    if (refusal) {
        // Error events reach on_error through poll; the handle connects on its own.
        (void)eventually(
            [&] {
                rd_kafka_poll(handle, 100);
                return errors.saw(*refusal);
            },
            refusal_timeout_ms);
    }
    Probe out;
    const rd_kafka_metadata_t* metadata = nullptr;
    const rd_kafka_resp_err_t failed =
        rd_kafka_metadata(handle, 1, nullptr, &metadata, refusal ? refused_metadata_timeout_ms : metadata_timeout_ms);
    if (failed == RD_KAFKA_RESP_ERR_NO_ERROR) {
        out.answered = true;
        out.brokers = metadata->broker_cnt;
        for (int t = 0; t < metadata->topic_cnt; ++t) out.topics.emplace_back(metadata->topics[t].topic);
        rd_kafka_metadata_destroy(metadata);
    } else {
        out.failure = std::string(rd_kafka_err2name(failed)) + ": " + rd_kafka_err2str(failed);
    }
    rd_kafka_poll(handle, 0);
    rd_kafka_destroy(handle);
    std::lock_guard<std::mutex> lock(errors.mutex);
    out.errors = errors.seen;
    return out;
}

class SecuredKafka : public ::testing::Test {
protected:
    // The cluster's users and files are asked of the script once; the topic every case
    // reads is made once, by the admin user, with five records in partition 0.
    static void SetUpTestSuite() {
        const std::string bootstrap = bootstrap_servers_from_env();
        if (bootstrap.empty()) {
            _setup_failure =
                "no Kafka cluster: KAFKA_BOOTSTRAP_SERVERS is not set. These tests need a secured cluster: run "
                "`tools/run test` (it starts one), or `tools/kafka-cluster up --security sasl_ssl` and "
                "`KAFKA_BOOTSTRAP_SERVERS=$(tools/kafka-cluster bootstrap) meson test -C build --setup kafka "
                "--suite kafka_secured`";
            return;
        }
        events::Result<testing::SecuredCluster> found = testing::SecuredCluster::find(bootstrap);
        if (!found) {
            _setup_failure = found.error().to_string();
            return;
        }
        _cluster.emplace(std::move(*found));
        RdKafka admin(bootstrap, _cluster->rdkafka_settings("admin", "PLAIN"));
        if (events::Status created = admin.create_topic(_topic, {{1, 2}, {2, 3}}); !created.ok()) {
            _setup_failure = "the admin user could not create " + _topic + ": " + created.error().to_string();
            return;
        }
        if (events::Status produced = admin.produce(_topic, 0, 5, 100); !produced.ok()) {
            _setup_failure = "the admin user could not produce to " + _topic + ": " + produced.error().to_string();
        }
    }

    static void TearDownTestSuite() { _cluster.reset(); }

    void SetUp() override { ASSERT_TRUE(_setup_failure.empty()) << _setup_failure; }

    const testing::SecuredCluster& cluster() const { return *_cluster; }

    RdKafka admin() const { return RdKafka(_cluster->bootstrap_servers(), _cluster->rdkafka_settings("admin", "PLAIN")); }

    /// Kafka's ReassignPartitionsCommand --execute as `user` (SCRAM-SHA-512) with `truststore`.
    CommandOutput reassign_as(const std::string& user, const std::string& topic, int32_t partition,
                              const std::vector<int32_t>& replicas, const std::string& truststore = "pem") {
        events::Result<std::string> config = cluster().client_config(user, "SCRAM-SHA-512", truststore);
        EXPECT_TRUE(config.ok()) << config.error().to_string();
        const std::string json = ::testing::TempDir() + topic + "-" + user + ".json";
        {
            std::ofstream out(json);
            out << R"({"version":1,"partitions":[{"topic":")" << topic << R"(","partition":)" << partition
                << R"(,"replicas":[)";
            for (size_t i = 0; i < replicas.size(); ++i) out << (i ? "," : "") << replicas[i];
            out << "]}]}";
        }
        return kafka_cluster({"cli", "reassign", "--bootstrap-server", cluster().bootstrap_servers(), "--execute",
                              "--reassignment-json-file", json, "--command-config", config.ok() ? *config : ""});
    }

    static std::vector<int32_t> replicas(RdKafka& client, const std::string& topic, int32_t partition) {
        events::Result<PartitionState> state = client.partition(topic, partition);
        EXPECT_TRUE(state.ok()) << state.error().to_string();
        return state.ok() ? state->replicas : std::vector<int32_t>{};
    }

    static inline std::optional<testing::SecuredCluster> _cluster;
    static inline std::string _setup_failure;
    static inline const std::string _topic = topic_name("seen");
};

// Metadata (Describe on every topic) and ListOffsets (Describe on the topic) over SASL_SSL,
// the host name verified against the certificate's 127.0.0.1.
TEST_F(SecuredKafka, BallastSeesTheClusterThroughLibrdkafka) {
    Probe seen = probe(cluster().bootstrap_servers(), cluster().rdkafka_settings("ballast", "PLAIN"));
    ASSERT_TRUE(seen.answered) << seen.failure << "\nerrors:\n" << seen.all_errors();
    EXPECT_EQ(seen.brokers, 3);
    EXPECT_TRUE(seen.has_topic(_topic)) << "ballast does not see " << _topic;
    RdKafka ballast(cluster().bootstrap_servers(), cluster().rdkafka_settings("ballast", "PLAIN"));
    EXPECT_FALSE(ballast.cluster_id().empty());
    events::Result<int64_t> end = ballast.end_offset(_topic, 0);
    ASSERT_TRUE(end.ok()) << end.error().to_string();
    EXPECT_EQ(*end, 5);
}

// Kafka's Java client with SCRAM-SHA-256: the topics listed (Metadata, Describe on each).
TEST_F(SecuredKafka, BallastListsTopicsWithScramSha256) {
    events::Result<std::string> config = cluster().client_config("ballast", "SCRAM-SHA-256");
    ASSERT_TRUE(config.ok()) << config.error().to_string();
    CommandOutput listed = kafka_cluster({"cli", "topics", "--list", "--command-config", *config});
    ASSERT_EQ(listed.exit_code, 0) << listed.output;
    EXPECT_TRUE(contains(listed.output, _topic)) << listed.output;
}

// Kafka's Java client with SCRAM-SHA-512 and the PKCS12 truststore moves a partition as
// Ballast would: ListPartitionReassignments, DescribeCluster and Metadata, then
// AlterPartitionReassignments (Alter on the cluster).
TEST_F(SecuredKafka, BallastMovesAPartitionWithScramSha512) {
    const std::string topic = topic_name("moved");
    RdKafka client = admin();
    ASSERT_TRUE(client.create_topic(topic, {{1, 2}}).ok());
    CommandOutput moved = reassign_as("ballast", topic, 0, {3, 1}, "pkcs12");
    ASSERT_EQ(moved.exit_code, 0) << moved.output;
    EXPECT_TRUE(contains(moved.output, "Successfully started partition reassignment")) << moved.output;
    EXPECT_TRUE(eventually([&] { return replicas(client, topic, 0) == std::vector<int32_t>{3, 1}; }, 60000))
        << "replicas of " << topic << "-0 stayed at " << ::testing::PrintToString(replicas(client, topic, 0));
    EXPECT_TRUE(client.delete_topic(topic).ok());
}

// What `ballast run --ha` does with the default group id, done by Kafka's tools as `ballast`:
// the journal topic created (Create on the ballast-journal prefix), a transactional producer
// with Ballast's transactional id (Write on it and on the topic), a consumer in the election's
// group (Read on the group and the topic). The topic's name is Ballast's, so a rerun on the
// same cluster finds it made.
TEST_F(SecuredKafka, BallastDoesWhatHighAvailabilityDoes) {
    events::Result<std::string> config = cluster().client_config("ballast");
    ASSERT_TRUE(config.ok()) << config.error().to_string();
    CommandOutput created = kafka_cluster({"cli", "topics", "--create", "--if-not-exists", "--topic", "ballast-journal",
                                           "--partitions", "1", "--replication-factor", "3", "--command-config", *config});
    ASSERT_EQ(created.exit_code, 0) << created.output;
    CommandOutput produced = kafka_cluster({"cli", "producer-perf", "--topic", "ballast-journal", "--num-records", "10",
                                            "--record-size", "100", "--throughput", "-1", "--transactional-id",
                                            "ballast-ha-ballast", "--transaction-duration-ms", "100",
                                            "--producer.config", *config});
    ASSERT_EQ(produced.exit_code, 0) << produced.output;
    EXPECT_TRUE(contains(produced.output, "10 records sent")) << produced.output;
    CommandOutput consumed = kafka_cluster({"cli", "consumer-perf", "--topic", "ballast-journal", "--group", "ballast",
                                            "--messages", "10", "--timeout", "30000", "--consumer.config", *config});
    EXPECT_EQ(consumed.exit_code, 0) << consumed.output;
    EXPECT_FALSE(contains(consumed.output, "authorization failed")) << consumed.output;
}

TEST_F(SecuredKafka, AWrongPasswordIsRefusedAsAnAuthenticationError) {
    // SCRAM-SHA-512, Kafka's Java client: its own properties with the password changed.
    events::Result<std::string> config = cluster().client_config("ballast");
    ASSERT_TRUE(config.ok()) << config.error().to_string();
    const std::string wrong = ::testing::TempDir() + topic_name("wrong-password") + ".properties";
    {
        std::ifstream in(*config);
        std::ofstream out(wrong);
        const std::string password = cluster().password("ballast");
        for (std::string line; std::getline(in, line);) {
            if (const size_t at = line.find(password); at != std::string::npos) line.insert(at, "not-");
            out << line << "\n";
        }
    }
    CommandOutput refused = kafka_cluster({"cli", "cluster", "cluster-id", "--config", wrong});
    EXPECT_NE(refused.exit_code, 0) << refused.output;
    EXPECT_TRUE(contains(refused.output, "SaslAuthenticationException")) << refused.output;
    EXPECT_TRUE(contains(refused.output, "invalid credentials with SASL mechanism SCRAM-SHA-512")) << refused.output;

    // PLAIN, librdkafka.
    Probe plain = probe(cluster().bootstrap_servers(),
                        cluster().rdkafka_settings("ballast", "PLAIN", "not-" + cluster().password("ballast")),
                        RD_KAFKA_RESP_ERR__AUTHENTICATION);
    EXPECT_FALSE(plain.answered);
    const std::string error = plain.error(RD_KAFKA_RESP_ERR__AUTHENTICATION);
    ASSERT_FALSE(error.empty()) << "no authentication error; errors:\n" << plain.all_errors();
    EXPECT_TRUE(contains(error, "Invalid username or password")) << error;
}

// librdkafka before 2.6.1 appends its client nonce a second time in SCRAM's final message
// and Kafka 4.x checks the nonce strictly, so SCRAM with the right password is refused; from
// 2.6.1 on it works (tools/README.md). Whichever librdkafka this is, the
// case says what it does, and fails when that changes.
TEST_F(SecuredKafka, LibrdkafkaScramAgainstKafka4) {
    const bool nonce_fixed = rd_kafka_version() >= 0x020601ff;
    for (const char* mechanism : {"SCRAM-SHA-256", "SCRAM-SHA-512"}) {
        SCOPED_TRACE(std::string(mechanism) + " with librdkafka " + rd_kafka_version_str());
        Probe seen = probe(cluster().bootstrap_servers(), cluster().rdkafka_settings("ballast", mechanism),
                           nonce_fixed ? std::nullopt : std::optional(RD_KAFKA_RESP_ERR__AUTHENTICATION));
        if (nonce_fixed) {
            EXPECT_TRUE(seen.answered) << seen.failure << "\nerrors:\n" << seen.all_errors();
        } else {
            EXPECT_FALSE(seen.answered) << "librdkafka " << rd_kafka_version_str() << " logged in with " << mechanism
                                        << ": the SCRAM nonce bug is gone, and this case and tools/README.md "
                                           "should say so";
            const std::string error = seen.error(RD_KAFKA_RESP_ERR__AUTHENTICATION);
            EXPECT_TRUE(contains(error, "invalid credentials with SASL mechanism " + std::string(mechanism)))
                << "errors:\n" << seen.all_errors();
        }
    }
}

TEST_F(SecuredKafka, ABrokerCertificateFromAnotherCaIsNotTrusted) {
    ClientSettings settings = cluster().rdkafka_settings("ballast", "PLAIN");
    for (auto& [key, value] : settings) {
        if (key == "ssl.ca.location") value = cluster().untrusted_ca_file();
    }
    Probe refused = probe(cluster().bootstrap_servers(), settings, RD_KAFKA_RESP_ERR__SSL);
    EXPECT_FALSE(refused.answered);
    const std::string error = refused.error(RD_KAFKA_RESP_ERR__SSL);
    ASSERT_FALSE(error.empty()) << "no TLS error; errors:\n" << refused.all_errors();
    EXPECT_TRUE(contains(error, "certificate verify failed")) << error;
}

// allow.everyone.if.no.acl.found=false: a user without ACLs logs in and sees nothing.
TEST_F(SecuredKafka, NobodyLogsInAndSeesNoTopic) {
    Probe seen = probe(cluster().bootstrap_servers(), cluster().rdkafka_settings("nobody", "PLAIN"));
    ASSERT_TRUE(seen.answered) << seen.failure << "\nerrors:\n" << seen.all_errors();
    EXPECT_EQ(seen.brokers, 3);
    EXPECT_TRUE(seen.topics.empty()) << "nobody sees " << seen.topics.size() << " topics, " << seen.topics.front();
}

// Everything described, Alter on the cluster missing: the move itself is refused.
TEST_F(SecuredKafka, ObserverIsRefusedTheAlterOfAReassignment) {
    CommandOutput refused = reassign_as("observer", _topic, 1, {1, 3});
    EXPECT_NE(refused.exit_code, 0) << refused.output;
    EXPECT_TRUE(contains(refused.output, "Error reassigning partition(s)")) << refused.output;
    EXPECT_TRUE(contains(refused.output, "needs ALTER permission")) << refused.output;
    RdKafka client = admin();
    EXPECT_EQ(replicas(client, _topic, 1), (std::vector<int32_t>{2, 3}));
}

// No ACL at all: refused at the tool's first cluster call (ListPartitionReassignments).
TEST_F(SecuredKafka, NobodyIsRefusedAReassignment) {
    CommandOutput refused = reassign_as("nobody", _topic, 1, {1, 3});
    EXPECT_NE(refused.exit_code, 0) << refused.output;
    EXPECT_TRUE(contains(refused.output, "ClusterAuthorizationException")) << refused.output;
    RdKafka client = admin();
    EXPECT_EQ(replicas(client, _topic, 1), (std::vector<int32_t>{2, 3}));
}

}  // namespace
}  // namespace ballast::testing
