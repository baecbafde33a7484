// KRaft's metadata log read from the test cluster's controller as a raft observer does
// (Fetch of __cluster_metadata on the controller listener, replica id -1): the log from its
// start decoded whole, at every Fetch version both sides speak; a topic created here
// arriving as its TopicRecord and then one PartitionRecord a partition, with their offsets
// and the replicas asked for; its deletion as a RemoveTopicRecord; a reassignment as the
// PartitionChangeRecords it goes through (replicas added and removed, then the target); a
// broker stopped and started as its liveness records and the ISR and leader changes, then a
// preferred election as the leader's return. Run by `tools/run test`
// with the cluster up (suite `kafka`); the controller comes from `tools/kafka-cluster
// controller`.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "adapters/kafka/wire/response_errors.h"
#include "tests/kafka/integration/metadata_log_fixture.h"

namespace ballast::kafka::metadata_log {
namespace {

using testing::kafka_cluster;

constexpr int64_t catch_up_timeout_ms = 30000;

class MetadataLog : public ObserverOnKafka {
protected:
    ObserverOptions options(std::vector<std::pair<wire::ApiKey, int16_t>> caps = {}) {
        ObserverOptions out;
        out.controllers = _controllers;
        out.connection.version_caps = std::move(caps);
        out.max_wait_ms = 100;
        return out;
    }

    /// Polls until `done` holds for what was read, or the time is up; every entry read is
    /// appended to `entries`.
    static void read_until(MetadataLogObserver& observer, std::vector<MetadataEntry>& entries,
                           const std::function<bool(const PollResult&)>& done) {
        const auto until = std::chrono::steady_clock::now() +
                           std::chrono::milliseconds(catch_up_timeout_ms);
        while (std::chrono::steady_clock::now() < until) {
            Result<PollResult> polled = observer.poll();
            ASSERT_TRUE(polled.ok()) << polled.error().to_string();
            entries.insert(entries.end(), polled->entries.begin(), polled->entries.end());
            if (done(*polled)) return;
        }
        FAIL() << "not done after " << catch_up_timeout_ms << " ms at offset "
               << observer.committed_offset();
    }

