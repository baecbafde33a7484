// The wire client against a real Apache Kafka cluster (wire_client_fixture.h): what it
// negotiates, what DescribeCluster says, a SASL client refused by a PLAINTEXT listener, a
// broker restarted under it. The cluster's requests at every version are
// wire_versions_test.cc, the reassignments and log dirs wire_admin_test.cc. Run by
// `tools/run test` with the cluster up.

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/kafka/integration/wire_client_fixture.h"

namespace ballast::kafka::wire {
namespace {

using namespace fixture;

TEST_F(KafkaCluster, ApiVersionsNegotiatesTheHighestCommonVersion) {
    AdminClient admin = client();
    Result<BrokerConnection*> connection = admin.any_broker(call_timeout_ms);
    ASSERT_TRUE(connection.ok()) << connection.error().to_string();
    const ApiVersionsResponse& theirs = (*connection)->broker_versions();
    EXPECT_GT(theirs.api_keys.size(), 40u);  // a 4.1 broker lists ~60 APIs
    for (const ApiSpec& spec : implemented_apis()) {
        SCOPED_TRACE(spec.name);
        // The controller listener's alone: kafka_metadata_log_it speaks it to the controller.
        if (spec.key == ApiKey::fetch_snapshot) continue;
        const VersionRange range = theirs.range(spec.key);
        ASSERT_FALSE(range.empty()) << "the broker does not list " << spec.name;
        Result<int16_t> version = (*connection)->version_for(spec.key);
        ASSERT_TRUE(version.ok()) << version.error().to_string();
        EXPECT_EQ(*version, std::min(spec.versions.max, range.max));
        std::printf("  %-28s ours v%d-%d, broker v%d-%d: using v%d\n", spec.name,
                    spec.versions.min, spec.versions.max, range.min, range.max, *version);
    }
}

TEST_F(KafkaCluster, DescribeClusterListsTheThreeBrokersWithRacksAndEndpoints) {
    AdminClient admin = client();
    DescribeClusterRequest request;
    request.include_fenced_brokers = true;
    Result<DescribeClusterResponse> cluster = admin.describe_cluster(request, call_timeout_ms);
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    ASSERT_TRUE(response_errors(*cluster).ok()) << response_errors(*cluster).error().to_string();
    EXPECT_EQ(cluster->cluster_id, _rdkafka->cluster_id());
    ASSERT_EQ(cluster->brokers.size(), 3u);
    std::vector<DescribeClusterBroker> brokers = cluster->brokers;
    std::sort(brokers.begin(), brokers.end(),
              [](const auto& a, const auto& b) { return a.broker_id < b.broker_id; });
    for (int32_t id = 1; id <= 3; ++id) {
        const DescribeClusterBroker& broker = brokers[id - 1];
        EXPECT_EQ(broker.broker_id, id);
        EXPECT_EQ(broker.rack, "rack-" + std::to_string(id));
        EXPECT_FALSE(broker.is_fenced);
        // tools/kafka-cluster lists brokers 1, 2, 3 in that order.
        ASSERT_EQ(_servers.size(), 3u);
        EXPECT_EQ(broker.host, _servers[id - 1].host);
        EXPECT_EQ(broker.port, _servers[id - 1].port);
    }
    // KRaft brokers name a live broker as "controller" (clients cannot reach the
    // controller quorum directly).
    EXPECT_GE(cluster->controller_id, 1);
    EXPECT_LE(cluster->controller_id, 3);
}

// A client configured for SASL against a PLAINTEXT listener: the broker's refusal,
// named, and no request sent past it.
TEST_F(KafkaCluster, SaslAgainstAPlaintextListenerSaysSo) {
    ClientOptions options;
    options.bootstrap_servers = {_servers[0]};
    options.connection.security.protocol = SecurityProtocol::sasl_plaintext;
    options.connection.security.sasl.mechanism = SaslMechanism::scram_sha_512;
    options.connection.security.sasl.username = "ballast";
    options.connection.security.sasl.password = Secret("not-shown");
    AdminClient admin(std::move(options));
    Result<DescribeClusterResponse> cluster = admin.describe_cluster({}, call_timeout_ms);
    ASSERT_FALSE(cluster.ok());
    EXPECT_TRUE(contains(cluster.error().message,
                         "SASL authentication failed for user 'ballast' with SCRAM-SHA-512: "
                         "SaslHandshake refused: ILLEGAL_SASL_STATE (34)"))
        << cluster.error().message;
    EXPECT_FALSE(contains(cluster.error().message, "not-shown"));
}

// Last: it restarts a broker. A stopped broker's error names it; once it is back, the
// same client reconnects on its own.
TEST_F(KafkaCluster, ZzReconnectsToABrokerThatRestarted) {
    AdminClient admin = client();
    ASSERT_TRUE(admin.describe_log_dirs(3, {}, call_timeout_ms).ok());
    Result<BrokerConnection*> before = admin.broker(3, call_timeout_ms);
    ASSERT_TRUE(before.ok());
    const uint64_t opens = (*before)->open_count();

    testing::CommandOutput stopped = kafka_cluster({"stop-broker", "3"});
    ASSERT_EQ(stopped.exit_code, 0) << stopped.output;
    auto down = admin.describe_log_dirs(3, {}, 5000);
    ASSERT_FALSE(down.ok());
    EXPECT_TRUE(contains(down.error().message, "broker 3: connect to PLAINTEXT 127.0.0.1:"))
        << down.error().message;

    testing::CommandOutput started = kafka_cluster({"start-broker", "3"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    auto up = admin.describe_log_dirs(3, {}, call_timeout_ms);
    ASSERT_TRUE(up.ok()) << up.error().to_string();
    EXPECT_GT((*admin.broker(3, call_timeout_ms))->open_count(), opens);
}

}  // namespace
}  // namespace ballast::kafka::wire
