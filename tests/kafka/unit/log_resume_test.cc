// Where `ballast run` resumes KRaft's metadata log (tools/run_metadata_log.h), from a real
// journal in RocksDB: translated events journaled beside others, the journal closed and
// opened again, and the position, the epoch and the topics' names come back from it.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata/log_translator.h"
#include "store/journal.h"
#include "tests/support/temp_dir.h"
#include "tools/run_metadata_log.h"

namespace ballast::tools {
namespace {

namespace mlog = kafka::metadata_log;

const mlog::Uuid orders_id{11, 12};
const mlog::Uuid logs_id{21, 22};

mlog::MetadataEntry entry(int64_t offset, mlog::RecordBody body, int32_t epoch) {
    return mlog::MetadataEntry{offset, 0, epoch, mlog::MetadataRecord{0, std::move(body)}};
}

mlog::PartitionRecord partition(const mlog::Uuid& topic, int32_t id, std::vector<int32_t> replicas) {
    mlog::PartitionRecord r;
    r.topic_id = topic;
    r.partition_id = id;
    r.isr = replicas;
    r.leader = replicas.front();
    r.replicas = std::move(replicas);
    r.leader_epoch = 3;
    return r;
}

std::unique_ptr<store::Journal> open(const std::string& path) {
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, store::JournalOptions{});
    EXPECT_TRUE(journal) << journal.error().to_string();
    return std::move(*journal);
}

/// Journals what the log gave up to offset 24, with ticks and a poller's event between.
void journal_some(store::Journal& journal) {
    kafka::metadata::LogPicture picture;
    kafka::metadata::Translation t;
    mlog::RegisterBrokerRecord broker;
    broker.broker_id = 1;
    broker.fenced = false;
    mlog::PartitionChangeRecord elect;
    elect.topic_id = orders_id;
    elect.partition_id = 0;
    elect.leader = 1;
    for (const mlog::MetadataEntry& e :
         {entry(20, broker, 1), entry(21, mlog::TopicRecord{"orders", orders_id}, 1),
          entry(22, partition(orders_id, 0, {1}), 1), entry(23, mlog::TopicRecord{"logs", logs_id}, 2),
          entry(24, elect, 2)}) {
        kafka::metadata::translate_record(picture, e, 1000, t);
    }
    std::vector<events::Event> batch;
    batch.push_back(events::Event{0, 900, events::Source::clock, events::Tick{900}});
    for (events::Event& e : t.events) batch.push_back(std::move(e));
    batch.push_back(events::Event{0, 1100, events::Source::kafka_metadata, events::TopicCreated{"polled", {}, 1, 1}});
    ASSERT_TRUE(journal.append(batch));
}

TEST(MetadataLogResume, TheJournalGivesBackThePositionAndTheTopicsNames) {
    testing::TempDir dir;
    {
        std::unique_ptr<store::Journal> journal = open(dir / "journal");
        journal_some(*journal);
    }
    std::unique_ptr<store::Journal> journal = open(dir / "journal");
    events::Result<ResumedLog> resumed = resume_from_journal(*journal);
    ASSERT_TRUE(resumed) << resumed.error().to_string();
    EXPECT_TRUE(resumed->whole);
    EXPECT_EQ(resumed->events_read, 5u) << "registered, orders created and its partition, logs, the election";
    EXPECT_EQ(resumed->picture.next_offset, 25) << "after the last record journaled";
    EXPECT_EQ(resumed->picture.last_epoch, 2);
    ASSERT_EQ(resumed->picture.topic_by_name.count("orders"), 1u);
    EXPECT_EQ(resumed->picture.topic_by_name.count("polled"), 0u) << "the poller's events are not the log's";
    EXPECT_EQ(resumed->picture.topic_by_name.at("orders"), kafka::metadata::topic_key(orders_id));
    EXPECT_EQ(resumed->picture.topics.at(kafka::metadata::topic_key(orders_id)).partitions.at(0).leader_epoch, 4);

    // The reader resumes there, and a topic deleted meanwhile is named from the journal.
    kafka::metadata::LogTranslator translator(resumed->picture);
    EXPECT_FALSE(translator.catching_up());
    EXPECT_EQ(translator.fetch_from(), 25);
    EXPECT_EQ(translator.fetch_epoch(), 2);
    mlog::PollResult poll;
    poll.entries = {entry(31, mlog::RemoveTopicRecord{logs_id}, 2)};
    poll.high_watermark = 32;
    const kafka::metadata::Translation t = translator.translate(poll, 32, 2000);
    ASSERT_EQ(t.events.size(), 1u);
    EXPECT_EQ(t.events[0].body, events::Body(events::TopicDeleted{"logs"}));
    EXPECT_EQ(t.events[0].metadata_offset, 31);
    EXPECT_EQ(t.notes, (std::vector<std::string>{"topic logs deleted (RemoveTopicRecord at offset 31)"}));
}

TEST(MetadataLogResume, AJournalStartedFromASnapshotIsNotWhole) {
    testing::TempDir dir;
    std::unique_ptr<store::Journal> journal = open(dir / "journal");
    const std::vector<uint8_t> state{1, 2, 3};
    ASSERT_TRUE(journal->seed_snapshot(100, state));
    journal_some(*journal);
    events::Result<ResumedLog> resumed = resume_from_journal(*journal);
    ASSERT_TRUE(resumed) << resumed.error().to_string();
    EXPECT_FALSE(resumed->whole) << "events before seq 101 are not in it";
    EXPECT_EQ(resumed->picture.next_offset, 25);
    kafka::metadata::LogTranslator translator(resumed->picture, !resumed->whole);
    EXPECT_EQ(translator.fetch_from(), 0) << "the picture is rebuilt from the log's start";
}

TEST(MetadataLogResume, TheSourceIsChosenFromTheSettingAndTheControllers) {
    events::Config config = events::Config::defaults();
    EXPECT_EQ(*metadata_source(config, ""), MetadataSource::poll);
    EXPECT_EQ(*metadata_source(config, "127.0.0.1:9093"), MetadataSource::kraft);
    ASSERT_TRUE(config.set("ballast.metadata.source", "poll", "test"));
    EXPECT_EQ(*metadata_source(config, "127.0.0.1:9093"), MetadataSource::poll);
    ASSERT_TRUE(config.set("ballast.metadata.source", "kraft", "test"));
    events::Result<MetadataSource> refused = metadata_source(config, "");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("--bootstrap-controller"), std::string::npos);
}

}  // namespace
}  // namespace ballast::tools