    /// Reads from the log's start to its high watermark.
    std::vector<MetadataEntry> read_all(MetadataLogObserver& observer) {
        std::vector<MetadataEntry> entries;
        read_until(observer, entries, [&](const PollResult& polled) {
            return polled.high_watermark > 0 && observer.committed_offset() >= polled.high_watermark;
        });
        return entries;
    }
};

TEST_F(MetadataLog, FromItsStartEveryBrokerRegisteredInOffsetOrder) {
    MetadataLogObserver observer(options());
    const std::vector<MetadataEntry> entries = read_all(observer);
    ASSERT_FALSE(entries.empty());
    int64_t previous = -1;
    std::map<int32_t, int64_t> registered;  // broker -> epoch
    for (const MetadataEntry& entry : entries) {
        ASSERT_GT(entry.offset, previous);
        previous = entry.offset;
        EXPECT_GE(entry.leader_epoch, 1);
        if (const auto* broker = std::get_if<RegisterBrokerRecord>(&entry.record.body)) {
            registered[broker->broker_id] = broker->broker_epoch;
            EXPECT_FALSE(broker->end_points.empty());
            EXPECT_EQ(broker->rack, "rack-" + std::to_string(broker->broker_id));
        }
    }
    EXPECT_EQ(registered.size(), 3u);
    for (int32_t id = 1; id <= 3; ++id) EXPECT_TRUE(registered.count(id)) << "broker " << id;
    EXPECT_TRUE(observer.take_warnings().empty());
    EXPECT_GT(observer.counts().not_needed, 0u);  // FeatureLevelRecord, NoOpRecord at least
    std::printf("  %zu records Ballast reads up to offset %lld; %llu not needed; %llu control batches\n",
                entries.size(), static_cast<long long>(observer.committed_offset()),
                static_cast<unsigned long long>(observer.counts().not_needed),
                static_cast<unsigned long long>(observer.counts().control_batches));
}

TEST_F(MetadataLog, EveryFetchVersionReadsTheSameRecords) {
    MetadataLogObserver reference(options());
    const std::vector<MetadataEntry> expected = read_all(reference);
    ASSERT_FALSE(expected.empty());
    for (int16_t v = 13; v <= 18; ++v) {
        SCOPED_TRACE("Fetch v" + std::to_string(v));
        MetadataLogObserver observer(options({{wire::ApiKey::fetch, v}}));
        std::vector<MetadataEntry> entries;
        read_until(observer, entries, [&](const PollResult&) {
            return observer.committed_offset() >= expected.back().offset + 1;
        });
        ASSERT_GE(entries.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            ASSERT_EQ(entries[i].offset, expected[i].offset);
            EXPECT_TRUE(entries[i].record == expected[i].record) << "offset " << entries[i].offset;
        }
    }
}

TEST_F(MetadataLog, ACreatedTopicArrivesAsTopicAndPartitionRecordsAndItsDeletionAfter) {
    MetadataLogObserver observer(options());
    read_all(observer);
    const int64_t before = observer.committed_offset();
    const std::string topic = "ballast-it-metadata-log-" + std::to_string(::getpid());
    const std::vector<std::vector<int32_t>> assignment{{1, 2}, {2, 3}, {3, 1}};
    ASSERT_TRUE(_rdkafka->create_topic(topic, assignment).ok());

    std::vector<MetadataEntry> entries;
    std::optional<MetadataEntry> created;
    std::map<int32_t, MetadataEntry> partitions;
    read_until(observer, entries, [&](const PollResult&) {
        for (const MetadataEntry& entry : entries) {
            if (const auto* record = std::get_if<TopicRecord>(&entry.record.body)) {
                if (record->name == topic) created = entry;
            }
            const auto* partition = std::get_if<PartitionRecord>(&entry.record.body);
            if (created && partition &&
                partition->topic_id == std::get<TopicRecord>(created->record.body).topic_id) {
                partitions[partition->partition_id] = entry;
            }
        }
        return partitions.size() == assignment.size();
    });
    ASSERT_TRUE(created.has_value());
    EXPECT_GE(created->offset, before);
    const Uuid topic_id = std::get<TopicRecord>(created->record.body).topic_id;
    EXPECT_FALSE(topic_id.is_zero());
    for (int32_t p = 0; p < 3; ++p) {
        ASSERT_TRUE(partitions.count(p)) << "partition " << p;
        const MetadataEntry& entry = partitions[p];
        EXPECT_GT(entry.offset, created->offset);
        const auto& record = std::get<PartitionRecord>(entry.record.body);
        EXPECT_EQ(record.replicas, assignment[p]);
        EXPECT_EQ(record.leader, assignment[p][0]);
        EXPECT_EQ(record.isr.size(), 2u);
        EXPECT_EQ(record.leader_epoch, 0);
        std::printf("  %s-%d: PartitionRecord v%d at offset %lld (TopicRecord at %lld)\n",
                    topic.c_str(), p, entry.record.version, static_cast<long long>(entry.offset),
                    static_cast<long long>(created->offset));
    }

    ASSERT_TRUE(_rdkafka->delete_topic(topic).ok());
    std::vector<MetadataEntry> after;
    std::optional<int64_t> removed_at;
    read_until(observer, after, [&](const PollResult&) {
        for (const MetadataEntry& entry : after) {
            const auto* removed = std::get_if<RemoveTopicRecord>(&entry.record.body);
            if (removed && removed->topic_id == topic_id) removed_at = entry.offset;
        }
        return removed_at.has_value();
    });
    ASSERT_TRUE(removed_at.has_value());
    EXPECT_GT(*removed_at, partitions.rbegin()->second.offset);
}

TEST_F(MetadataLog, AReassignmentArrivesAsThePartitionChangesItGoesThrough) {
    MetadataLogObserver observer(options());
    read_all(observer);
    const std::string topic = "ballast-it-metadata-log-move-" + std::to_string(::getpid());
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1, 2}}).ok());
    Result<std::vector<wire::BrokerAddress>> brokers = wire::parse_bootstrap_servers(_bootstrap);
    ASSERT_TRUE(brokers.ok());
    wire::AdminClient admin(wire::ClientOptions{*brokers, {}});
    wire::messages::AlterPartitionReassignmentsRequest move;
    move.topics = {{topic, {{0, std::vector<int32_t>{2, 3}}}}};
    Result<wire::messages::AlterPartitionReassignmentsResponse> moved =
        admin.alter_partition_reassignments(move, 15000);
    ASSERT_TRUE(moved.ok()) << moved.error().to_string();
    ASSERT_TRUE(wire::response_errors(move, *moved).ok())
        << wire::response_errors(move, *moved).error().to_string();

    // The topic's id from its TopicRecord, then its partition's changes in log order.
    std::vector<MetadataEntry> entries;
    std::optional<Uuid> topic_id;
    std::vector<MetadataEntry> changes;
    read_until(observer, entries, [&](const PollResult&) {
        changes.clear();
        for (const MetadataEntry& entry : entries) {
            if (const auto* record = std::get_if<TopicRecord>(&entry.record.body)) {
                if (record->name == topic) topic_id = record->topic_id;
            }
            const auto* change = std::get_if<PartitionChangeRecord>(&entry.record.body);
            if (topic_id && change && change->topic_id == *topic_id) changes.push_back(entry);
        }
        return !changes.empty() &&
               std::get<PartitionChangeRecord>(changes.back().record.body).replicas ==
                   std::vector<int32_t>{2, 3};
    });
    ASSERT_TRUE(topic_id.has_value());
    ASSERT_GE(changes.size(), 2u);
    // First the replicas added and removed: the union, 3 adding, 1 removing.
    const auto& started = std::get<PartitionChangeRecord>(changes.front().record.body);
    ASSERT_TRUE(started.replicas.has_value());
    EXPECT_EQ(std::set<int32_t>(started.replicas->begin(), started.replicas->end()),
              (std::set<int32_t>{1, 2, 3}));
    EXPECT_EQ(started.adding_replicas, std::vector<int32_t>{3});
    EXPECT_EQ(started.removing_replicas, std::vector<int32_t>{1});
    // Last the target, with nothing left adding or removing, and broker 1 no longer leading.
    const auto& finished = std::get<PartitionChangeRecord>(changes.back().record.body);
    EXPECT_EQ(finished.adding_replicas.value_or(std::vector<int32_t>{}), std::vector<int32_t>{});
    EXPECT_EQ(finished.removing_replicas.value_or(std::vector<int32_t>{}), std::vector<int32_t>{});
    for (const MetadataEntry& change : changes) {
        const auto& record = std::get<PartitionChangeRecord>(change.record.body);
        std::printf("  %s-0: PartitionChangeRecord v%d at offset %lld: replicas %zu, leader %d\n",
                    topic.c_str(), change.record.version, static_cast<long long>(change.offset),
                    record.replicas ? record.replicas->size() : 0, record.leader);
    }
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

