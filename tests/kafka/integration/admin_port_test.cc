// The admin port against a real cluster, fed by a real metadata poller into
// one stream (as `ballast run` wires them): moves, swaps and leader changes
// complete, and the stream holds the new replicas before the completion;
// refusals come back as Kafka's errors; a throttled move is listed by
// running(), followed to its end by a port that adopted it, and cancelled;
// an adopted action found done, and one found never started.

#include <gtest/gtest.h>
#include <unistd.h>

#include "adapters/kafka/kafka_admin_port.h"
#include "adapters/kafka/metadata/metadata_poller.h"
#include "tests/kafka/integration/event_collector.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka {
namespace {

using testing::EventCollector;

constexpr int64_t settle_timeout_ms = 60'000;

std::string topic_name(const std::string& base) { return "ballast-it-" + base + "-" + std::to_string(::getpid()); }

events::Action action(uint64_t id, events::ActionKind kind, const std::string& topic, int32_t partition,
                      std::vector<int32_t> before, std::vector<int32_t> after) {
    events::Action a;
    a.action_id = id;
    a.kind = kind;
    a.topic = topic;
    a.partition = partition;
    a.replicas_before = std::move(before);
    a.replicas_after = std::move(after);
    a.goal = "test";
    return a;
}

template <class T>
const T* outcome(const std::vector<events::Event>& all, uint64_t id) {
    for (const events::Event& e : all) {
        const T* t = std::get_if<T>(&e.body);
        if (t && t->action_id == id) return t;
    }
    return nullptr;
}

bool has_outcome(const std::vector<events::Event>& all, uint64_t id) {
    return outcome<events::ActionCompleted>(all, id) || outcome<events::ActionFailed>(all, id);
}

class AdminPortOnKafka : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        events::Result<std::vector<wire::BrokerAddress>> servers = wire::parse_bootstrap_servers(_bootstrap);
        ASSERT_TRUE(servers.ok()) << servers.error().to_string();
        _client.bootstrap_servers = *servers;
        _rdkafka = std::make_unique<testing::RdKafka>(_bootstrap);
        metadata::MetadataPollerOptions o;
        o.bootstrap_servers = _bootstrap;
        o.client = _client;
        o.poll_interval_ms = 300;
        o.sweep_ms = 5000;  // incremental, a whole sweep well inside the waits
        _poller = std::make_unique<metadata::MetadataPoller>(o, _clock, &_view);
        ASSERT_TRUE(_poller->start(_events.sink()).ok());
    }
    void TearDown() override {
        if (_poller) _poller->stop();
        if (!_rdkafka) return;  // SetUp found no cluster and said so
        // Throttles off, whatever happened.
        for (int32_t broker : {1, 2, 3}) (void)_rdkafka->set_broker_configs(broker, {});
    }

    /// A port whose outcomes go to `sink` (the test's collector if none).
    std::unique_ptr<KafkaAdminPort> port(actors::EventSink sink = {}, int64_t abandon_after_ms = 30'000) {
        KafkaAdminPortOptions o;
        o.client = _client;
        o.poll_interval_ms = 300;
        o.abandon_after_ms = abandon_after_ms;
        auto p = std::make_unique<KafkaAdminPort>(o, _clock, &_view);
        p->attach(sink ? std::move(sink) : _events.sink());
        p->start();
        return p;
    }

    bool wait_outcome(uint64_t id) {
        return _events.wait_for([id](const std::vector<events::Event>& all) { return has_outcome(all, id); },
                                settle_timeout_ms);
    }

    /// Waits until the poller's report has `topic`, so targets are checked against it.
    void wait_reported(const std::string& topic) {
        ASSERT_TRUE(testing::eventually([&] { return _view.snapshot()->topics.count(topic) > 0; }, settle_timeout_ms));
    }

    std::string _bootstrap;
    wire::ClientOptions _client;
    std::unique_ptr<testing::RdKafka> _rdkafka;
    EventClock _clock = [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    metadata::ClusterView _view;
    EventCollector _events;
    std::unique_ptr<metadata::MetadataPoller> _poller;
};

