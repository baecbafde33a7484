// `ballast run --bootstrap-controller` against the real cluster: metadata events from KRaft's
// log (source kafka_metadata_log), each with its offset, in Kafka's order; a topic deleted
// while Ballast was stopped reported when it starts again, reading on after the journaled
// offset; an unreachable controller falling back to polling. The journal is read through
// `ballast log show --json`, as an operator would.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <regex>

#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/response_errors.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/run_fixture.h"
#include "tests/kafka/integration/run_support.h"

namespace ballast::kafka {
namespace {

using nlohmann::json;
using testing::BallastProcess;

std::string log_topic(const std::string& base) { return "ballast-kraft-" + base + "-" + std::to_string(::getpid()); }

std::string controller_text(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

class MetadataLogRun : public RunOnKafka {
protected:
    void SetUp() override {
        RunOnKafka::SetUp();
        const testing::CommandOutput controller = testing::kafka_cluster({"controller"});
        ASSERT_EQ(controller.exit_code, 0) << controller.output;
        _controller = controller_text(controller.output);
    }

    /// Ballast on the controller's log; the engine plans nothing in these tests' time
    /// (the default detect interval), so every partition change is Kafka's or the test's.
    BallastProcess& start(const std::string& controller) {
        BallastProcess& p = start_ballast({"ballast.tick.interval.ms=500"}, {"--bootstrap-controller", controller});
        return p;
    }

    /// The journal's events from the metadata log, in journal order.
    std::vector<json> log_events() {
        std::vector<json> out;
        for (json& e : testing::journal_events(journal())) {
            if (e.at("source") == "kafka_metadata_log") out.push_back(std::move(e));
        }
        return out;
    }

    /// Waits (bounded) for a metadata-log event that `match` picks; its JSON.
    std::optional<json> wait_for_event(const std::function<bool(const json&)>& match, int64_t timeout_ms = 30'000) {
        std::optional<json> found;
        testing::eventually(
            [&] {
                for (const json& e : log_events()) {
                    if (match(e)) {
                        found = e;
                        return true;
                    }
                }
                return false;
            },
            timeout_ms);
        return found;
    }

    std::string _controller;
};

bool is_event(const json& e, const std::string& type, const std::string& topic) {
    return e.at("type") == type && e.value("topic", "") == topic;
}

bool partition_is(const json& e, const std::string& topic, int32_t partition) {
    return is_event(e, "partition_changed", topic) && e.at("partition") == partition;
}

TEST_F(MetadataLogRun, BrokersTopicsAReassignmentAndAnElectionArriveAsLogEventsInKafkasOrder) {
    BallastProcess& ballast = start(_controller);
    ASSERT_TRUE(ballast.wait_for_log("metadata log read up to offset", 60'000)) << ballast.log();
    const std::string topic = log_topic("order");
    create_topic(topic, {{1, 2}, {3, 1}});
    const std::optional<json> created = wait_for_event([&](const json& e) { return is_event(e, "topic_created", topic); });
    ASSERT_TRUE(created) << ballast.log();
    EXPECT_EQ(created->at("partition_count"), 2);
    EXPECT_EQ(created->at("topic_id").get<std::string>().size(), 32u) << "Kafka's id, in hex";

    // A reassignment of partition 0 from [1, 2] to [2, 3]: 3 adding, 1 removing, then [2, 3].
    wire::messages::AlterPartitionReassignmentsRequest move;
    move.topics = {{topic, {{0, std::vector<int32_t>{2, 3}}}}};
    events::Result<wire::messages::AlterPartitionReassignmentsResponse> moved =
        _admin->alter_partition_reassignments(move, call_timeout_ms);
    ASSERT_TRUE(moved.ok()) << moved.error().to_string();
    ASSERT_TRUE(wire::response_errors(move, *moved).ok()) << wire::response_errors(move, *moved).error().to_string();
    const std::optional<json> adding = wait_for_event(
        [&](const json& e) { return partition_is(e, topic, 0) && e.value("adding_replicas", json::array()) == json::array({3}); });
    const std::optional<json> moved_event = wait_for_event(
        [&](const json& e) { return partition_is(e, topic, 0) && e.at("replicas") == json::array({2, 3}); });
    ASSERT_TRUE(adding) << "the reassignment's start, from the records themselves";
    EXPECT_EQ(adding->at("removing_replicas"), json::array({1}));
    ASSERT_TRUE(moved_event);

    // Broker 3 stopped and started: fenced, unfenced, back in partition 1's ISR.
    const int64_t before_stop = moved_event->at("metadata_offset");
    ASSERT_EQ(testing::kafka_cluster({"stop-broker", "3"}).exit_code, 0);
    const std::optional<json> fenced = wait_for_event([&](const json& e) {
        return e.at("type") == "broker_fenced" && e.at("broker_id") == 3 && e.at("metadata_offset") > before_stop;
    });
    ASSERT_TRUE(fenced) << ballast.log();
    ASSERT_EQ(testing::kafka_cluster({"start-broker", "3"}).exit_code, 0);
    const std::optional<json> unfenced = wait_for_event([&](const json& e) {
        return e.at("type") == "broker_unfenced" && e.at("broker_id") == 3 &&
               e.at("metadata_offset") > fenced->at("metadata_offset");
    });
    ASSERT_TRUE(unfenced) << ballast.log();
    const std::optional<json> rejoined = wait_for_event([&](const json& e) {
        if (!partition_is(e, topic, 1) || e.at("metadata_offset") < unfenced->at("metadata_offset")) return false;
        const json& isr = e.at("isr");
        return std::find(isr.begin(), isr.end(), 3) != isr.end();
    });
    ASSERT_TRUE(rejoined);

    // The preferred election gives partition 1 back to broker 3, one leader epoch up.
    wire::messages::ElectLeadersRequest elect;
    elect.topic_partitions = std::vector<wire::TopicPartitions>{{topic, {1}}};
    events::Result<wire::messages::ElectLeadersResponse> elected = _admin->elect_leaders(elect, call_timeout_ms);
    ASSERT_TRUE(elected.ok()) << elected.error().to_string();
    const std::optional<json> led = wait_for_event([&](const json& e) {
        return partition_is(e, topic, 1) && e.at("leader") == 3 && e.at("metadata_offset") > rejoined->at("metadata_offset");
    });
    ASSERT_TRUE(led) << ballast.log();
    EXPECT_EQ(led->at("leader_epoch"), rejoined->at("leader_epoch").get<int>() + 1);

    ASSERT_TRUE(_rdkafka->delete_topic(topic).ok());
    const std::optional<json> deleted = wait_for_event([&](const json& e) { return is_event(e, "topic_deleted", topic); });
    ASSERT_TRUE(deleted);
    EXPECT_TRUE(ballast.wait_for_log("metadata log: topic " + topic + " deleted (RemoveTopicRecord at offset", 10'000));

    // Kafka's order: every event from the log in journal order has an offset no lower than
    // the one before, and the changes above came in the order they were made.
    int64_t last = -1;
    for (const json& e : log_events()) {
        ASSERT_TRUE(e.contains("metadata_offset")) << e.dump();
        EXPECT_GE(e.at("metadata_offset").get<int64_t>(), last) << e.dump();
        last = e.at("metadata_offset");
    }
    const std::vector<int64_t> order{created->at("metadata_offset"), adding->at("metadata_offset"),
                                     moved_event->at("metadata_offset"), fenced->at("metadata_offset"),
                                     unfenced->at("metadata_offset"), led->at("metadata_offset"),
                                     deleted->at("metadata_offset")};
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
    // Nothing was polled.
    for (const json& e : testing::journal_events(journal())) EXPECT_NE(e.at("source"), "kafka_metadata") << e.dump();
    EXPECT_EQ(ballast.terminate(), 0) << ballast.log();
}

TEST_F(MetadataLogRun, ATopicDeletedWhileStoppedIsReportedAndTheLogIsReadOnAfterTheJournaledOffset) {
    const std::string topic = log_topic("gone");
    {
        BallastProcess& first = start(_controller);
        ASSERT_TRUE(first.wait_for_log("metadata log read up to offset", 60'000)) << first.log();
        create_topic(topic, {{1, 2}});
        ASSERT_TRUE(wait_for_event([&](const json& e) { return partition_is(e, topic, 0); })) << first.log();
        ASSERT_EQ(first.terminate(), 0) << first.log();
    }
    const std::vector<json> before = log_events();
    ASSERT_FALSE(before.empty());
    const int64_t journaled = before.back().at("metadata_offset");
    const uint64_t last_seq = testing::journal_events(journal()).back().at("seq");

    ASSERT_TRUE(_rdkafka->delete_topic(topic).ok());
    BallastProcess& second = start(_controller);
    EXPECT_TRUE(second.wait_for_log("resuming at offset " + std::to_string(journaled + 1), 10'000)) << second.log();
    ASSERT_TRUE(second.wait_for_log("metadata log: topic " + topic + " deleted", 30'000)) << second.log();
    // The first record fetched is after the journaled one: the log was not read from 0.
    const std::string log = second.log();
    std::smatch first_fetched;
    ASSERT_TRUE(std::regex_search(log, first_fetched, std::regex("first record fetched at offset ([0-9]+)"))) << log;
    EXPECT_GT(std::stoll(first_fetched[1].str()), journaled);
    const std::optional<json> deleted = wait_for_event([&](const json& e) { return is_event(e, "topic_deleted", topic); });
    ASSERT_TRUE(deleted);
    EXPECT_GT(deleted->at("seq").get<uint64_t>(), last_seq);
    EXPECT_GT(deleted->at("metadata_offset").get<int64_t>(), journaled);
    // Nothing journaled again: every log event after the restart is past the journaled offset.
    for (const json& e : log_events()) {
        if (e.at("seq").get<uint64_t>() > last_seq) {
            EXPECT_GT(e.at("metadata_offset").get<int64_t>(), journaled) << e.dump();
        }
    }
    EXPECT_EQ(second.terminate(), 0) << second.log();
}

TEST_F(MetadataLogRun, AnUnreachableControllerFallsBackToPollingWithAWarning) {
    BallastProcess& ballast = start("127.0.0.1:1");
    ASSERT_TRUE(ballast.wait_for_log("falling back to polling the brokers' metadata", 30'000)) << ballast.log();
    EXPECT_TRUE(ballast.wait_for_log("controller 127.0.0.1:1", 1'000)) << ballast.log();
    ASSERT_TRUE(ballast.wait_for_log("first metadata report", 30'000)) << ballast.log();
    bool polled = false;
    testing::eventually(
        [&] {
            for (const json& e : testing::journal_events(journal())) {
                if (e.at("source") == "kafka_metadata") polled = true;
            }
            return polled;
        },
        15'000);
    EXPECT_TRUE(polled) << "the poller's events";
    EXPECT_TRUE(log_events().empty());
    EXPECT_EQ(ballast.terminate(), 0) << ballast.log();
}

}  // namespace
}  // namespace ballast::kafka
