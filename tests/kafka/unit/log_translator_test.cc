// KRaft's metadata records to Ballast's events (adapters/kafka/metadata/log_translator.h), without a
// cluster: each record type, leader epochs, a reassignment's adding and removing replicas,
// topic deletion, metadata transactions, the first read of the log as one picture, and a
// snapshot's image replacing the picture.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata/log_translator.h"

namespace ballast::kafka::metadata {
namespace {

namespace mlog = metadata_log;
using events::Event;

const mlog::Uuid orders_id{0x0102030405060708, 0x090a0b0c0d0e0f10};
const mlog::Uuid logs_id{7, 9};
constexpr int64_t now_ms = 5000;

mlog::MetadataEntry entry(int64_t offset, mlog::RecordBody body, int32_t epoch = 1) {
    return mlog::MetadataEntry{offset, 1000 + offset, epoch, mlog::MetadataRecord{0, std::move(body)}};
}

mlog::RegisterBrokerRecord registration(int32_t id, std::string rack = "r1", bool fenced = true) {
    mlog::RegisterBrokerRecord r;
    r.broker_id = id;
    r.broker_epoch = 10 + id;
    r.end_points = {mlog::BrokerEndpoint{"PLAINTEXT", "127.0.0.1", static_cast<uint16_t>(9090 + id), 0}};
    r.rack = std::move(rack);
    r.fenced = fenced;
    return r;
}

mlog::BrokerRegistrationChangeRecord fencing(int32_t id, int8_t fenced) {
    mlog::BrokerRegistrationChangeRecord r;
    r.broker_id = id;
    r.fenced = fenced;
    return r;
}

mlog::PartitionRecord partition(const mlog::Uuid& topic, int32_t id, std::vector<int32_t> replicas, int32_t leader,
                                int32_t leader_epoch = 0) {
    mlog::PartitionRecord r;
    r.topic_id = topic;
    r.partition_id = id;
    r.isr = replicas;
    r.replicas = std::move(replicas);
    r.leader = leader;
    r.leader_epoch = leader_epoch;
    r.partition_epoch = 0;
    return r;
}

mlog::PartitionChangeRecord change(const mlog::Uuid& topic, int32_t id) {
    mlog::PartitionChangeRecord r;
    r.topic_id = topic;
    r.partition_id = id;
    return r;
}

events::PartitionChanged changed(std::string topic, int32_t id, std::vector<int32_t> replicas, int32_t leader,
                                 std::vector<int32_t> isr, int32_t epoch, std::vector<int32_t> adding = {},
                                 std::vector<int32_t> removing = {}) {
    return events::PartitionChanged{std::move(topic), id, std::move(replicas), leader, std::move(isr), epoch,
                                    std::move(adding), std::move(removing)};
}

/// Translates record by record from `picture`, as the reader does after a resume.
Translation translate(LogPicture& picture, const std::vector<mlog::MetadataEntry>& entries) {
    Translation out;
    for (const mlog::MetadataEntry& e : entries) translate_record(picture, e, now_ms, out);
    return out;
}

std::vector<events::Body> bodies(const Translation& t) {
    std::vector<events::Body> out;
    for (const Event& e : t.events) out.push_back(e.body);
    return out;
}

std::vector<int64_t> offsets(const Translation& t) {
    std::vector<int64_t> out;
    for (const Event& e : t.events) out.push_back(e.metadata_offset);
    return out;
}

/// A picture with brokers 1-3 unfenced and orders (2 partitions on [1, 2] and [2, 3]).
LogPicture cluster() {
    LogPicture p;
    translate(p, {entry(1, registration(1)), entry(2, registration(2)), entry(3, registration(3)),
                  entry(4, fencing(1, -1)), entry(5, fencing(2, -1)), entry(6, fencing(3, -1)),
                  entry(7, mlog::TopicRecord{"orders", orders_id}), entry(8, partition(orders_id, 0, {1, 2}, 1)),
                  entry(9, partition(orders_id, 1, {2, 3}, 2))});
    return p;
}

TEST(LogTranslator, EveryEventCarriesItsRecordsOffsetEpochTimeAndSource) {
    LogPicture p;
    const Translation t = translate(p, {entry(41, registration(1), 3), entry(42, fencing(1, -1), 4)});
    ASSERT_EQ(t.events.size(), 3u);
    for (const Event& e : t.events) {
        EXPECT_EQ(e.source, events::Source::kafka_metadata_log);
        EXPECT_EQ(e.time_ms, now_ms);
        EXPECT_EQ(e.seq, 0u);
    }
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{41, 41, 42}));
    EXPECT_EQ(t.events[0].metadata_epoch, 3);
    EXPECT_EQ(t.events[2].metadata_epoch, 4);
    EXPECT_EQ(p.next_offset, 43);
    EXPECT_EQ(p.last_epoch, 4);
}

