/// The simulated cluster on its own: what a poller and a metrics reader
/// would see from it, and how it carries out the admin port's requests.
/// No engine: the test plays the executor.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "adapters/sim/sim_cluster.h"

namespace ballast::sim {
namespace {

constexpr double mib = 1 << 20;

Scenario three_brokers(Flavor flavor, int32_t rf = 1, int32_t partitions = 6) {
    Scenario s;
    s.name = "test";
    s.flavor = flavor;
    s.duration_ms = 600'000;
    for (int32_t b = 1; b <= 3; b++) s.brokers.push_back({b, "rack-" + std::to_string(b), true, {}});
    TopicSpec t;
    t.name = "orders";
    t.partitions = partitions;
    t.replication_factor = rf;
    t.traffic.bytes_in_per_s = 6 * mib;
    t.initial_size_bytes = 100 * mib;
    // Partition p on broker p % 3 + 1 (and the next one for RF 2).
    for (int32_t p = 0; p < partitions; p++) {
        std::vector<int32_t> replicas;
        for (int32_t r = 0; r < rf; r++) replicas.push_back((p + r) % 3 + 1);
        t.assignment.push_back(replicas);
    }
    s.topics.push_back(t);
    return s;
}

TimedEvent at(int64_t at_ms, TimedEvent::Kind kind, int32_t broker_id) {
    TimedEvent e;
    e.at_ms = at_ms;
    e.kind = kind;
    e.broker_id = broker_id;
    return e;
}

template <class T>
std::vector<events::Event> of_type(const std::vector<events::Event>& events) {
    std::vector<events::Event> out;
    for (const events::Event& e : events) {
        if (std::holds_alternative<T>(e.body)) out.push_back(e);
    }
    return out;
}

/// Runs the cluster to `to_ms` one tick at a time, collecting what it says.
std::vector<events::Event> run_to(SimCluster& cluster, int64_t to_ms) {
    std::vector<events::Event> all;
    while (cluster.now_ms() < to_ms) {
        for (events::Event& e : cluster.advance(cluster.now_ms() + cluster.scenario().tick_interval_ms)) {
            all.push_back(std::move(e));
        }
    }
    return all;
}

const SimPartition& partition(const SimCluster& cluster, int32_t id) {
    for (const SimPartition& p : cluster.partitions()) {
        if (p.partition == id) return p;
    }
    ADD_FAILURE() << "no partition " << id;
    return cluster.partitions().front();
}

events::Action move(uint64_t id, int32_t partition, std::vector<int32_t> before, std::vector<int32_t> after) {
    events::Action a;
    a.action_id = id;
    a.kind = events::ActionKind::move;
    a.topic = "orders";
    a.partition = partition;
    a.source_broker = before[0];
    a.destination_broker = after[0];
    a.replicas_before = std::move(before);
    a.replicas_after = std::move(after);
    return a;
}

TEST(SimCluster, StartShowsTheClusterAsAPollerWouldAndReportsMetrics) {
    SimCluster cluster(three_brokers(Flavor::automq));
    const std::vector<events::Event> first = cluster.start();
    EXPECT_EQ(of_type<events::BrokerRegistered>(first).size(), 3u);
    EXPECT_EQ(of_type<events::TopicCreated>(first).size(), 1u);
    const auto partitions = of_type<events::PartitionChanged>(first);
    ASSERT_EQ(partitions.size(), 6u);
    // Round robin over the brokers, as Kafka places a new topic.
    std::map<int32_t, int> per_broker;
    for (const events::Event& e : partitions) per_broker[std::get<events::PartitionChanged>(e.body).leader]++;
    EXPECT_EQ(per_broker, (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
    // Every broker reports the partitions it leads: 1 MiB/s each (6 MiB/s over 6).
    const auto reports = of_type<events::PartitionMetrics>(first);
    ASSERT_EQ(reports.size(), 3u);
    for (const events::Event& e : reports) {
        const auto& m = std::get<events::PartitionMetrics>(e.body);
        ASSERT_EQ(m.samples.size(), 2u);
        EXPECT_DOUBLE_EQ(m.samples[0].bytes_in_per_s, mib);
    }
    EXPECT_TRUE(std::holds_alternative<events::Tick>(first.back().body));
    // The next reports come every 10 s, AutoMQ's interval.
    const std::vector<events::Event> later = run_to(cluster, 30'000);
    std::set<int64_t> report_times;
    for (const events::Event& e : of_type<events::PartitionMetrics>(later)) {
        report_times.insert(std::get<events::PartitionMetrics>(e.body).sample_time_ms);
    }
    EXPECT_EQ(report_times, (std::set<int64_t>{10'000, 20'000, 30'000}));
    EXPECT_EQ(of_type<events::Tick>(later).size(), 30u);
}

TEST(SimCluster, AStoppedBrokerIsFencedAfterTheSessionTimeoutAndItsPartitionsLoseIt) {
    Scenario s = three_brokers(Flavor::apache, 2);
    s.events.push_back(at(60'000, TimedEvent::Kind::stop_broker, 3));
    SimCluster cluster(s);
    cluster.start();
    std::vector<events::Event> events = run_to(cluster, 100'000);
    const auto fenced = of_type<events::BrokerFenced>(events);
    ASSERT_EQ(fenced.size(), 1u);
    EXPECT_EQ(fenced[0].time_ms, 69'000) << "9 s session timeout";
    EXPECT_EQ(std::get<events::BrokerFenced>(fenced[0].body).broker_id, 3);
    for (const SimPartition& p : cluster.partitions()) {
        EXPECT_NE(p.leader, 3);
        EXPECT_EQ(std::count(p.isr.begin(), p.isr.end(), 3), 0) << "RF2: the other replica stays in sync";
    }
    // Broker 3 reports nothing once stopped (its 60 s report went out as it stopped).
    for (const events::Event& e : of_type<events::PartitionMetrics>(events)) {
        if (e.time_ms > 60'000) {
            EXPECT_NE(std::get<events::PartitionMetrics>(e.body).broker_id, 3);
        }
    }
}

TEST(SimCluster, AnRf1PartitionGoesOfflineWithItsBrokerAndLeadsAgainWhenItReturns) {
    Scenario s = three_brokers(Flavor::apache, 1);
    s.events.push_back(at(30'000, TimedEvent::Kind::stop_broker, 3));
    s.events.push_back(at(90'000, TimedEvent::Kind::start_broker, 3));
    SimCluster cluster(s);
    cluster.start();
    run_to(cluster, 60'000);
    int offline = 0;
    for (const SimPartition& p : cluster.partitions()) offline += p.leader < 0;
    EXPECT_EQ(offline, 2) << "broker 3 led two of the six";
    const std::vector<events::Event> back = run_to(cluster, 95'000);
    const auto unfenced = of_type<events::BrokerUnfenced>(back);
    ASSERT_EQ(unfenced.size(), 1u);
    EXPECT_EQ(unfenced[0].time_ms, 91'000);
    for (const SimPartition& p : cluster.partitions()) EXPECT_GE(p.leader, 1);
}

TEST(SimCluster, AutomqMovesTakeAboutASecondAndAHalfEvenOffAStoppedBroker) {
    Scenario s = three_brokers(Flavor::automq, 1);
    s.events.push_back(at(10'000, TimedEvent::Kind::stop_broker, 3));
    SimCluster cluster(s);
    cluster.start();
    run_to(cluster, 30'000);
    const SimPartition& p = partition(cluster, 2);
    ASSERT_EQ(p.replicas, std::vector<int32_t>{3});
    cluster.port().submit(move(7, 2, {3}, {1}), 1);
    const std::vector<events::Event> events = run_to(cluster, 35'000);
    const auto done = of_type<events::ActionCompleted>(events);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].time_ms, 31'500);
    EXPECT_EQ(partition(cluster, 2).replicas, std::vector<int32_t>{1});
    EXPECT_EQ(partition(cluster, 2).leader, 1) << "it reopens where it lands";
}

TEST(SimCluster, ApacheMovesCopyAtTheThrottleAndNeedALiveReplica) {
    Scenario s = three_brokers(Flavor::apache, 1);
    s.apache_throttle_bytes_per_s = 11 * mib;  // 10 MiB/s of catch-up over 1 MiB/s of produce
    SimCluster cluster(s);
    cluster.start();
    ASSERT_EQ(partition(cluster, 0).replicas, std::vector<int32_t>{1});
    cluster.port().submit(move(1, 0, {1}, {2}), 1);
    std::vector<events::Event> events = run_to(cluster, 20'000);
    const auto done = of_type<events::ActionCompleted>(events);
    ASSERT_EQ(done.size(), 1u);
    // 100 MiB at 10 MiB/s of catch-up, plus the setup: done just after 10.5 s.
    EXPECT_GE(done[0].time_ms, 10'000);
    EXPECT_LE(done[0].time_ms, 12'000);

    // A partition whose only replica is down cannot be copied anywhere.
    Scenario down = three_brokers(Flavor::apache, 1);
    down.events.push_back(at(1'000, TimedEvent::Kind::stop_broker, 3));
    SimCluster stuck(down);
    stuck.start();
    run_to(stuck, 20'000);
    const SimPartition& offline = partition(stuck, 2);
    ASSERT_EQ(offline.replicas, std::vector<int32_t>{3});
    stuck.port().submit(move(2, 2, {3}, {1}), 1);
    events = run_to(stuck, 120'000);
    EXPECT_TRUE(of_type<events::ActionCompleted>(events).empty());
    EXPECT_EQ(stuck.moves_in_flight(), 1u) << "still pending, as Kafka keeps it";
}

TEST(SimCluster, RefusesASecondMoveOfAPartitionAndCancelKeepsTheOriginalReplicas) {
    Scenario s = three_brokers(Flavor::apache, 1);
    s.apache_throttle_bytes_per_s = 2 * mib;  // slow: the first move runs for a while
    SimCluster cluster(s);
    cluster.start();
    const int32_t from = partition(cluster, 0).replicas[0];
    const int32_t to = from % 3 + 1;
    cluster.port().submit(move(1, 0, {from}, {to}), 1);
    run_to(cluster, 2'000);
    cluster.port().submit(move(2, 0, {from}, {to % 3 + 1}), 1);
    std::vector<events::Event> events = run_to(cluster, 4'000);
    const auto failed = of_type<events::ActionFailed>(events);
    ASSERT_EQ(failed.size(), 1u);
    const auto& f = std::get<events::ActionFailed>(failed[0].body);
    EXPECT_EQ(f.action_id, 2u);
    EXPECT_EQ(f.error_name, "REASSIGNMENT_IN_PROGRESS");
    EXPECT_FALSE(f.retriable);
    ASSERT_EQ(cluster.moves_in_flight(), 1u);
    cluster.port().cancel(move(1, 0, {from}, {to}));
    events = run_to(cluster, 200'000);
    EXPECT_TRUE(of_type<events::ActionCompleted>(events).empty());
    EXPECT_TRUE((cluster.moves_in_flight() == 0));
    EXPECT_EQ(partition(cluster, 0).replicas, std::vector<int32_t>{from});
}

// After an engine's restart the executor adopts what it had in flight: the
// simulated cluster follows a move it got, and reports one it never got as
// not started (as Kafka's port does), never starting it.
TEST(SimCluster, AnAdoptedMoveItNeverGotIsReportedNotStarted) {
    Scenario s = three_brokers(Flavor::apache, 1);
    s.apache_throttle_bytes_per_s = 2 * mib;
    SimCluster cluster(s);
    cluster.start();
    const int32_t from = partition(cluster, 0).replicas[0];
    const int32_t to = from % 3 + 1;
    const int32_t other_from = partition(cluster, 1).replicas[0];
    cluster.port().submit(move(1, 0, {from}, {to}), 1);
    run_to(cluster, 2'000);
    cluster.port().adopt(move(1, 0, {from}, {to}), 1);
    cluster.port().adopt(move(2, 1, {other_from}, {other_from % 3 + 1}), 1);
    std::vector<events::Event> events = run_to(cluster, 4'000);
    const auto failed = of_type<events::ActionFailed>(events);
    ASSERT_EQ(failed.size(), 1u);
    const auto& f = std::get<events::ActionFailed>(failed[0].body);
    EXPECT_EQ(f.action_id, 2u);
    EXPECT_EQ(f.error_code, actors::not_started_code);
    EXPECT_FALSE(f.retriable);
    EXPECT_EQ(partition(cluster, 1).replicas, std::vector<int32_t>{other_from}) << "never started";
    ASSERT_EQ(cluster.moves_in_flight(), 1u) << "the move it got still runs";
    events = run_to(cluster, 200'000);
    const auto done = of_type<events::ActionCompleted>(events);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(std::get<events::ActionCompleted>(done[0].body).action_id, 1u);
}

TEST(SimCluster, ALeaderChangeElectsThePreferredReplicaIfItIsInSync) {
    SimCluster cluster(three_brokers(Flavor::apache, 2));
    cluster.start();
    const SimPartition& p = partition(cluster, 0);
    std::vector<int32_t> reordered = {p.replicas[1], p.replicas[0]};
    events::Action a;
    a.action_id = 5;
    a.kind = events::ActionKind::leader;
    a.topic = "orders";
    a.partition = 0;
    a.source_broker = p.replicas[0];
    a.destination_broker = p.replicas[1];
    a.replicas_before = p.replicas;
    a.replicas_after = reordered;
    cluster.port().submit(a, 1);
    const std::vector<events::Event> events = run_to(cluster, 2'000);
    ASSERT_EQ(of_type<events::ActionCompleted>(events).size(), 1u);
    EXPECT_EQ(partition(cluster, 0).leader, reordered[0]);
    EXPECT_EQ(partition(cluster, 0).replicas, reordered);
}

TEST(SimCluster, InjectedFaultsFailStickAndDropReports) {
    Scenario s = three_brokers(Flavor::automq, 1);
    s.faults.submit_failure_ratio = 1;
    SimCluster failing(s);
    failing.start();
    failing.port().submit(move(1, 0, {partition(failing, 0).replicas[0]}, {partition(failing, 1).replicas[0]}), 1);
    std::vector<events::Event> events = run_to(failing, 5'000);
    const auto failed = of_type<events::ActionFailed>(events);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_TRUE(std::get<events::ActionFailed>(failed[0].body).retriable);
    EXPECT_EQ(std::get<events::ActionFailed>(failed[0].body).error_name, "NOT_CONTROLLER");

    s.faults = {};
    s.faults.stuck_ratio = 1;
    SimCluster stuck(s);
    stuck.start();
    stuck.port().submit(move(1, 0, {partition(stuck, 0).replicas[0]}, {partition(stuck, 1).replicas[0]}), 1);
    events = run_to(stuck, 60'000);
    EXPECT_TRUE(of_type<events::ActionCompleted>(events).empty());
    EXPECT_EQ(stuck.moves_in_flight(), 1u);

    s.faults = {};
    s.faults.metrics_loss_ratio = 1;
    s.faults.until_ms = 30'000;
    SimCluster lossy(s);
    lossy.start();
    events = run_to(lossy, 60'000);
    std::set<int64_t> reported;
    for (const events::Event& e : of_type<events::PartitionMetrics>(events)) reported.insert(e.time_ms);
    EXPECT_EQ(reported, (std::set<int64_t>{30'000, 40'000, 50'000, 60'000})) << "lost until the faults stop";
    EXPECT_EQ(lossy.counters().reports_lost, 9u);
}

TEST(SimCluster, TrafficChangesScaleThePartitionsABrokerLeads) {
    Scenario s = three_brokers(Flavor::automq, 1);
    TimedEvent shift;
    shift.at_ms = 20'000;
    shift.kind = TimedEvent::Kind::scale_traffic;
    shift.select.topic = "orders";
    shift.select.led_by = 1;
    shift.scale = 3;
    s.events.push_back(shift);
    SimCluster cluster(s);
    cluster.start();
    run_to(cluster, 30'000);
    std::map<int32_t, double> in;
    for (const BrokerLoad& l : cluster.broker_loads()) in[l.id] = l.bytes_in_per_s;
    EXPECT_DOUBLE_EQ(in[1], 6 * mib);
    EXPECT_DOUBLE_EQ(in[2], 2 * mib);
    EXPECT_DOUBLE_EQ(in[3], 2 * mib);
}

TEST(SimCluster, TheSameScenarioGivesTheSameEvents) {
    Scenario s = three_brokers(Flavor::apache, 2, 12);
    s.faults.metrics_loss_ratio = 0.3;
    s.faults.metrics_late_ratio = 0.3;
    s.topics[0].traffic.kind = ProfileKind::random_walk;
    s.events.push_back(at(40'000, TimedEvent::Kind::stop_broker, 2));
    s.events.push_back(at(80'000, TimedEvent::Kind::start_broker, 2));
    auto run = [&] {
        SimCluster cluster(s);
        std::vector<events::Event> all = cluster.start();
        for (events::Event& e : run_to(cluster, 200'000)) all.push_back(std::move(e));
        return all;
    };
    const std::vector<events::Event> a = run();
    EXPECT_EQ(a, run());
    s.seed = 2;
    EXPECT_NE(a, run()) << "another seed draws other faults and walks";
}

TEST(SimCluster, AFencedBrokerThatStillRunsLosesItsIsrsAndLeadershipButKeepsReporting) {
    Scenario s = three_brokers(Flavor::automq, 2);
    s.events.push_back(at(35'000, TimedEvent::Kind::fence_broker, 1));
    s.events.push_back(at(65'000, TimedEvent::Kind::unfence_broker, 1));
    SimCluster cluster(s);
    cluster.start();
    std::vector<events::Event> events = run_to(cluster, 60'000);
    const auto fenced = of_type<events::BrokerFenced>(events);
    ASSERT_EQ(fenced.size(), 1u);
    EXPECT_EQ(fenced[0].time_ms, 35'000) << "at once: no session timeout, the controller fenced it";
    EXPECT_EQ(std::get<events::BrokerFenced>(fenced[0].body).broker_id, 1);
    EXPECT_EQ(cluster.brokers()[0].state, BrokerState::isolated);
    for (const SimPartition& p : cluster.partitions()) {
        EXPECT_NE(p.leader, 1) << "partition " << p.partition;
        EXPECT_EQ(std::count(p.isr.begin(), p.isr.end(), 1), 0) << "RF2: the other replica stays in sync";
    }
    // Its process runs on: it reports at 40 s and 50 s (leading nothing), unlike a stopped broker.
    std::set<int64_t> reported;
    for (const events::Event& e : of_type<events::BrokerMetrics>(events)) {
        for (const auto& sample : std::get<events::BrokerMetrics>(e.body).samples) {
            if (sample.broker_id == 1 && e.time_ms > 35'000) reported.insert(e.time_ms);
        }
    }
    EXPECT_EQ(reported, (std::set<int64_t>{40'000, 50'000, 60'000}));
    for (const events::Event& e : of_type<events::PartitionMetrics>(events)) {
        const auto& m = std::get<events::PartitionMetrics>(e.body);
        if (m.broker_id == 1 && e.time_ms > 35'000) {
            EXPECT_TRUE(m.samples.empty()) << "it leads nothing";
        }
    }
    // Unfenced at once; its replicas rejoin (automq: caught up already); leadership stays where it went.
    events = run_to(cluster, 70'000);
    const auto unfenced = of_type<events::BrokerUnfenced>(events);
    ASSERT_EQ(unfenced.size(), 1u);
    EXPECT_EQ(unfenced[0].time_ms, 65'000);
    EXPECT_EQ(cluster.brokers()[0].state, BrokerState::running);
    for (const SimPartition& p : cluster.partitions()) {
        const bool replica = std::count(p.replicas.begin(), p.replicas.end(), 1) > 0;
        EXPECT_EQ(std::count(p.isr.begin(), p.isr.end(), 1), replica ? 1 : 0) << "partition " << p.partition;
        EXPECT_NE(p.leader, 1);
    }
}

TEST(SimCluster, AFencedBrokerThatStopsIsFencedOnceAndRestartsAsAStoppedOne) {
    Scenario s = three_brokers(Flavor::automq, 2);
    s.events.push_back(at(15'000, TimedEvent::Kind::fence_broker, 2));
    s.events.push_back(at(20'000, TimedEvent::Kind::stop_broker, 2));
    s.events.push_back(at(40'000, TimedEvent::Kind::start_broker, 2));
    SimCluster cluster(s);
    cluster.start();
    std::vector<events::Event> events = run_to(cluster, 35'000);
    EXPECT_EQ(of_type<events::BrokerFenced>(events).size(), 1u) << "fenced already when it stopped";
    EXPECT_EQ(cluster.brokers()[1].state, BrokerState::fenced);
    events = run_to(cluster, 45'000);
    const auto unfenced = of_type<events::BrokerUnfenced>(events);
    ASSERT_EQ(unfenced.size(), 1u);
    EXPECT_EQ(unfenced[0].time_ms, 41'000) << "a restart: unfenced a second after it starts";
}

/// Brokers 1..n with the given racks, and one topic placed by default (no assignment).
Scenario racked(const std::vector<std::string>& racks, int32_t partitions, int32_t rf) {
    Scenario s;
    s.name = "racks";
    for (size_t b = 0; b < racks.size(); b++) s.brokers.push_back({static_cast<int32_t>(b + 1), racks[b], true, {}});
    TopicSpec t;
    t.name = "orders";
    t.partitions = partitions;
    t.replication_factor = rf;
    t.traffic.bytes_in_per_s = 6 * mib;
    s.topics.push_back(t);
    return s;
}

std::vector<std::vector<int32_t>> placement(const Scenario& s) {
    SimCluster cluster(s);
    cluster.start();
    std::vector<std::vector<int32_t>> out;
    for (const SimPartition& p : cluster.partitions()) out.push_back(p.replicas);
    return out;
}

TEST(SimCluster, DefaultPlacementPutsEachPartitionsReplicasOnDistinctRacks) {
    const std::vector<std::string> racks = {"a", "a", "b", "b", "c", "c"};
    const Scenario s = racked(racks, 12, 3);
    const auto replicas = placement(s);
    ASSERT_EQ(replicas.size(), 12u);
    std::map<int32_t, int> leaders;
    std::map<int32_t, int> hosted;
    for (const auto& list : replicas) {
        ASSERT_EQ(list.size(), 3u);
        std::set<std::string> used;
        for (int32_t id : list) {
            used.insert(racks[static_cast<size_t>(id - 1)]);
            hosted[id]++;
        }
        EXPECT_EQ(used.size(), 3u) << "one replica per rack";
        leaders[list[0]]++;
    }
    EXPECT_EQ(leaders, (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 2}, {6, 2}}));
    EXPECT_EQ(hosted, (std::map<int32_t, int>{{1, 6}, {2, 6}, {3, 6}, {4, 6}, {5, 6}, {6, 6}}));
    EXPECT_EQ(replicas, placement(s)) << "deterministic";

    // Fewer racks than brokers on one side: every RF2 partition still spans both racks.
    const std::vector<std::string> uneven = {"a", "a", "b"};
    for (const auto& list : placement(racked(uneven, 6, 2))) {
        ASSERT_EQ(list.size(), 2u);
        EXPECT_NE(uneven[static_cast<size_t>(list[0] - 1)], uneven[static_cast<size_t>(list[1] - 1)]);
    }
}

TEST(SimCluster, DefaultPlacementWithoutRacksIsThePlainRoundRobin) {
    // One rack (or none) for every broker: consecutive brokers by id, from a drawn start.
    for (const std::string rack : {"", "same"}) {
        const auto replicas = placement(racked({rack, rack, rack, rack}, 8, 3));
        ASSERT_EQ(replicas.size(), 8u);
        const int32_t first = replicas[0][0];
        for (size_t i = 0; i < replicas.size(); i++) {
            for (size_t r = 0; r < 3; r++) {
                EXPECT_EQ(replicas[i][r], (first - 1 + static_cast<int32_t>(i + r)) % 4 + 1)
                    << "partition " << i << " replica " << r << " rack '" << rack << "'";
            }
        }
    }
}

TEST(SimCluster, ASkewedTopicSplitsItsTrafficByItsDrawnWeights) {
    Scenario s = three_brokers(Flavor::automq, 1, 8);
    s.topics[0].skew.kind = TrafficSkew::Kind::zipf;
    s.topics[0].skew.s = 1.2;
    const auto shares = [](const Scenario& scenario, const std::string& topic) {
        SimCluster cluster(scenario);
        cluster.start();
        std::vector<double> out;
        for (const SimPartition& p : cluster.partitions()) {
            if (cluster.topics()[p.topic].name == topic) out.push_back(p.share);
        }
        return out;
    };
    const std::vector<double> orders = shares(s, "orders");
    const std::vector<double> expected = skew_weights(s.topics[0].skew, s.seed, "orders", 8);
    ASSERT_EQ(orders.size(), 8u);
    for (size_t i = 0; i < orders.size(); i++) EXPECT_DOUBLE_EQ(orders[i], expected[i]) << "partition " << i;
    // Another topic, defined first and skewed too, changes none of its draws.
    TopicSpec other = s.topics[0];
    other.name = "clicks";
    other.assignment.clear();
    s.topics.insert(s.topics.begin(), other);
    EXPECT_EQ(shares(s, "orders"), orders);
    EXPECT_NE(shares(s, "clicks"), orders) << "drawn by the topic's name too";
}

}  // namespace
}  // namespace ballast::sim
