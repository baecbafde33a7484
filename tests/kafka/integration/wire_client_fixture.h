#pragma once

// What the wire client's cases against a real Apache Kafka cluster share (KRaft, brokers
// 1-3 on racks rack-1..3, started by tools/kafka-cluster): the fixture that gives each a
// client and librdkafka beside it, Kafka's ReassignPartitionsCommand, unique topic names.

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/response_errors.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka::wire::fixture {

using namespace ballast::kafka::wire::messages;

using testing::eventually;

using testing::kafka_cluster;
using testing::PartitionState;
using testing::RdKafka;

inline constexpr int64_t call_timeout_ms = 15000;

/// FindCoordinator's answer once every key has a coordinator: on a fresh cluster the first
/// asks create `__consumer_offsets`, and until its partitions have leaders every key is
/// COORDINATOR_NOT_AVAILABLE (retriable), as Kafka's own clients see it.
inline Result<FindCoordinatorResponse> find_coordinators(AdminClient& admin, const FindCoordinatorRequest& request) {
    Result<FindCoordinatorResponse> found = admin.find_coordinator(request, call_timeout_ms);
    (void)eventually(
        [&] {
            found = admin.find_coordinator(request, call_timeout_ms);
            if (!found.ok()) return false;
            for (const Coordinator& c : found->coordinators) {
                if (c.error.code == error_codes::coordinator_not_available) return false;
            }
            return true;
        },
        60'000);
    return found;
}

inline constexpr int64_t settle_timeout_ms = 60000;

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// A topic name unique to this run, so that a rerun against the same cluster starts clean.
inline std::string topic_name(const std::string& base) {
    return "ballast-it-" + base + "-" + std::to_string(::getpid());
}

class KafkaCluster : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        Result<std::vector<BrokerAddress>> servers = parse_bootstrap_servers(_bootstrap);
        ASSERT_TRUE(servers.ok()) << servers.error().to_string();
        _servers = *servers;
        _rdkafka = std::make_unique<RdKafka>(_bootstrap);
    }

    AdminClient client(std::vector<std::pair<ApiKey, int16_t>> caps = {}) {
        ClientOptions options;
        options.bootstrap_servers = _servers;
        options.connection.version_caps = std::move(caps);
        return AdminClient(std::move(options));
    }

    PartitionState partition(const std::string& topic, int32_t index) {
        auto state = _rdkafka->partition(topic, index);
        EXPECT_TRUE(state.ok()) << state.error().to_string();
        return state.ok() ? *state : PartitionState{};
    }

    /// Kafka's ReassignPartitionsCommand, as an operator runs it.
    testing::CommandOutput reassign_tool(const std::vector<std::string>& args) {
        std::vector<std::string> command{"cli", "reassign", "--bootstrap-server", _bootstrap};
        command.insert(command.end(), args.begin(), args.end());
        return kafka_cluster(command);
    }

    std::string write_reassignment_json(const std::string& topic, int32_t partition,
                                        const std::vector<int32_t>& replicas) {
        const std::string path = ::testing::TempDir() + topic + ".json";
        std::ofstream out(path);
        out << R"({"version":1,"partitions":[{"topic":")" << topic << R"(","partition":)"
            << partition << R"(,"replicas":[)";
        for (size_t i = 0; i < replicas.size(); ++i) out << (i ? "," : "") << replicas[i];
        out << "]}]}";
        return path;
    }

    std::string _bootstrap;
    std::vector<BrokerAddress> _servers;
    std::unique_ptr<RdKafka> _rdkafka;
};

inline Result<DescribeLogDirsResponse> not_asked() {
    return events::make_error(events::ErrorCode::not_found, "not asked yet");
}

inline AlterPartitionReassignmentsRequest reassign(const std::string& topic, int32_t partition,
                                                   std::optional<std::vector<int32_t>> replicas) {
    AlterPartitionReassignmentsRequest request;
    request.topics = {{topic, {{partition, std::move(replicas)}}}};
    return request;
}

}  // namespace ballast::kafka::wire::fixture