TEST(LogTranslator, BrokersRegisterFencedAreUnfencedFencedAndLeave) {
    LogPicture p;
    Translation t = translate(p, {entry(1, registration(1, "r1"))});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{
                             events::BrokerRegistered{1, "r1", {events::Endpoint{"PLAINTEXT", "127.0.0.1", 9091}}},
                             events::BrokerFenced{1}}));
    t = translate(p, {entry(2, fencing(1, -1)), entry(3, fencing(1, -1))});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::BrokerUnfenced{1}})) << "unchanged fencing: no event";
    // Controlled shutdown alone changes nothing the engine reads.
    mlog::BrokerRegistrationChangeRecord shutdown;
    shutdown.broker_id = 1;
    shutdown.in_controlled_shutdown = 1;
    EXPECT_TRUE(translate(p, {entry(4, shutdown)}).events.empty());
    t = translate(p, {entry(5, fencing(1, 1))});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::BrokerFenced{1}}));
    // A restart: registered again, fenced, same place: nothing new until it is unfenced.
    EXPECT_TRUE(translate(p, {entry(6, registration(1, "r1"))}).events.empty());
    // Registered again elsewhere: the new registration, still fenced.
    t = translate(p, {entry(7, registration(1, "r9"))});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{
                             events::BrokerRegistered{1, "r9", {events::Endpoint{"PLAINTEXT", "127.0.0.1", 9091}}},
                             events::BrokerFenced{1}}));
    // The records older controllers wrote.
    t = translate(p, {entry(8, mlog::UnfenceBrokerRecord{1, 11}), entry(9, mlog::FenceBrokerRecord{1, 11})});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::BrokerUnfenced{1}, events::BrokerFenced{1}}));
    t = translate(p, {entry(10, mlog::UnregisterBrokerRecord{1, 11}), entry(11, mlog::UnregisterBrokerRecord{1, 11})});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::BrokerUnregistered{1}}));
    EXPECT_TRUE(p.brokers.empty());
}

TEST(LogTranslator, ATopicWithItsPartitionsIsCreatedWithItsIdCountAndReplicationFactor) {
    LogPicture p;
    const Translation t = translate(p, {entry(20, mlog::TopicRecord{"orders", orders_id}),
                                        entry(21, partition(orders_id, 0, {1, 2}, 1)),
                                        entry(22, partition(orders_id, 1, {2, 3}, 2)),
                                        entry(23, partition(orders_id, 2, {3, 1}, 3))});
    const std::vector<uint8_t> id{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::TopicCreated{"orders", id, 3, 2},
                                                    changed("orders", 0, {1, 2}, 1, {1, 2}, 0),
                                                    changed("orders", 1, {2, 3}, 2, {2, 3}, 0),
                                                    changed("orders", 2, {3, 1}, 3, {3, 1}, 0)}));
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{20, 21, 22, 23}));
    EXPECT_EQ(topic_id_from_bytes(id), orders_id);
}

TEST(LogTranslator, TheLeaderEpochRisesWhenARecordSetsTheLeaderAndOnlyThen) {
    LogPicture p = cluster();
    mlog::PartitionChangeRecord shrink = change(orders_id, 0);
    shrink.isr = std::vector<int32_t>{1};
    mlog::PartitionChangeRecord elect = change(orders_id, 0);
    elect.leader = 2;
    // The controller sets the leader to the current one when it bumps the epoch alone.
    mlog::PartitionChangeRecord bump = change(orders_id, 0);
    bump.leader = 2;
    mlog::PartitionChangeRecord offline = change(orders_id, 0);
    offline.leader = -1;
    offline.isr = std::vector<int32_t>{};
    mlog::PartitionChangeRecord directories = change(orders_id, 0);
    directories.directories = std::vector<mlog::Uuid>{mlog::Uuid{1, 1}, mlog::Uuid{2, 2}};
    const Translation t = translate(p, {entry(30, shrink), entry(31, elect), entry(32, bump), entry(33, offline),
                                        entry(34, directories)});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{changed("orders", 0, {1, 2}, 1, {1}, 0),
                                                    changed("orders", 0, {1, 2}, 2, {1}, 1),
                                                    changed("orders", 0, {1, 2}, 2, {1}, 2),
                                                    changed("orders", 0, {1, 2}, -1, {}, 3)}));
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{30, 31, 32, 33})) << "a change of directories shows nothing";
}

