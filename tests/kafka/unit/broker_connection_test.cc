// The connection's behaviour where a real broker cannot be made to misbehave on
// demand: a scripted broker on a real loopback socket answers with Kafka-generated
// frames, or stays silent, closes, or sends what no broker should. Version
// negotiation, timeouts, reconnects, correlation ids and framing limits.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "tests/kafka/support/kafka_vectors.h"
#include "tests/kafka/support/scripted_broker.h"

namespace ballast::kafka::wire {
namespace {

using namespace ballast::kafka::wire::messages;

using testing::kafka_vectors;
using testing::ScriptedBroker;
using Action = ScriptedBroker::Action;

constexpr int16_t api_versions_key = 18;
constexpr int16_t describe_cluster_key = 60;

/// ApiVersions answered with Kafka's v4 vector (ApiVersions 0-4, DescribeCluster 0-2).
Action api_versions_v4(const ScriptedBroker::Request& request) {
    return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.v4"), request);
}

Action describe_cluster_v2(const ScriptedBroker::Request& request) {
    return ScriptedBroker::answer(kafka_vectors().at("response.describe_cluster.v2"), request);
}

BrokerConnection connect_to(const ScriptedBroker& broker, ConnectionOptions options = {}) {
    return BrokerConnection("127.0.0.1", broker.port(), std::move(options));
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Waits (bounded) until the broker has closed `count` connections.
void wait_closed(const ScriptedBroker& broker, int count) {
    for (int i = 0; i < 200 && broker.closed() < count; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GE(broker.closed(), count);
}

TEST(BrokerConnection, NegotiatesTheHighestCommonVersion) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        return request.api_key == api_versions_key ? api_versions_v4(request)
                                                   : describe_cluster_v2(request);
    });
    BrokerConnection connection = connect_to(broker);
    ASSERT_TRUE(connection.ensure_open(Deadline::after_ms(5000)).ok());
    EXPECT_EQ(broker.requests().front().api_version, 4);  // our highest ApiVersions
    EXPECT_EQ(*connection.version_for(ApiKey::describe_cluster), 2);
    // The vector lists only ApiVersions and DescribeCluster.
    Result<int16_t> none = connection.version_for(ApiKey::elect_leaders);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message,
              "ElectLeaders to 127.0.0.1:" + std::to_string(broker.port()) +
                  ": no version in common (Ballast speaks v0-2, the broker none)");

    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    EXPECT_EQ(cluster->cluster_id, "cluster-abc");
    EXPECT_EQ(broker.requests().back().api_version, 2);
}

TEST(BrokerConnection, VersionCapsLowerOurSide) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        if (request.api_key == api_versions_key) {
            return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.v1"), request);
        }
        return ScriptedBroker::answer(kafka_vectors().at("response.describe_cluster.v1"), request);
    });
    ConnectionOptions options;
    options.version_caps = {{ApiKey::api_versions, 1}, {ApiKey::describe_cluster, 1}};
    BrokerConnection connection = connect_to(broker, options);
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    EXPECT_EQ(broker.requests()[0].api_version, 1);
    EXPECT_EQ(broker.requests()[1].api_version, 1);
    EXPECT_EQ(cluster->brokers.size(), 2u);
}

// An older broker answers an ApiVersions version it does not know with
// UNSUPPORTED_VERSION in the v0 layout and its own range; we ask again at its highest.
TEST(BrokerConnection, RetriesApiVersionsAtTheBrokersHighest) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        if (request.api_key == api_versions_key && request.api_version > 2) {
            return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.unsupported.v0"),
                                          request);
        }
        return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.v2"), request);
    });
    BrokerConnection connection = connect_to(broker);
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_TRUE(opened.ok()) << opened.error().to_string();
    const auto requests = broker.requests();
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests[0].api_version, 4);
    EXPECT_EQ(requests[1].api_version, 2);
    EXPECT_EQ(requests[1].connection, 1);  // same connection
    EXPECT_EQ(*connection.version_for(ApiKey::describe_cluster), 2);
}