TEST_F(AdminPortOnKafka, AMoveCompletesAfterTheStreamShowsItsNewReplicas) {
    const std::string topic = topic_name("port-move");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1}, {2}}).ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 200, 1000).ok());
    wait_reported(topic);
    auto p = port();
    p->submit(action(11, events::ActionKind::move, topic, 0, {1}, {3}), 1);
    ASSERT_TRUE(wait_outcome(11));
    const std::vector<events::Event> all = _events.events();
    ASSERT_NE(outcome<events::ActionCompleted>(all, 11), nullptr)
        << outcome<events::ActionFailed>(all, 11)->message;
    // The new replicas are in the stream before the completion.
    long moved = -1, completed = -1;
    for (size_t i = 0; i < all.size(); i++) {
        const auto* c = std::get_if<events::PartitionChanged>(&all[i].body);
        if (c && c->topic == topic && c->partition == 0 && c->replicas == std::vector<int32_t>{3} && moved < 0) {
            moved = static_cast<long>(i);
        }
        const auto* done = std::get_if<events::ActionCompleted>(&all[i].body);
        if (done && done->action_id == 11) {
            completed = static_cast<long>(i);
            EXPECT_EQ(all[i].source, events::Source::kafka_admin);
        }
    }
    ASSERT_GE(moved, 0);
    EXPECT_LT(moved, completed);
    EXPECT_EQ(_rdkafka->partition(topic, 0)->replicas, std::vector<int32_t>{3}) << "librdkafka agrees";
    // Counted after each pass of the port's worker, which reported the outcome first.
    EXPECT_TRUE(testing::eventually([&] { return p->following() == 0; }, settle_timeout_ms));
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

TEST_F(AdminPortOnKafka, ASwapMovesBothPartitionsAndALeaderChangeElectsThePreferredReplica) {
    const std::string topic = topic_name("port-swap");
    const std::string led = topic_name("port-leader");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1}, {2}}).ok());
    ASSERT_TRUE(_rdkafka->create_topic(led, {{1, 2}}).ok());
    wait_reported(topic);
    wait_reported(led);
    auto p = port();
    events::Action swap = action(21, events::ActionKind::swap, topic, 0, {1}, {2});
    swap.swap_topic = topic;
    swap.swap_partition = 1;
    swap.swap_replicas_before = {2};
    swap.swap_replicas_after = {1};
    p->submit(swap, 1);
    p->submit(action(22, events::ActionKind::leader, led, 0, {1, 2}, {2, 1}), 1);
    ASSERT_TRUE(wait_outcome(21));
    ASSERT_TRUE(wait_outcome(22));
    const std::vector<events::Event> all = _events.events();
    EXPECT_NE(outcome<events::ActionCompleted>(all, 21), nullptr);
    EXPECT_NE(outcome<events::ActionCompleted>(all, 22), nullptr);
    EXPECT_EQ(_rdkafka->partition(topic, 0)->replicas, std::vector<int32_t>{2});
    EXPECT_EQ(_rdkafka->partition(topic, 1)->replicas, std::vector<int32_t>{1});
    const auto leader = _rdkafka->partition(led, 0);
    EXPECT_EQ(leader->replicas, (std::vector<int32_t>{2, 1}));
    EXPECT_EQ(leader->leader, 2);
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
    EXPECT_TRUE(_rdkafka->delete_topic(led).ok());
}

TEST_F(AdminPortOnKafka, RefusalsComeBackAsKafkasErrors) {
    const std::string topic = topic_name("port-refused");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1}}).ok());
    wait_reported(topic);
    auto p = port();
    p->submit(action(31, events::ActionKind::move, topic, 0, {1}, {9}), 2);       // no broker 9
    p->submit(action(32, events::ActionKind::move, topic, 0, {1}, {1, 2}), 1);    // RF 1 -> 2
    p->submit(action(33, events::ActionKind::move, topic + "-none", 0, {1}, {2}), 1);
    ASSERT_TRUE(wait_outcome(31));
    ASSERT_TRUE(wait_outcome(32));
    ASSERT_TRUE(wait_outcome(33));
    const std::vector<events::Event> all = _events.events();
    const auto* unknown_broker = outcome<events::ActionFailed>(all, 31);
    ASSERT_NE(unknown_broker, nullptr);
    EXPECT_EQ(unknown_broker->error_name, "INVALID_REPLICA_ASSIGNMENT") << unknown_broker->message;
    EXPECT_EQ(unknown_broker->error_code, 39);
    EXPECT_FALSE(unknown_broker->retriable);
    EXPECT_EQ(unknown_broker->attempt, 2u);
    const auto* growing = outcome<events::ActionFailed>(all, 32);
    ASSERT_NE(growing, nullptr);
    EXPECT_EQ(growing->error_name, "INVALID_REPLICA_ASSIGNMENT");
    EXPECT_NE(growing->message.find("never changes a replication factor"), std::string::npos) << growing->message;
    const auto* missing = outcome<events::ActionFailed>(all, 33);
    ASSERT_NE(missing, nullptr);
    EXPECT_EQ(missing->error_name, "UNKNOWN_TOPIC_OR_PARTITION") << missing->message;
    EXPECT_EQ(_rdkafka->partition(topic, 0)->replicas, std::vector<int32_t>{1}) << "nothing moved";
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