TEST(LogTranslator, AReassignmentShowsItsAddingAndRemovingReplicasAndTheNewSetWhenWhole) {
    LogPicture p = cluster();
    // [1, 2] to [2, 3], as Kafka writes it: the union with 3 adding and 1 removing.
    mlog::PartitionChangeRecord start = change(orders_id, 0);
    start.replicas = std::vector<int32_t>{2, 3, 1};
    start.adding_replicas = std::vector<int32_t>{3};
    start.removing_replicas = std::vector<int32_t>{1};
    mlog::PartitionChangeRecord caught_up = change(orders_id, 0);
    caught_up.isr = std::vector<int32_t>{1, 2, 3};
    mlog::PartitionChangeRecord done = change(orders_id, 0);
    done.replicas = std::vector<int32_t>{2, 3};
    done.isr = std::vector<int32_t>{2, 3};
    done.adding_replicas = std::vector<int32_t>{};
    done.removing_replicas = std::vector<int32_t>{};
    done.leader = 2;
    const Translation t = translate(p, {entry(40, start), entry(41, caught_up), entry(42, done)});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{changed("orders", 0, {2, 1}, 1, {1, 2}, 0, {3}, {1}),
                                                    changed("orders", 0, {2, 3}, 2, {2, 3}, 1)}))
        << "the replica being added joining the ISR does not show until the move completes";
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{40, 42}));
    const PartitionState* seen = cluster_state(p).partition("orders", 0);
    ASSERT_NE(seen, nullptr);
    EXPECT_FALSE(seen->reassigning);
}

TEST(LogTranslator, ARemovedTopicIsDeletedByNameAndNamedInANote) {
    LogPicture p = cluster();
    Translation t = translate(p, {entry(50, mlog::RemoveTopicRecord{orders_id})});
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::TopicDeleted{"orders"}}));
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{50}));
    ASSERT_EQ(t.notes.size(), 1u);
    EXPECT_EQ(t.notes[0], "topic orders deleted (RemoveTopicRecord at offset 50)");
    EXPECT_TRUE(p.topics.empty());
    EXPECT_TRUE(p.topic_by_name.empty());
    // A record of a topic never created is skipped, named.
    t = translate(p, {entry(51, change(orders_id, 0)), entry(52, mlog::RemoveTopicRecord{logs_id})});
    EXPECT_TRUE(t.events.empty());
    ASSERT_EQ(t.warnings.size(), 2u);
    EXPECT_EQ(t.warnings[0], "PartitionChangeRecord at offset 51 names topic id 0102030405060708090a0b0c0d0e0f10, "
                             "which no TopicRecord created: skipped");
}

TEST(LogTranslator, TheLogsStartIsReadAsOnePictureNotReplayedAsHistory) {
    LogTranslator translator;  // nothing journaled
    ASSERT_TRUE(translator.catching_up());
    mlog::PollResult first;
    first.entries = {entry(0, registration(1)), entry(1, fencing(1, -1)), entry(2, fencing(1, 1)),
                     entry(3, fencing(1, -1)), entry(4, mlog::TopicRecord{"gone", logs_id}),
                     entry(5, mlog::RemoveTopicRecord{logs_id}), entry(6, mlog::TopicRecord{"orders", orders_id})};
    first.high_watermark = 20;
    EXPECT_TRUE(translator.translate(first, 7, now_ms).events.empty()) << "not yet at the high watermark";
    mlog::PollResult second;
    second.entries = {entry(7, partition(orders_id, 0, {1}, 1))};
    second.high_watermark = 20;
    const Translation t = translator.translate(second, 20, now_ms);  // NoOps up to 20
    EXPECT_FALSE(translator.catching_up());
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{
                             events::BrokerRegistered{1, "r1", {events::Endpoint{"PLAINTEXT", "127.0.0.1", 9091}}},
                             events::TopicCreated{"orders", topic_id_bytes(orders_id), 1, 1},
                             changed("orders", 0, {1}, 1, {1}, 0)}));
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{7, 7, 7})) << "the picture's last record";
    EXPECT_EQ(translator.picture().next_offset, 8);
}

TEST(LogTranslator, ASnapshotsImageReplacesThePictureAndWhatIsNotInItIsGone) {
    LogTranslator translator(cluster());
    ASSERT_FALSE(translator.catching_up());
    // The image: broker 3 gone, broker 2 fenced, orders gone, logs new, no partition of orders.
    mlog::PollResult image;
    image.image = true;
    image.entries = {entry(100, registration(1)), entry(101, fencing(1, -1)), entry(102, registration(2)),
                     entry(103, mlog::TopicRecord{"logs", logs_id}), entry(104, partition(logs_id, 0, {1, 2}, 1, 4))};
    image.high_watermark = 300;
    const Translation t = translator.translate(image, 250, now_ms);
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::TopicDeleted{"orders"},
                                                    events::TopicCreated{"logs", topic_id_bytes(logs_id), 1, 2},
                                                    changed("logs", 0, {1, 2}, 1, {1, 2}, 4),
                                                    events::BrokerFenced{2}, events::BrokerUnregistered{3}}));
    for (const Event& e : t.events) EXPECT_EQ(e.metadata_offset, 249) << "the image's end";
    ASSERT_EQ(t.notes.size(), 1u);
    EXPECT_EQ(t.notes[0], "topic orders deleted (not in the image of the cluster at offset 249)");
    EXPECT_EQ(translator.picture().next_offset, 250);
    EXPECT_EQ(translator.picture().brokers.size(), 2u);
    EXPECT_EQ(cluster_state(translator.picture()).topics.count("orders"), 0u);

    // The same image again changes nothing.
    EXPECT_TRUE(translator.translate(image, 250, now_ms).events.empty());
}