TEST(BrokerConnection, ASilentBrokerTimesOutAndTheNextCallReconnects) {
    std::atomic<bool> silent{true};
    ScriptedBroker broker([&](const ScriptedBroker::Request& request) {
        if (request.api_key == api_versions_key) return api_versions_v4(request);
        if (silent.load()) return Action{Action::silent, {}};
        return describe_cluster_v2(request);
    });
    BrokerConnection connection = connect_to(broker);
    Result<DescribeClusterResponse> timed_out =
        connection.call<DescribeCluster>({}, Deadline::after_ms(300));
    ASSERT_FALSE(timed_out.ok());
    const std::string& message = timed_out.error().message;
    EXPECT_EQ(timed_out.error().code, events::ErrorCode::io_error);
    EXPECT_TRUE(contains(message, "DescribeCluster v2 to 127.0.0.1:")) << message;
    EXPECT_TRUE(contains(message, "timed out waiting for the response")) << message;
    EXPECT_TRUE(contains(message, "the request was sent: whether the broker applied it is unknown"))
        << message;
    EXPECT_FALSE(connection.is_open());

    silent.store(false);
    Result<DescribeClusterResponse> answered =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_TRUE(answered.ok()) << answered.error().to_string();
    EXPECT_EQ(connection.open_count(), 2u);
    EXPECT_EQ(broker.connections(), 2);
}

TEST(BrokerConnection, AStreamTheBrokerClosedWhileIdleIsReopenedBeforeSending) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        if (request.api_key == api_versions_key) return api_versions_v4(request);
        Action action = describe_cluster_v2(request);
        if (request.connection == 1) action.kind = Action::respond_then_close;
        return action;
    });
    BrokerConnection connection = connect_to(broker);
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
    wait_closed(broker, 1);
    // The broker closed the idle connection (as connections.max.idle.ms does): the next
    // call notices before it sends and reconnects, instead of failing.
    Result<DescribeClusterResponse> again =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_EQ(connection.open_count(), 2u);
    EXPECT_EQ(broker.requests().back().connection, 2);
}

TEST(BrokerConnection, AWrongCorrelationIdFailsAndCloses) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        if (request.api_key == api_versions_key) return api_versions_v4(request);
        ScriptedBroker::Request other = request;
        other.correlation_id += 40;
        return describe_cluster_v2(other);
    });
    BrokerConnection connection = connect_to(broker);
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_FALSE(cluster.ok());
    EXPECT_EQ(cluster.error().code, events::ErrorCode::corruption);
    EXPECT_TRUE(contains(cluster.error().message, "response carries correlation id 42, expected 2"))
        << cluster.error().message;
    EXPECT_FALSE(connection.is_open());
}

TEST(BrokerConnection, AMalformedBodyFailsButKeepsTheConnection) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        if (request.api_key == api_versions_key) return api_versions_v4(request);
        Action action = describe_cluster_v2(request);
        if (request.correlation_id == 2) action.frame.resize(action.frame.size() - 3);
        return action;
    });
    BrokerConnection connection = connect_to(broker);
    Result<DescribeClusterResponse> cut =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().message.rfind("DescribeClusterResponse v2 from 127.0.0.1:", 0), 0u)
        << cut.error().message;
    EXPECT_TRUE(contains(cut.error().message, "truncated")) << cut.error().message;
    EXPECT_TRUE(connection.is_open());
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
    EXPECT_EQ(connection.open_count(), 1u);
}

TEST(BrokerConnection, AnOversizedResponseIsRefused) {
    ScriptedBroker broker([](const ScriptedBroker::Request&) {
        return Action{Action::raw_then_close, {0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1}};
    });
    BrokerConnection connection = connect_to(broker);
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, events::ErrorCode::corruption);
    EXPECT_TRUE(contains(opened.error().message,
                         "ApiVersions v4 to 127.0.0.1:" + std::to_string(broker.port()) +
                             ": response size 2147483647 is outside 4..67108864 bytes"))
        << opened.error().message;
}