// A move slowed by a replication throttle: running() lists it, a second port
// (a restarted Ballast) adopts it and reports its completion once the
// throttle is lifted; another is cancelled.
TEST_F(AdminPortOnKafka, AThrottledMoveIsListedAdoptedAndAnotherCancelled) {
    const std::string topic = topic_name("port-throttled");
    ASSERT_TRUE(_rdkafka
                    ->create_topic(topic, {{1}, {1}},
                                   {{"leader.replication.throttled.replicas", "*"},
                                    {"follower.replication.throttled.replicas", "*"}})
                    .ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 2000, 1000).ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 1, 2000, 1000).ok());
    ASSERT_TRUE(_rdkafka->set_broker_configs(1, {{"leader.replication.throttled.rate", "10000"}}).ok());
    for (int32_t b : {2, 3}) {
        ASSERT_TRUE(_rdkafka->set_broker_configs(b, {{"follower.replication.throttled.rate", "10000"}}).ok());
    }
    ASSERT_TRUE(testing::eventually(
        [&] {
            auto leader = _rdkafka->broker_config(1, "leader.replication.throttled.rate");
            return leader.ok() && *leader == "10000";
        },
        settle_timeout_ms));
    wait_reported(topic);
    const events::Action slow = action(41, events::ActionKind::move, topic, 0, {1}, {2});
    const events::Action doomed = action(42, events::ActionKind::move, topic, 1, {1}, {3});
    {
        auto first = port();
        first->submit(slow, 1);
        first->submit(doomed, 1);
        ASSERT_TRUE(testing::eventually([&] { return first->following() == 2; }, settle_timeout_ms));
        first->stop();  // a crash: Kafka keeps moving
    }
    auto second = port();
    const std::vector<kafka::RunningReassignment> running = second->running();
    ASSERT_EQ(running.size(), 2u);
    for (const kafka::RunningReassignment& r : running) {
        EXPECT_EQ(r.topic, topic);
        EXPECT_EQ(r.target_replicas, std::vector<int32_t>{r.partition == 0 ? 2 : 3}) << "the target, not the union";
    }
    second->adopt(slow, 1);
    second->cancel(doomed);
    ASSERT_TRUE(testing::eventually([&] { return second->running().size() == 1; }, settle_timeout_ms))
        << "the cancelled move is gone";
    EXPECT_TRUE(testing::eventually([&] { return _rdkafka->partition(topic, 1)->replicas == std::vector<int32_t>{1}; },
                                    settle_timeout_ms));
    EXPECT_FALSE(has_outcome(_events.events(), 41)) << "still copying through the throttle";

    for (int32_t b : {1, 2, 3}) ASSERT_TRUE(_rdkafka->set_broker_configs(b, {}).ok());
    ASSERT_TRUE(wait_outcome(41));
    const std::vector<events::Event> all = _events.events();
    EXPECT_NE(outcome<events::ActionCompleted>(all, 41), nullptr);
    EXPECT_FALSE(has_outcome(all, 42)) << "a cancel reports nothing: the executor already recorded it";
    EXPECT_EQ(_rdkafka->partition(topic, 0)->replicas, std::vector<int32_t>{2});
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

// After a restart the executor adopts every action in flight. One the
// crashed instance submitted and Kafka finished meanwhile is reported
// completed; one whose intent was journaled but never reached Kafka (the
// crash came first) is reported not started, and Kafka never runs it.
TEST_F(AdminPortOnKafka, AnAdoptedActionIsFoundDoneOrNeverStarted) {
    const std::string topic = topic_name("port-adopt");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1}, {2}}).ok());
    wait_reported(topic);
    const events::Action finished = action(51, events::ActionKind::move, topic, 0, {1}, {3});
    const events::Action never_sent = action(52, events::ActionKind::move, topic, 1, {2}, {3});
    {
        auto crashed = port([](std::vector<events::Event>) {});  // its outcomes die with it
        crashed->submit(finished, 1);
        ASSERT_TRUE(testing::eventually(
            [&] { return _rdkafka->partition(topic, 0)->replicas == std::vector<int32_t>{3}; }, settle_timeout_ms));
    }
    auto restarted = port({}, 3'000);
    restarted->adopt(finished, 1);
    restarted->adopt(never_sent, 1);
    ASSERT_TRUE(wait_outcome(51));
    ASSERT_TRUE(wait_outcome(52));
    const std::vector<events::Event> all = _events.events();
    EXPECT_NE(outcome<events::ActionCompleted>(all, 51), nullptr);
    const auto* failed = outcome<events::ActionFailed>(all, 52);
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->error_code, actors::not_started_code) << failed->message;
    EXPECT_FALSE(failed->retriable);
    EXPECT_EQ(failed->attempt, 1u);
    EXPECT_EQ(_rdkafka->partition(topic, 1)->replicas, std::vector<int32_t>{2}) << "never started";
    EXPECT_TRUE(testing::eventually([&] { return restarted->following() == 0; }, settle_timeout_ms));
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

}  // namespace
}  // namespace ballast::kafka
