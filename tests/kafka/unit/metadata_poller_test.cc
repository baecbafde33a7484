// The metadata poller against a scripted cluster on a real loopback socket (a model the
// test edits between polls): the incremental poll reports the same events as a full poll
// of every topic for the same changes, in the same order; at rest it reads only its share
// of the sweep; a change a full read would see is reported within one sweep period; the
// changes it reads at once (brokers, reassignments, watched topics) come at the next poll.
// And the sweep's paging alone, on made-up pages.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/metadata/metadata_poller.h"
#include "adapters/kafka/metadata/metadata_sweep.h"
#include "tests/kafka/support/scripted_cluster.h"

namespace ballast::kafka::metadata {
namespace {

using testing::ClusterModel;
using testing::ModelPartition;
using testing::ScriptedCluster;

constexpr int16_t metadata_key = 3;

/// A poller on the scripted cluster, driven by poll_once; what it fed, bodies only.
class Poller {
public:
    Poller(const ScriptedCluster& cluster, int64_t sweep_ms) {
        MetadataPollerOptions options;
        options.bootstrap_servers = "127.0.0.1:" + std::to_string(cluster.port());
        options.client.bootstrap_servers = {{"127.0.0.1", cluster.port()}};
        options.poll_interval_ms = 1000;
        options.sweep_ms = sweep_ms;
        options.call_timeout_ms = 5000;
        _poller = std::make_unique<MetadataPoller>(options, [] { return int64_t{0}; }, &view);
        EXPECT_TRUE(_poller->attach([this](std::vector<events::Event> batch) {
                                for (events::Event& e : batch) fed.push_back(std::move(e.body));
                            }).ok());
    }
    /// Polls `count` times; the bodies fed by them.
    std::vector<events::Body> poll(int count = 1) {
        const size_t before = fed.size();
        for (int i = 0; i < count; i++) {
            events::Status polled = _poller->poll_once();
            EXPECT_TRUE(polled.ok()) << polled.error().message;
        }
        return {fed.begin() + static_cast<std::ptrdiff_t>(before), fed.end()};
    }
    MetadataPoller& poller() { return *_poller; }

