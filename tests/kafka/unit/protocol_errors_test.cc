// Ballast's table of Kafka's error codes against the one the kafka-clients jar
// lists (the `error` lines of kafka_vectors.txt): same codes, names and
// retriable flags.

#include <gtest/gtest.h>

#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/response_errors.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::wire {
namespace {

TEST(ProtocolErrors, TableMatchesKafkaClients) {
    const auto& errors = testing::kafka_vectors().errors;
    ASSERT_GE(errors.size(), 130u) << "the vectors list Kafka's error codes";
    for (const testing::KafkaErrorEntry& entry : errors) {
        EXPECT_TRUE(is_known_error(entry.code)) << entry.code;
        EXPECT_EQ(error_name(entry.code), entry.name) << "code " << entry.code;
        EXPECT_EQ(is_retriable(entry.code), entry.retriable) << entry.name;
    }
    // Nothing in our table that Kafka does not have.
    EXPECT_FALSE(is_known_error(static_cast<int16_t>(errors.back().code + 1)));
}

TEST(ProtocolErrors, MessagesNameTheCodeAndItsNumber) {
    EXPECT_EQ((KafkaError{85, "No reassignment in progress for t-0"}).to_string(),
              "NO_REASSIGNMENT_IN_PROGRESS (85): No reassignment in progress for t-0");
    EXPECT_EQ((KafkaError{84, std::nullopt}).to_string(), "ELECTION_NOT_NEEDED (84)");
    EXPECT_EQ((KafkaError{999, std::nullopt}).to_string(), "UNKNOWN_ERROR_CODE (999)");
    EXPECT_FALSE(is_retriable(999));
}

// An authorization error names the ACL that would allow the request, as Kafka's ACL table
// has it for each API; the codes are the table's.
TEST(ProtocolErrors, AnAuthorizationErrorNamesTheAclThatAllowsTheRequest) {
    EXPECT_STREQ(error_name(error_codes::cluster_authorization_failed), "CLUSTER_AUTHORIZATION_FAILED");
    EXPECT_STREQ(error_name(error_codes::topic_authorization_failed), "TOPIC_AUTHORIZATION_FAILED");
    const std::string servers = "127.0.0.1:9094";
    EXPECT_EQ(missing_acl(ApiKey::alter_partition_reassignments, error_codes::cluster_authorization_failed,
                          "User:observer", servers),
              "User:observer needs ALTER on CLUSTER: kafka-acls --bootstrap-server 127.0.0.1:9094 --command-config "
              "ADMIN.properties --add --allow-principal User:observer --operation Alter --cluster");
    EXPECT_TRUE(missing_acl(ApiKey::elect_leaders, error_codes::cluster_authorization_failed, "User:o", servers)
                    .starts_with("User:o needs ALTER on CLUSTER"));
    EXPECT_TRUE(missing_acl(ApiKey::describe_log_dirs, error_codes::cluster_authorization_failed, "User:o", servers)
                    .ends_with("--operation Describe --cluster"));
    EXPECT_TRUE(missing_acl(ApiKey::list_partition_reassignments, error_codes::cluster_authorization_failed, "User:o",
                            servers)
                    .starts_with("User:o needs DESCRIBE on CLUSTER"));
    EXPECT_TRUE(missing_acl(ApiKey::describe_cluster, error_codes::topic_authorization_failed, "User:o", servers, "t")
                    .ends_with("needs DESCRIBE on TOPIC t: kafka-acls --bootstrap-server 127.0.0.1:9094 --command-config "
                               "ADMIN.properties --add --allow-principal User:o --operation Describe --topic t"));
    EXPECT_EQ(missing_acl(ApiKey::alter_partition_reassignments, error_codes::no_reassignment_in_progress, "User:o",
                          servers),
              "");

    SecurityOptions security;
    EXPECT_EQ(principal(security), "User:ANONYMOUS");
    security.protocol = SecurityProtocol::sasl_ssl;
    security.sasl.username = "ballast";
    EXPECT_EQ(principal(security), "User:ballast");
    security.protocol = SecurityProtocol::ssl;
    security.tls.keystore_path = "/etc/me.p12";
    EXPECT_EQ(principal(security), "the principal of the client certificate");
}

TEST(ProtocolApi, HeaderVersionsFollowFlexibility) {
    EXPECT_EQ(request_header_version(ApiKey::elect_leaders, 1), 1);
    EXPECT_EQ(request_header_version(ApiKey::elect_leaders, 2), 2);
    EXPECT_EQ(response_header_version(ApiKey::elect_leaders, 1), 0);
    EXPECT_EQ(response_header_version(ApiKey::elect_leaders, 2), 1);
    EXPECT_EQ(request_header_version(ApiKey::describe_cluster, 0), 2);
    // ApiVersions answers always use header v0, even for flexible versions.
    EXPECT_EQ(request_header_version(ApiKey::api_versions, 4), 2);
    EXPECT_EQ(response_header_version(ApiKey::api_versions, 4), 0);
}

}  // namespace
}  // namespace ballast::kafka::wire
