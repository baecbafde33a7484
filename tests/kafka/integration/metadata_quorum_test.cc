// KRaft's metadata log read from a quorum of three controllers whose log start moves
// (`tools/kafka-cluster up --controllers 3 --brokers 1 --short-metadata-log`, the suite
// `kafka_quorum`): a fresh observer whose position is older than the log's start reads the
// leader's snapshot (FetchSnapshot) as one image holding every topic created before it, then
// the log from the snapshot's end; an observer following the log while the active controller
// is killed (SIGKILL) follows the newly elected leader, hands out nothing twice and misses
// nothing (a second observer reading the same stretch from the new leader afterwards, from
// the offset the first stood at when the leader died, sees the same records at the same
// offsets), and a topic created after the change arrives.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "tests/kafka/integration/metadata_log_fixture.h"

namespace ballast::kafka::metadata_log {
namespace {

using testing::kafka_cluster;

constexpr int64_t timeout_ms = 60000;

const TopicRecord* topic_of(const MetadataEntry& entry) {
    return std::get_if<TopicRecord>(&entry.record.body);
}

int count_topic(const std::vector<MetadataEntry>& entries, const std::string& name) {
    int count = 0;
    for (const MetadataEntry& entry : entries) {
        if (const TopicRecord* topic = topic_of(entry); topic && topic->name == name) ++count;
    }
    return count;
}

bool before_deadline(std::chrono::steady_clock::time_point deadline) {
    return std::chrono::steady_clock::now() < deadline;
}

std::chrono::steady_clock::time_point deadline_in(int64_t ms) {
    return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

class MetadataQuorum : public ObserverOnKafka {
protected:
    void SetUp() override {
        ObserverOnKafka::SetUp();
        if (HasFatalFailure()) return;
        ASSERT_EQ(_controllers.size(), 3u)
            << "this suite needs `tools/kafka-cluster up --controllers 3 --brokers 1 "
               "--short-metadata-log`; the cluster has controllers "
            << _controller;
    }

    ObserverOptions options() const {
        ObserverOptions out;
        out.controllers = _controllers;
        out.max_wait_ms = 100;
        out.call_timeout_ms = 3000;
        return out;
    }

    /// Topics are named per process, so that the suite runs again on the same cluster.
    static std::string topic_name(const std::string& stem) {
        return stem + "-" + std::to_string(::getpid());
    }

    void create_topic(const std::string& name) {
        const Status created = _rdkafka->create_topic(name, {{1}});
        ASSERT_TRUE(created.ok()) << name << ": " << created.error().to_string();
    }
};

/// What one observer handed out, poll after poll, and the checks every poll must pass:
/// entries in offset order, none at or below one handed out before, none below the
/// committed offset the poll before ended at.
struct Followed {
    std::vector<MetadataEntry> image;  // the last image
    std::vector<MetadataEntry> log;    // entries after it
    int64_t image_end = -1;            // the snapshot's end offset
    PollResult last;
    int errors = 0;
    std::string last_error;

    void take(MetadataLogObserver& observer, const PollResult& polled, int64_t committed_before) {
        last = polled;
        if (polled.image) {
            image = polled.entries;
            log.clear();
            image_end = observer.committed_offset();
            return;
        }
        for (const MetadataEntry& entry : polled.entries) {
            EXPECT_GE(entry.offset, committed_before) << "handed out again";
            if (!log.empty()) {
                EXPECT_GT(entry.offset, log.back().offset) << "out of order or twice";
            }
            log.push_back(entry);
        }
    }

    /// Polls until `done`; errors (a leader gone) are counted and polled through.
    bool follow(MetadataLogObserver& observer, const std::function<bool()>& done) {
        const auto deadline = deadline_in(timeout_ms);
        while (before_deadline(deadline)) {
            const int64_t committed_before = observer.committed_offset();
            Result<PollResult> polled = observer.poll();
            if (!polled.ok()) {
                ++errors;
                last_error = polled.error().to_string();
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                continue;
            }
            take(observer, *polled, committed_before);
            if (done()) return true;
        }
        return false;
    }
};

TEST_F(MetadataQuorum, AFreshObserverBehindTheLogStartReadsTheSnapshotThenTheLog) {
    create_topic(topic_name("snap-before"));
    // The controllers snapshot every second and delete the segments behind the snapshot soon
    // after: a fresh observer is answered with a snapshot once the log start passed 0 and
    // the topic is in a snapshot.
    const auto deadline = deadline_in(timeout_ms);
    std::optional<Followed> read;
    std::unique_ptr<MetadataLogObserver> observer;
    while (!read && before_deadline(deadline)) {
        observer = std::make_unique<MetadataLogObserver>(options());
        Followed attempt;
        ASSERT_TRUE(attempt.follow(*observer, [&] {
            return attempt.last.image || !attempt.log.empty();
        })) << attempt.last_error;
        if (attempt.last.image && count_topic(attempt.image, topic_name("snap-before")) == 1) {
            read = attempt;
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
    }
    ASSERT_TRUE(read.has_value()) << "no snapshot holding the topic within " << timeout_ms << " ms";
    ASSERT_GT(read->image_end, 0);
    bool broker_registered = false;
    bool partition = false;
    for (const MetadataEntry& entry : read->image) {
        EXPECT_EQ(entry.offset, read->image_end - 1);
        if (const auto* broker = std::get_if<RegisterBrokerRecord>(&entry.record.body)) {
            broker_registered |= broker->broker_id == 1;
        }
        partition |= std::holds_alternative<PartitionRecord>(entry.record.body);
    }
    EXPECT_TRUE(broker_registered);
    EXPECT_TRUE(partition);
    std::printf("  snapshot ending at offset %lld: %zu records Ballast reads\n",
                static_cast<long long>(read->image_end), read->image.size());

    // Then the log from the snapshot's end: a topic created now arrives as a record.
    create_topic(topic_name("snap-after"));
    ASSERT_TRUE(read->follow(*observer, [&] { return count_topic(read->log, topic_name("snap-after")) == 1; }))
        << read->last_error;
    EXPECT_GE(read->log.front().offset, read->image_end);
    EXPECT_EQ(count_topic(read->image, topic_name("snap-after")), 0);
}

TEST_F(MetadataQuorum, TheActiveControllerKilledTheObserverFollowsTheNewLeader) {
    MetadataLogObserver observer(options());
    Followed followed;
    create_topic(topic_name("before-change"));
    ASSERT_TRUE(followed.follow(observer, [&] {
        return count_topic(followed.image, topic_name("before-change")) + count_topic(followed.log, topic_name("before-change")) == 1 &&
               observer.committed_offset() >= followed.last.high_watermark;
    })) << followed.last_error;
    const int32_t old_leader = followed.last.leader_id;
    const int32_t old_epoch = followed.last.leader_epoch;
    ASSERT_GE(old_leader, 100);
    const int64_t position_at_kill = observer.committed_offset();
    const size_t log_at_kill = followed.log.size();

    const testing::CommandOutput killed =
        kafka_cluster({"kill-controller", std::to_string(old_leader)});
    ASSERT_EQ(killed.exit_code, 0) << killed.output;
    ASSERT_TRUE(followed.follow(observer, [&] {
        return followed.last.leader_id >= 100 && followed.last.leader_id != old_leader &&
               followed.last.leader_epoch > old_epoch;
    })) << "no new leader followed: " << followed.last_error;
    std::printf("  controller %d killed in epoch %d; following %d in epoch %d after %d failed polls\n",
                old_leader, old_epoch, followed.last.leader_id, followed.last.leader_epoch,
                followed.errors);
    create_topic(topic_name("after-change"));
    ASSERT_TRUE(followed.follow(observer, [&] { return count_topic(followed.log, topic_name("after-change")) == 1; }))
        << followed.last_error;
    EXPECT_FALSE(followed.last.image);  // the observer's position stayed in the new leader's log
    EXPECT_EQ(count_topic(followed.log, topic_name("before-change")) + count_topic(followed.image, topic_name("before-change")), 1);
    EXPECT_GT(observer.committed_offset(), position_at_kill);
    EXPECT_GE(followed.log.size(), log_at_kill);

    // Nothing missed: a second observer reading the new leader's log afterwards from where
    // the first stood at the kill (the controllers keep 20 s of log behind their snapshot)
    // sees the same records at the same offsets.
    MetadataLogObserver second(options(), position_at_kill, old_epoch);
    Followed check;
    ASSERT_TRUE(check.follow(second, [&] { return second.committed_offset() >= observer.committed_offset(); }))
        << check.last_error;
    ASSERT_LT(check.image_end, 0) << "the log no longer holds offset " << position_at_kill;
    std::vector<MetadataEntry> mine;
    for (const MetadataEntry& entry : followed.log) {
        if (entry.offset >= position_at_kill && entry.offset < observer.committed_offset()) mine.push_back(entry);
    }
    std::vector<MetadataEntry> theirs;
    for (const MetadataEntry& entry : check.log) {
        if (entry.offset < observer.committed_offset()) theirs.push_back(entry);
    }
    ASSERT_EQ(mine.size(), theirs.size()) << "from offset " << position_at_kill;
    ASSERT_FALSE(mine.empty());
    for (size_t i = 0; i < mine.size(); ++i) {
        EXPECT_EQ(mine[i].offset, theirs[i].offset);
        EXPECT_TRUE(mine[i].record == theirs[i].record) << "offset " << mine[i].offset;
    }
    std::printf("  %zu records compared from the kill's offset %lld to %lld\n", mine.size(),
                static_cast<long long>(position_at_kill),
                static_cast<long long>(observer.committed_offset()));

    // The quorum whole again for whatever runs next.
    const testing::CommandOutput started =
        kafka_cluster({"start-controller", std::to_string(old_leader)});
    EXPECT_EQ(started.exit_code, 0) << started.output;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