TEST(BrokerConnection, ABrokerThatClosesMidResponseFails) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        std::vector<uint8_t> frame = kafka_vectors().at("response.api_versions.v4");
        Action action = ScriptedBroker::answer(frame, request);
        std::vector<uint8_t> half{0, 0, 0, static_cast<uint8_t>(frame.size())};
        half.insert(half.end(), action.frame.begin(), action.frame.begin() + 10);
        return Action{Action::raw_then_close, half};
    });
    BrokerConnection connection = connect_to(broker);
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_TRUE(contains(opened.error().message, "connection closed by the broker after 10 of "))
        << opened.error().message;
}

TEST(BrokerConnection, RefusedConnectionsNameTheAddress) {
    const int32_t port = testing::closed_port();
    BrokerConnection connection("127.0.0.1", port, {});
    Status opened = connection.ensure_open(Deadline::after_ms(2000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message,
              "connect to PLAINTEXT 127.0.0.1:" + std::to_string(port) + ": Connection refused");
}

TEST(AdminClient, FallsBackToTheNextBootstrapServerAndListsFailures) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        return request.api_key == api_versions_key ? api_versions_v4(request)
                                                   : describe_cluster_v2(request);
    });
    const int32_t dead = testing::closed_port();
    AdminClient client({{{"127.0.0.1", dead}, {"127.0.0.1", broker.port()}}, {}});
    Result<DescribeClusterResponse> cluster = client.describe_cluster({}, 5000);
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    EXPECT_EQ(cluster->controller_id, 2);

    AdminClient unreachable({{{"127.0.0.1", dead}}, {}});
    Result<DescribeClusterResponse> none = unreachable.describe_cluster({}, 2000);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message, "no broker reachable: connect to PLAINTEXT 127.0.0.1:" +
                                        std::to_string(dead) + ": Connection refused");
}

TEST(AdminClient, AnUnknownBrokerIdIsNamed) {
    ScriptedBroker broker([](const ScriptedBroker::Request& request) {
        return request.api_key == api_versions_key ? api_versions_v4(request)
                                                   : describe_cluster_v2(request);
    });
    AdminClient client({{{"127.0.0.1", broker.port()}}, {}});
    Result<DescribeLogDirsResponse> dirs = client.describe_log_dirs(7, {}, 5000);
    ASSERT_FALSE(dirs.ok());
    EXPECT_EQ(dirs.error().code, events::ErrorCode::not_found);
    EXPECT_EQ(dirs.error().message,
              "broker 7 is not in the cluster (DescribeCluster lists 1, 2)");
}

TEST(BootstrapServers, ParsesListsAndNamesBadEntries) {
    Result<std::vector<BrokerAddress>> parsed =
        parse_bootstrap_servers("127.0.0.1:9092, broker-2:9093,[::1]:9094");
    ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
    EXPECT_EQ(*parsed, (std::vector<BrokerAddress>{
                           {"127.0.0.1", 9092}, {"broker-2", 9093}, {"::1", 9094}}));
    EXPECT_EQ(parse_bootstrap_servers("localhost").error().message,
              "bootstrap server 'localhost': expected host:port");
    EXPECT_EQ(parse_bootstrap_servers("a:1,b:99999").error().message,
              "bootstrap server 'b:99999': port '99999' is not a number in 1-65535");
    EXPECT_EQ(parse_bootstrap_servers(" , ").error().message,
              "bootstrap servers ' , ': expected host:port[,host:port...]");
    EXPECT_EQ(parse_bootstrap_servers(":9092").error().message,
              "bootstrap server ':9092': empty host");
}

}  // namespace
}  // namespace ballast::kafka::wire