/// The entries of `type` for which `match` holds.
template <class Record>
std::vector<std::pair<int64_t, Record>> records_of(const std::vector<MetadataEntry>& entries,
                                                   const std::function<bool(const Record&)>& match) {
    std::vector<std::pair<int64_t, Record>> out;
    for (const MetadataEntry& entry : entries) {
        const auto* record = std::get_if<Record>(&entry.record.body);
        if (record && match(*record)) out.emplace_back(entry.offset, *record);
    }
    return out;
}

class MetadataLogBrokers : public MetadataLog {
protected:
    void TearDown() override {
        // Whatever happened, the next test finds three brokers.
        const testing::CommandOutput started = kafka_cluster({"start-broker", "3"});
        EXPECT_EQ(started.exit_code, 0) << started.output;
    }
};

TEST_F(MetadataLogBrokers, AStoppedAndStartedBrokerThenAPreferredElectionArriveInLogOrder) {
    MetadataLogObserver observer(options());
    const std::vector<MetadataEntry> history = read_all(observer);
    const auto registrations = records_of<RegisterBrokerRecord>(
        history, [](const RegisterBrokerRecord& r) { return r.broker_id == 3; });
    ASSERT_FALSE(registrations.empty());
    const int64_t epoch_before = registrations.back().second.broker_epoch;
    const std::string topic = "ballast-it-metadata-log-live-" + std::to_string(::getpid());
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{3, 1}}).ok());

    const testing::CommandOutput stopped = kafka_cluster({"stop-broker", "3"});
    ASSERT_EQ(stopped.exit_code, 0) << stopped.output;
    std::vector<MetadataEntry> entries;
    std::optional<Uuid> topic_id;
    auto topic_changes = [&] {
        return records_of<PartitionChangeRecord>(entries, [&](const PartitionChangeRecord& r) {
            return topic_id && r.topic_id == *topic_id;
        });
    };
    read_until(observer, entries, [&](const PollResult&) {
        for (const auto& [offset, record] : records_of<TopicRecord>(
                 entries, [&](const TopicRecord& r) { return r.name == topic; })) {
            topic_id = record.topic_id;
        }
        const auto fenced = records_of<BrokerRegistrationChangeRecord>(
            entries, [](const BrokerRegistrationChangeRecord& r) {
                return r.broker_id == 3 && r.fenced == 1;
            });
        return !fenced.empty() && !topic_changes().empty();
    });
    ASSERT_TRUE(topic_id.has_value());
    // The controlled shutdown: broker 3 marked, its leadership moved to 1 (the ISR without
    // it), then fenced.
    const auto shutdown = records_of<BrokerRegistrationChangeRecord>(
        entries, [](const BrokerRegistrationChangeRecord& r) {
            return r.broker_id == 3 && r.in_controlled_shutdown == 1;
        });
    const auto fenced = records_of<BrokerRegistrationChangeRecord>(
        entries, [](const BrokerRegistrationChangeRecord& r) { return r.broker_id == 3 && r.fenced == 1; });
    const auto moved = topic_changes();
    ASSERT_FALSE(shutdown.empty());
    ASSERT_FALSE(fenced.empty());
    EXPECT_LT(shutdown.front().first, fenced.front().first);
    EXPECT_EQ(moved.front().second.leader, 1);
    EXPECT_EQ(moved.front().second.isr, std::vector<int32_t>{1});
    EXPECT_GT(moved.front().first, shutdown.front().first);

    entries.clear();
    const testing::CommandOutput started = kafka_cluster({"start-broker", "3"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    read_until(observer, entries, [&](const PollResult&) {
        for (const auto& [offset, change] : topic_changes()) {
            if (change.isr && std::count(change.isr->begin(), change.isr->end(), 3)) return true;
        }
        return false;
    });
    // Registered again with a new epoch, fenced, then unfenced; then back in the ISR.
    const auto registered = records_of<RegisterBrokerRecord>(
        entries, [](const RegisterBrokerRecord& r) { return r.broker_id == 3; });
    const auto unfenced = records_of<BrokerRegistrationChangeRecord>(
        entries, [](const BrokerRegistrationChangeRecord& r) { return r.broker_id == 3 && r.fenced == -1; });
    ASSERT_FALSE(registered.empty());
    ASSERT_FALSE(unfenced.empty());
    EXPECT_GT(registered.back().second.broker_epoch, epoch_before);
    EXPECT_TRUE(registered.back().second.fenced);
    EXPECT_LT(registered.back().first, unfenced.back().first);
    const auto grown = topic_changes();
    ASSERT_FALSE(grown.empty());
    EXPECT_GT(grown.back().first, unfenced.back().first);

    // A preferred election gives the partition back to broker 3: one change, leader 3.
    entries.clear();
    Result<std::vector<wire::BrokerAddress>> brokers = wire::parse_bootstrap_servers(_bootstrap);
    ASSERT_TRUE(brokers.ok());
    wire::AdminClient admin(wire::ClientOptions{*brokers, {}});
    wire::messages::ElectLeadersRequest elect;
    elect.topic_partitions = std::vector<wire::TopicPartitions>{{topic, {0}}};
    Result<wire::messages::ElectLeadersResponse> elected = admin.elect_leaders(elect, 15000);
    ASSERT_TRUE(elected.ok()) << elected.error().to_string();
    ASSERT_TRUE(wire::response_errors(elect, *elected).ok())
        << wire::response_errors(elect, *elected).error().to_string();
    read_until(observer, entries, [&](const PollResult&) {
        for (const auto& [offset, change] : topic_changes()) {
            if (change.leader == 3) return true;
        }
        return false;
    });
    std::printf("  broker 3: shutdown at %lld, fenced at %lld, registered at %lld, unfenced at %lld; "
                "%s-0 led by 1 at %lld, broker 3 in its ISR again at %lld, led by 3 at %lld\n",
                static_cast<long long>(shutdown.front().first),
                static_cast<long long>(fenced.front().first),
                static_cast<long long>(registered.back().first),
                static_cast<long long>(unfenced.back().first), topic.c_str(),
                static_cast<long long>(moved.front().first),
                static_cast<long long>(grown.back().first),
                static_cast<long long>(topic_changes().back().first));
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

TEST_F(MetadataLog, AnUnreachableControllerIsNamed) {
    ObserverOptions unreachable = options();
    unreachable.controllers = {{"127.0.0.1", 1}};
    unreachable.call_timeout_ms = 2000;
    MetadataLogObserver observer(unreachable);
    Result<PollResult> polled = observer.poll();
    ASSERT_FALSE(polled.ok());
    EXPECT_NE(polled.error().message.find("controller 127.0.0.1:1"), std::string::npos)
        << polled.error().message;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