TEST(LogTranslator, ThePictureRebuiltFromTheJournaledEventsTranslatesAsTheLiveOne) {
    mlog::PartitionChangeRecord start = change(orders_id, 1);
    start.replicas = std::vector<int32_t>{1, 3, 2};
    start.adding_replicas = std::vector<int32_t>{1};
    start.removing_replicas = std::vector<int32_t>{2};
    // Broker 2, on its way out, leaves the ISR; 3 leads.
    mlog::PartitionChangeRecord shrunk = change(orders_id, 1);
    shrunk.isr = std::vector<int32_t>{3};
    shrunk.leader = 3;
    // 1 joins the ISR (nothing shows: it is being added), then an epoch bump shows.
    mlog::PartitionChangeRecord joined = change(orders_id, 1);
    joined.isr = std::vector<int32_t>{3, 1};
    mlog::PartitionChangeRecord bumped = change(orders_id, 1);
    bumped.leader = 3;
    LogPicture live;
    const Translation journaled =
        translate(live, {entry(1, registration(1)), entry(2, registration(2)), entry(3, registration(3)),
                         entry(4, fencing(1, -1)), entry(5, fencing(2, -1)), entry(6, fencing(3, -1)),
                         entry(7, mlog::TopicRecord{"orders", orders_id}), entry(8, partition(orders_id, 0, {1, 2}, 1)),
                         entry(9, partition(orders_id, 1, {2, 3}, 2)), entry(10, start, 2), entry(11, shrunk, 2),
                         entry(12, joined, 2), entry(13, bumped, 2)});
    LogPicture rebuilt = picture_from(journaled.events);
    EXPECT_EQ(rebuilt.brokers, live.brokers);
    EXPECT_EQ(rebuilt.topic_by_name, live.topic_by_name);
    EXPECT_EQ(rebuilt.next_offset, 14);
    EXPECT_EQ(rebuilt.last_epoch, 2);
    EXPECT_EQ(cluster_state(rebuilt), cluster_state(live));

    // The move completes the same way from either; the ISR did not change (2 had left it and
    // 1 joined before), so the record has none: the rebuilt picture must count 1 in it.
    mlog::PartitionChangeRecord done = change(orders_id, 1);
    done.replicas = std::vector<int32_t>{1, 3};
    done.adding_replicas = std::vector<int32_t>{};
    done.removing_replicas = std::vector<int32_t>{};
    const std::vector<mlog::MetadataEntry> next{entry(14, done), entry(15, mlog::RemoveTopicRecord{orders_id})};
    const Translation from_live = translate(live, next);
    const Translation from_rebuilt = translate(rebuilt, next);
    EXPECT_EQ(from_rebuilt.events, from_live.events);
    EXPECT_EQ(bodies(from_rebuilt), (std::vector<events::Body>{changed("orders", 1, {1, 3}, 3, {3, 1}, 2),
                                                               events::TopicDeleted{"orders"}}));
}

TEST(LogTranslator, ARebuildFromTheLogAppliesWhatIsJournaledQuietlyAndTranslatesTheRest) {
    LogPicture journaled;
    journaled.next_offset = 10;  // records up to 9 are in the journal, their events lost to retention
    journaled.last_epoch = 1;
    LogTranslator translator(journaled, true);
    EXPECT_EQ(translator.fetch_from(), 0);
    EXPECT_EQ(translator.fetch_epoch(), -1);
    mlog::PollResult poll;
    poll.entries = {entry(0, registration(1)), entry(1, mlog::TopicRecord{"orders", orders_id}),
                    entry(2, partition(orders_id, 0, {1}, 1)), entry(12, mlog::RemoveTopicRecord{orders_id})};
    poll.high_watermark = 13;
    const Translation t = translator.translate(poll, 13, now_ms);
    EXPECT_EQ(bodies(t), (std::vector<events::Body>{events::TopicDeleted{"orders"}}));
    EXPECT_EQ(offsets(t), (std::vector<int64_t>{12}));
    EXPECT_EQ(translator.picture().brokers.size(), 1u);
}

}  // namespace
}  // namespace ballast::kafka::metadata