    ClusterView view;
    std::vector<events::Body> fed;

private:
    std::unique_ptr<MetadataPoller> _poller;
};

/// One line an event, ports left out (each scripted cluster listens on its own): what the
/// comparisons compare, and what a failure prints.
std::vector<std::string> lines(const std::vector<events::Body>& bodies) {
    std::vector<std::string> out;
    auto list = [](const std::vector<int32_t>& ids) {
        std::string s = "[";
        for (const int32_t id : ids) s += std::to_string(id) + " ";
        return s + "]";
    };
    for (const events::Body& body : bodies) {
        if (const auto* b = std::get_if<events::BrokerRegistered>(&body)) {
            out.push_back("registered " + std::to_string(b->broker_id) + " " + b->rack);
        } else if (const auto* c = std::get_if<events::PartitionChanged>(&body)) {
            out.push_back("changed " + c->topic + "/" + std::to_string(c->partition) + " replicas " +
                          list(c->replicas) + " leader " + std::to_string(c->leader) + " isr " + list(c->isr) +
                          " epoch " + std::to_string(c->leader_epoch));
        } else if (const auto* f = std::get_if<events::BrokerFenced>(&body)) {
            out.push_back("fenced " + std::to_string(f->broker_id));
        } else if (const auto* u = std::get_if<events::BrokerUnfenced>(&body)) {
            out.push_back("unfenced " + std::to_string(u->broker_id));
        } else if (const auto* g = std::get_if<events::BrokerUnregistered>(&body)) {
            out.push_back("unregistered " + std::to_string(g->broker_id));
        } else if (const auto* t = std::get_if<events::TopicCreated>(&body)) {
            out.push_back("created " + t->topic + " " + std::to_string(t->partition_count) + "x" +
                          std::to_string(t->replication_factor));
        } else if (const auto* d = std::get_if<events::TopicDeleted>(&body)) {
            out.push_back("deleted " + d->topic);
        } else {
            out.push_back("event type " + std::to_string(body.index()));
        }
    }
    return out;
}

/// Where two lists of lines first differ, for a failure's message.
std::string first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (size_t i = 0; i < std::max(a.size(), b.size()); i++) {
        const std::string x = i < a.size() ? a[i] : "(none)";
        const std::string y = i < b.size() ? b[i] : "(none)";
        if (x != y) return "at " + std::to_string(i) + ": " + x + " | " + y;
    }
    return "none";
}

/// 3 brokers, 20 topics of 5 partitions (RF 2): 100 partitions.
ClusterModel small_model() { return testing::generated_model(3, 20, 5, 2); }

/// The one of brokers 1-3 a partition of the small model does not hold.
int32_t missing_broker(const ModelPartition& p) {
    for (int32_t b = 1; b <= 3; b++) {
        if (std::find(p.replicas.begin(), p.replicas.end(), b) == p.replicas.end()) return b;
    }
    return -1;
}

// Polls a 10-poll sweep needs to have read every partition at least once after a change.
constexpr int64_t sweep_ms = 10'000;
constexpr int polls_per_sweep = 12;

TEST(IncrementalMetadataPoll, ReportsWhatAFullPollReportsInTheSameOrder) {
    // Two clusters played from the same model (a scripted broker serves one connection at
    // a time), changed alike.
    ScriptedCluster cluster(small_model());
    ScriptedCluster twin(small_model());
    Poller full(cluster, 0);
    Poller incremental(twin, sweep_ms);
    EXPECT_EQ(lines(incremental.poll()), lines(full.poll()));
    ASSERT_FALSE(full.fed.empty());

    // One change at a time, each read by a full poll and by a sweep's worth of incremental polls.
    const std::vector<std::function<void(ClusterModel&)>> changes = {
        [](ClusterModel& m) {  // a leader moves, an ISR shrinks
            ModelPartition& p = m.topics.at("t00003")[2];
            p.leader = p.replicas[1];
            p.leader_epoch++;
            p.isr = {p.replicas[1]};
        },
        [](ClusterModel& m) { m.topics["t00100"] = testing::generated_model(3, 1, 4, 3).topics.at("t00000"); },
        [](ClusterModel& m) { m.topics.erase("t00007"); },
        [](ClusterModel& m) {  // broker 2 fenced, its leaderships moved in the same change
            m.brokers.at(2).fenced = true;
            for (auto& [name, partitions] : m.topics) {
                for (ModelPartition& p : partitions) {
                    std::erase(p.isr, 2);
                    if (p.leader == 2) {
                        p.leader = p.isr.empty() ? -1 : p.isr[0];
                        p.leader_epoch++;
                    }
                }
            }
        },
        [](ClusterModel& m) { m.brokers.at(2).fenced = false; },
        [](ClusterModel& m) {  // a reassignment starts: [a,b] -> [c,b], Kafka lists the union
            ModelPartition& p = m.topics.at("t00011")[0];
            const int32_t c = missing_broker(p);
            p.adding = {c};
            p.removing = {p.replicas[0]};
            p.replicas = {c, p.replicas[0], p.replicas[1]};
        },
        [](ClusterModel& m) {  // ... and finishes
            ModelPartition& p = m.topics.at("t00011")[0];
            p.replicas = {p.adding[0], p.replicas[2]};
            p.isr = p.replicas;
            p.leader = p.replicas[0];
            p.leader_epoch++;
            p.adding.clear();
            p.removing.clear();
        },
        [](ClusterModel& m) { m.brokers[4] = testing::ModelBroker{"rack-x", false}; },
    };
    for (size_t i = 0; i < changes.size(); i++) {
        SCOPED_TRACE("change " + std::to_string(i));
        cluster.edit(changes[i]);
        twin.edit(changes[i]);
        const std::vector<std::string> by_full = lines(full.poll());
        if (i != 5) {
            EXPECT_FALSE(by_full.empty());  // a move that starts changes no report
        }
        const std::vector<std::string> by_incremental = lines(incremental.poll(polls_per_sweep));
        EXPECT_EQ(by_incremental, by_full) << first_difference(by_incremental, by_full);
    }
    // The same report, but for the brokers' ports (each cluster listens on its own).
    ClusterState by_incremental = *incremental.view.snapshot();
    for (auto& [id, broker] : by_incremental.brokers) broker.port = full.view.snapshot()->brokers.at(id).port;
    EXPECT_EQ(by_incremental, *full.view.snapshot());
}

TEST(IncrementalMetadataPoll, AtRestReadsOnlyItsShareOfTheSweep) {
    // 100 topics of 100 partitions: 10,000; a 100-poll sweep reads ~100 a poll.
    ScriptedCluster cluster(testing::generated_model(3, 100, 100, 2));
    Poller incremental(cluster, 100'000);
    incremental.poll();  // the first poll reads everything
    const int64_t served = cluster.partitions_served();
    const int64_t full_metadata = cluster.requests(metadata_key);
    EXPECT_EQ(served, 10'000);
    EXPECT_TRUE(incremental.poll(20).empty());
    // Twenty polls: a fifth of the sweep (each share rounds up by one), no full Metadata.
    EXPECT_LE(cluster.partitions_served() - served, 20 * 102);
    EXPECT_GE(cluster.partitions_served() - served, 20 * 100);
    EXPECT_EQ(cluster.requests(metadata_key), full_metadata);
    EXPECT_EQ(incremental.poller().full_polls_done(), 1u);
    EXPECT_EQ(incremental.view.version(), 1u) << "nothing changed: nothing published";
}

TEST(IncrementalMetadataPoll, AChangeNothingPointsToShowsWithinOneSweep) {
    ScriptedCluster cluster(small_model());
    Poller incremental(cluster, sweep_ms);
    incremental.poll();
    // A follower drops out of an ISR: no broker changed, nothing moves.
    cluster.edit([](ClusterModel& m) { m.topics.at("t00019")[4].isr.resize(1); });
    int polls = 0;
    while (polls < 3 * polls_per_sweep && incremental.poll().empty()) polls++;
    EXPECT_LT(polls, polls_per_sweep) << "not seen within one sweep (10 polls)";
    ASSERT_FALSE(incremental.fed.empty());
    const auto* changed = std::get_if<events::PartitionChanged>(&incremental.fed.back());
    ASSERT_NE(changed, nullptr);
    EXPECT_EQ(changed->topic, "t00019");
    EXPECT_EQ(changed->isr.size(), 1u);
    EXPECT_GE(incremental.poller().sweeps_done(), 1u);
}

TEST(IncrementalMetadataPoll, BrokersReassignmentsAndWatchedTopicsAtTheNextPoll) {
    ScriptedCluster cluster(small_model());
    Poller incremental(cluster, 3'600'000);  // a sweep far away: only the per-poll reads count
    incremental.poll();

    cluster.edit([](ClusterModel& m) { m.brokers.at(3).fenced = true; });
    std::vector<events::Body> fed = incremental.poll();
    ASSERT_EQ(fed.size(), 1u);
    EXPECT_EQ(fed[0], events::Body(events::BrokerFenced{3}));

    int32_t added = -1;
    cluster.edit([&](ClusterModel& m) {
        ModelPartition& p = m.topics.at("t00005")[1];
        added = missing_broker(p);
        p.adding = {added};
        p.replicas.insert(p.replicas.begin(), added);
    });
    EXPECT_TRUE(incremental.poll().empty()) << "the replica being added is left out";
    ASSERT_NE(incremental.view.snapshot()->partition("t00005", 1), nullptr);
    EXPECT_TRUE(incremental.view.snapshot()->partition("t00005", 1)->reassigning);
    cluster.edit([](ClusterModel& m) {
        ModelPartition& p = m.topics.at("t00005")[1];
        p.adding.clear();
        p.replicas.pop_back();
    });
    fed = incremental.poll();
    ASSERT_EQ(fed.size(), 1u) << "the finished move, read the poll after it left the list";
    EXPECT_EQ(std::get<events::PartitionChanged>(fed[0]).replicas[0], added);

    incremental.view.watch({"t00012"});
    cluster.edit([](ClusterModel& m) { m.topics.at("t00012")[0].leader_epoch++; });
    fed = incremental.poll();
    ASSERT_EQ(fed.size(), 1u);
    EXPECT_EQ(std::get<events::PartitionChanged>(fed[0]).topic, "t00012");
    // Unwatched, the same change waits for the sweep.
    cluster.edit([](ClusterModel& m) { m.topics.at("t00013")[0].leader_epoch++; });
    EXPECT_TRUE(incremental.poll(3).empty());
}

// ------------------------------------------------------------------ the sweep alone

wire::messages::DescribeTopicPartitionsTopic page_topic(const std::string& name, std::vector<int32_t> partitions) {
    wire::messages::DescribeTopicPartitionsTopic t;
    t.name = name;
    for (const int32_t p : partitions) {
        wire::messages::DescribeTopicPartitionsPartition& partition = t.partitions.emplace_back();
        partition.partition_index = p;
        partition.leader_id = 1;
        partition.replica_nodes = {1};
        partition.isr_nodes = {1};
    }
    return t;
}

TEST(MetadataSweep, GathersATopicSplitOverPagesAndFindsTheGoneBetweenPages) {
    std::map<std::string, TopicState> known;
    for (const char* name : {"a", "b", "c", "d", "e"}) known[name];
    MetadataSweep sweep;
    EXPECT_FALSE(sweep.next_request(3).cursor.has_value());
    // Page 1: a whole, c begins ("b" is gone: Kafka would have listed it before c).
    wire::messages::DescribeTopicPartitionsResponse page;
    page.topics = {page_topic("a", {0}), page_topic("c", {0, 1})};
    page.next_cursor = wire::messages::DescribeTopicPartitionsCursor{"c", 2};
    TopicsRead read;
    EXPECT_EQ(sweep.take(page, known, read), 3u);
    ASSERT_EQ(read.topics.size(), 1u);
    EXPECT_EQ(read.topics[0].name, "a");
    EXPECT_EQ(read.deleted, std::vector<std::string>{"b"});
    EXPECT_EQ(sweep.next_request(3).cursor, page.next_cursor);
    // Page 2: the rest of c, then e; the pass ends ("d" gone).
    page.topics = {page_topic("c", {2}), page_topic("e", {0})};
    page.next_cursor.reset();
    read = {};
    sweep.take(page, known, read);
    ASSERT_EQ(read.topics.size(), 2u);
    EXPECT_EQ(read.topics[0].name, "c");
    EXPECT_EQ(read.topics[0].partitions.size(), 3u);
    EXPECT_EQ(read.topics[1].name, "e");
    EXPECT_EQ(read.deleted, std::vector<std::string>{"d"});
    EXPECT_EQ(sweep.passes_done(), 1u);
    EXPECT_TRUE(sweep.at_start());
}

TEST(MetadataSweep, ATopicReadElsewhereWhileGatheredIsReadAgainFromItsStart) {
    std::map<std::string, TopicState> known;
    known["a"];
    MetadataSweep sweep;
    wire::messages::DescribeTopicPartitionsResponse page;
    page.topics = {page_topic("a", {0, 1})};
    page.next_cursor = wire::messages::DescribeTopicPartitionsCursor{"a", 2};
    TopicsRead read;
    sweep.take(page, known, read);
    sweep.read_elsewhere("b");  // not the one gathered: nothing changes
    EXPECT_EQ(sweep.next_request(2).cursor, page.next_cursor);
    sweep.read_elsewhere("a");
    EXPECT_EQ(sweep.next_request(2).cursor, (wire::messages::DescribeTopicPartitionsCursor{"a", 0}));
    page.topics = {page_topic("a", {0, 1, 2})};
    page.next_cursor.reset();
    sweep.take(page, known, read);
    ASSERT_EQ(read.topics.size(), 1u);
    EXPECT_EQ(read.topics[0].partitions.size(), 3u) << "read once, not the old part and the new";
}

TEST(MetadataSweep, ATopicWithAnErrorIsLeftAsReported) {
    std::map<std::string, TopicState> known;
    known["a"];
    MetadataSweep sweep;
    wire::messages::DescribeTopicPartitionsResponse page;
    page.topics = {page_topic("a", {0})};
    page.topics[0].error_code = 5;
    TopicsRead read;
    sweep.take(page, known, read);
    EXPECT_TRUE(read.topics.empty());
    EXPECT_TRUE(read.deleted.empty());
}

}  // namespace
}  // namespace ballast::kafka::metadata
