// Ballast's own wire client against the secured cluster, configured from the client
// properties the harness writes for Kafka's tools, read as `ballast run --command-config`
// reads them: DescribeCluster over SASL_SSL with SCRAM-SHA-512, SCRAM-SHA-256 (the PKCS12
// truststore) and PLAIN; a wrong password named with its mechanism and user, an untrusted CA
// named as such, and a refusal by the authorizer naming the ACL that would allow the request.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "adapters/kafka/client_properties.h"
#include "adapters/kafka/wire/admin_client.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::testing {
namespace {

constexpr int64_t call_timeout_ms = 15'000;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class SecuredWire : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string bootstrap = bootstrap_servers_from_env();
        ASSERT_FALSE(bootstrap.empty()) << no_cluster_message();
        events::Result<SecuredCluster> found = SecuredCluster::find(bootstrap);
        ASSERT_TRUE(found.ok()) << found.error().to_string();
        _cluster.emplace(std::move(*found));
    }

    /// A client configured by `user`'s client properties with `mechanism` and `truststore`,
    /// and `settings` (kafka.* keys) on top, as `ballast --set ... run --command-config F`.
    kafka::wire::AdminClient client(const std::string& user, const std::string& mechanism,
                                    const std::string& truststore = "pem",
                                    const std::vector<std::string>& settings = {}) {
        events::Result<std::string> file = _cluster->client_config(user, mechanism, truststore);
        EXPECT_TRUE(file.ok()) << file.error().to_string();
        events::Config config = events::Config::defaults();
        for (const std::string& s : settings) EXPECT_TRUE(config.apply_override(s).ok()) << s;
        events::Result<kafka::ClientConfig> read = kafka::read_client_config(config, file.ok() ? *file : "");
        EXPECT_TRUE(read.ok()) << read.error().to_string();
        kafka::wire::ClientOptions options;
        options.bootstrap_servers = *kafka::wire::parse_bootstrap_servers(_cluster->bootstrap_servers());
        if (read.ok()) options.connection.security = read->security;
        return kafka::wire::AdminClient(options);
    }

    /// The login line of `user` with `password`.
    static std::string jaas(const std::string& module, const std::string& user, const std::string& password) {
        return "kafka.sasl.jaas.config=org.apache.kafka.common.security." + module + " required username=\"" + user +
               "\" password=\"" + password + "\";";
    }

    std::optional<SecuredCluster> _cluster;
};

TEST_F(SecuredWire, DescribeClusterOverSaslSslWithEachMechanism) {
    for (const auto& [mechanism, truststore] : std::vector<std::pair<std::string, std::string>>{
             {"SCRAM-SHA-512", "pem"}, {"SCRAM-SHA-256", "pkcs12"}, {"PLAIN", "pem"}}) {
        SCOPED_TRACE(mechanism + " with the " + truststore + " truststore");
        kafka::wire::AdminClient admin = client("ballast", mechanism, truststore);
        events::Result<kafka::wire::messages::DescribeClusterResponse> cluster = admin.describe_cluster({}, call_timeout_ms);
        ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
        EXPECT_TRUE(cluster->error.ok()) << cluster->error.to_string();
        EXPECT_EQ(cluster->brokers.size(), 3u);
        events::Result<kafka::wire::BrokerConnection*> connection = admin.any_broker(call_timeout_ms);
        ASSERT_TRUE(connection.ok());
        EXPECT_TRUE((*connection)->describe().starts_with("SASL_SSL 127.0.0.1:")) << (*connection)->describe();
        // Describe on the cluster: what runs is listed (nothing of ballast's, maybe others').
        events::Result<kafka::wire::messages::ListPartitionReassignmentsResponse> listed =
            admin.list_partition_reassignments({}, call_timeout_ms);
        ASSERT_TRUE(listed.ok()) << listed.error().to_string();
        EXPECT_TRUE(listed->error.ok()) << listed->error.to_string();
    }
}

TEST_F(SecuredWire, AWrongPasswordNamesTheMechanismAndTheUser) {
    for (const auto& [mechanism, module] : std::vector<std::pair<std::string, std::string>>{
             {"SCRAM-SHA-512", "scram.ScramLoginModule"}, {"PLAIN", "plain.PlainLoginModule"}}) {
        SCOPED_TRACE(mechanism);
        const std::string wrong = "not-" + _cluster->password("ballast");
        kafka::wire::AdminClient admin = client("ballast", mechanism, "pem", {jaas(module, "ballast", wrong)});
        events::Result<kafka::wire::messages::DescribeClusterResponse> refused = admin.describe_cluster({}, call_timeout_ms);
        ASSERT_FALSE(refused.ok());
        // The rest is the broker's: "... invalid credentials with SASL mechanism SCRAM-SHA-512" for
        // SCRAM, "Invalid username or password" for PLAIN.
        EXPECT_TRUE(contains(refused.error().message,
                             "SASL authentication failed for user 'ballast' with " + mechanism + ": Authentication failed"))
            << refused.error().message;
        EXPECT_FALSE(contains(refused.error().message, wrong));
    }
}

TEST_F(SecuredWire, AnUntrustedCertificateSaysSo) {
    kafka::wire::AdminClient admin = client("ballast", "SCRAM-SHA-512", "pem",
                                            {"kafka.ssl.truststore.location=" + _cluster->untrusted_ca_file()});
    events::Result<kafka::wire::messages::DescribeClusterResponse> refused = admin.describe_cluster({}, call_timeout_ms);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(contains(refused.error().message, "certificate verify failed: the broker's certificate is not trusted"))
        << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "truststore " + _cluster->untrusted_ca_file()));
}

// observer may describe everything but alter nothing; nobody may not even list what runs.
TEST_F(SecuredWire, ARefusalNamesTheAclThatWouldAllowTheRequest) {
    kafka::wire::AdminClient observer = client("observer", "SCRAM-SHA-512");
    kafka::wire::messages::AlterPartitionReassignmentsRequest move;
    move.topics.push_back({"ballast-sec-never-made", {}});
    move.topics.back().partitions.push_back({0, std::vector<int32_t>{1}});
    events::Result<kafka::wire::messages::AlterPartitionReassignmentsResponse> refused =
        observer.alter_partition_reassignments(move, call_timeout_ms);
    ASSERT_TRUE(refused.ok()) << refused.error().to_string();
    EXPECT_EQ(refused->error.code, kafka::wire::error_codes::cluster_authorization_failed)
        << refused->error.to_string();
    EXPECT_EQ(observer.missing_acl(kafka::wire::ApiKey::alter_partition_reassignments, refused->error.code),
              "User:observer needs ALTER on CLUSTER: kafka-acls --bootstrap-server " + _cluster->bootstrap_servers() +
                  " --command-config ADMIN.properties --add --allow-principal User:observer --operation Alter "
                  "--cluster");

    kafka::wire::AdminClient nobody = client("nobody", "PLAIN");
    events::Result<kafka::wire::messages::ListPartitionReassignmentsResponse> listed =
        nobody.list_partition_reassignments({}, call_timeout_ms);
    ASSERT_TRUE(listed.ok()) << listed.error().to_string();
    EXPECT_EQ(listed->error.code, kafka::wire::error_codes::cluster_authorization_failed);
    EXPECT_TRUE(nobody.missing_acl(kafka::wire::ApiKey::list_partition_reassignments, listed->error.code)
                    .starts_with("User:nobody needs DESCRIBE on CLUSTER: kafka-acls"));
}

}  // namespace
}  // namespace ballast::testing
