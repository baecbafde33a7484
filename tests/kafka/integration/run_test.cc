// `ballast run` as a child process against the real cluster, checked the way
// an operator would: Kafka's metadata, the consumer's count, the journal
// through `ballast log show --json`. Short intervals come in with --set.
// Every test leaves the three brokers running; waits are bounded, never a
// pass/fail on speed.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "actors/admin_port.h"
#include "adapters/kafka/wire/admin_client.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/run_fixture.h"
#include "tests/kafka/integration/run_support.h"
#include "tests/support/temp_dir.h"

namespace ballast::kafka {
namespace {

using nlohmann::json;
using testing::BallastProcess;

std::string topic_name(const std::string& base) { return "ballast-run-" + base + "-" + std::to_string(::getpid()); }

/// The lines of `text` from offset `from` on that hold `mark`.
std::vector<std::string> lines_with(const std::string& text, const std::string& mark, size_t from = 0) {
    std::vector<std::string> lines;
    for (size_t at = text.find(mark, from); at != std::string::npos;) {
        const size_t start = text.rfind('\n', at) + 1;
        const size_t end = text.find('\n', at);
        lines.push_back(text.substr(start, end - start));
        if (end == std::string::npos) break;
        at = text.find(mark, end);
    }
    return lines;
}

/// Ballast's log lines about `topic`'s actions (planned, submitted, completed,
/// failed), the last `lines_max` of them: a failure message short enough to
/// survive a test runner that keeps only the end of a long output.
std::string topic_actions_in(const std::string& log, const std::string& topic, size_t lines_max = 40) {
    const std::vector<std::string> lines = lines_with(log, " " + topic + "-");
    std::string out;
    for (size_t i = lines.size() > lines_max ? lines.size() - lines_max : 0; i < lines.size(); i++) {
        out += lines[i] + "\n";
    }
    return out;
}

/// What the journal says about one action.
struct JournaledAction {
    uint64_t id = 0;
    std::vector<std::pair<std::string, int32_t>> partitions;  // two for a swap
    int64_t planned_ms = -1;
    int64_t completed_ms = -1;
    std::vector<uint32_t> attempts;  // of its ActionSubmitted events, in order
    bool failed_for_good = false;
    bool not_started = false;  // adopted after a restart and found never started
};

struct Journal {
    std::map<uint64_t, JournaledAction> actions;
    std::vector<json> unfixable;  // every ActionsPlanned.unfixable entry
    int64_t cooldown_ms = -1;     // the last ballast.partition.cooldown.ms journaled
};

Journal read_journal(const std::string& path) {
    Journal j;
    for (const json& e : testing::journal_events(path)) {
        const std::string type = e.at("type");
        if (type == "actions_planned") {
            for (const json& a : e.at("actions")) {
                JournaledAction& action = j.actions[a.at("action_id")];
                action.id = a.at("action_id");
                action.planned_ms = e.at("time_ms");
                action.partitions.push_back({a.at("topic"), a.at("partition")});
                if (a.at("kind") == "swap") action.partitions.push_back({a.at("swap_topic"), a.at("swap_partition")});
            }
            for (const json& u : e.at("unfixable")) j.unfixable.push_back(u);
        } else if (type == "action_submitted") {
            j.actions[e.at("action_id")].attempts.push_back(e.at("attempt"));
        } else if (type == "action_completed") {
            j.actions[e.at("action_id")].completed_ms = e.at("time_ms");
        } else if (type == "action_failed" && e.at("error_code") == actors::not_started_code) {
            j.actions[e.at("action_id")].not_started = true;
        } else if (type == "action_failed" && !e.at("retriable").get<bool>()) {
            j.actions[e.at("action_id")].failed_for_good = true;
        } else if (type == "config_changed") {
            for (const json& entry : e.at("entries")) {
                if (entry.at("key") == "ballast.partition.cooldown.ms") {
                    j.cooldown_ms = std::stoll(entry.at("value").get<std::string>());
                }
            }
        }
    }
    return j;
}

/// Actions that moved `topic`'s partitions, by partition, in planning order.
std::map<int32_t, std::vector<const JournaledAction*>> moves_of(const Journal& j, const std::string& topic) {
    std::map<int32_t, std::vector<const JournaledAction*>> out;
    for (const auto& [id, a] : j.actions) {
        for (const auto& [t, p] : a.partitions) {
            if (t == topic) out[p].push_back(&a);
        }
    }
    return out;
}

/// No partition is planned again before its cooldown since its last completed move.
void expect_cooldowns_kept(const Journal& j, const std::string& topic) {
    ASSERT_GT(j.cooldown_ms, 0);
    for (const auto& [partition, moves] : moves_of(j, topic)) {
        for (size_t i = 1; i < moves.size(); i++) {
            const JournaledAction& before = *moves[i - 1];
            if (before.completed_ms < 0) continue;  // ended unfinished: the engine's backoff applies instead
            EXPECT_GE(moves[i]->planned_ms, before.completed_ms + j.cooldown_ms)
                << topic << "-" << partition << ": action " << moves[i]->id << " planned "
                << moves[i]->planned_ms - before.completed_ms << " ms after action " << before.id << " completed";
        }
    }
}

// A 16-partition RF1 topic, all on broker 1, with a producer running.
TEST_F(RunOnKafka, SkewOnOneBrokerIsSpreadAcrossTheThree) {
    const std::string topic = topic_name("skew");
    create_topic(topic, std::vector<std::vector<int32_t>>(16, {1}));
    testing::CountingProducer producer(_bootstrap, topic, 16, 400, 1000);
    // The producer's 400 KB/s counts as load: with the default detect
    // threshold (1 MiB/s a broker) only the replica count goal would act,
    // and it counts every topic's replicas, so the internal topics that
    // earlier tests leave (__consumer_offsets, __transaction_state) would
    // let this one stay 8/4/4.
    BallastProcess& ballast = start_ballast(
        quick_settings({"autobalancer.controller.network.in.usage.distribution.detect.threshold=1024"}));

    auto spread = [&] {
        const auto counts = replicas_per_broker(topic, 16);
        return std::all_of(counts.begin(), counts.end(), [](const auto& c) { return c.second >= 4 && c.second <= 7; }) &&
               reassigning(topic).empty();
    };
    ASSERT_TRUE(testing::eventually(spread, 180'000)) << "broker counts never reached 4-7 each; its actions:\n"
                                                      << topic_actions_in(ballast.log(), topic);
    // Quiet once spread: two more detect intervals move none of its partitions
    // (leaders of other topics may still be evened out: the spread changed who leads).
    // The band is reached before the last move of the plan is released (7/5/4
    // in the band, then 6/5/5): wait for a detect interval without a move first.
    auto count_submits = [&](const std::string& log) {
        size_t n = 0;
        for (size_t at = log.find("submitted action"); at != std::string::npos; at = log.find("submitted action", at + 1)) {
            const size_t end = log.find('\n', at);
            n += log.substr(at, end - at).find(" " + topic + "-") != std::string::npos;
        }
        return n;
    };
    const auto settled = [&] {
        const size_t at_start = count_submits(ballast.log());
        std::this_thread::sleep_for(std::chrono::milliseconds(4'500));
        return count_submits(ballast.log()) == at_start && spread();
    };
    ASSERT_TRUE(testing::eventually(settled, 60'000)) << "its partitions kept moving once spread:\n"
                                                      << topic_actions_in(ballast.log(), topic);
    const size_t before = count_submits(ballast.log());
    std::this_thread::sleep_for(std::chrono::seconds(9));
    EXPECT_EQ(count_submits(ballast.log()), before) << "moves after the topic was spread:\n"
                                                    << topic_actions_in(ballast.log(), topic);
    EXPECT_TRUE(spread());
    // A move submitted since then is not stopped halfway: the stop comes once
    // each of the topic's actions has ended in the log.
    auto ended = [&] {
        const std::string log = ballast.log();
        for (const std::string& line : lines_with(log, "submitted action ")) {
            if (line.find(" " + topic + "-") == std::string::npos) continue;
            const size_t from = line.find("submitted action ") + 17;
            const std::string id = line.substr(from, line.find(' ', from) - from);
            if (log.find("completed action " + id + ":") == std::string::npos &&
                log.find("action " + id + " failed") == std::string::npos &&
                log.find("action " + id + " timed out") == std::string::npos &&
                log.find("action " + id + " cancelled") == std::string::npos) {
                return false;
            }
        }
        return true;
    };
    EXPECT_TRUE(testing::eventually(ended, 60'000)) << "an action of the topic never ended:\n"
                                                    << topic_actions_in(ballast.log(), topic);
    producer.stop();
    EXPECT_EQ(ballast.terminate(), 0) << "a clean stop on SIGTERM";
    EXPECT_TRUE(ballast.log().find("stopped cleanly") != std::string::npos);

    const Journal j = read_journal(journal());
    const auto moves = moves_of(j, topic);
    EXPECT_GE(moves.size(), 8u) << "at least 8 of the 16 partitions had to leave broker 1";
    std::string never_completed;
    for (const auto& [partition, list] : moves) {
        for (const JournaledAction* a : list) {
            if (a->completed_ms < 0) never_completed += " " + std::to_string(a->id);
            EXPECT_EQ(a->attempts, std::vector<uint32_t>{1}) << "action " << a->id;
        }
    }
    EXPECT_TRUE(never_completed.empty()) << "actions that never completed:" << never_completed
                                         << "; the topic's actions in the log:\n"
                                         << topic_actions_in(ballast.log(), topic);
    expect_cooldowns_kept(j, topic);
    // The journal explains itself: a replay decides the same.
    testing::CommandOutput replay;
    {
        const std::string command = std::string(std::getenv("BALLAST_BIN")) + " replay --journal " + journal();
        FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
        char buffer[4096];
        size_t got;
        while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) replay.output.append(buffer, got);
        replay.exit_code = WEXITSTATUS(::pclose(pipe));
    }
    EXPECT_EQ(replay.exit_code, 0) << replay.output;
    EXPECT_NE(replay.output.find("identical to the journal"), std::string::npos) << replay.output;
}

// Broker 3 dies (SIGKILL) under a 16-partition RF2 topic with a
// producer and a consumer; its replicas are re-created on 1 and 2; it comes
// back and takes its share again; nothing acknowledged is lost. An RF1
// partition on it cannot be fixed on Apache Kafka: reported, not moved.
TEST_F(RunOnKafka, ABrokerDiesAndReturnsAndNothingAcknowledgedIsLost) {
    const std::string topic = topic_name("nodes");
    const std::string lonely = topic_name("lonely");
    std::vector<std::vector<int32_t>> assignment;
    for (int32_t p = 0; p < 16; p++) assignment.push_back({1 + p % 3, 1 + (p + 1) % 3});
    create_topic(topic, assignment);
    create_topic(lonely, {{3}});
    const int on_three = replicas_per_broker(topic, 16)[3];
    testing::CountingConsumer consumer(_bootstrap, topic, 16);
    auto producer = std::make_unique<testing::CountingProducer>(_bootstrap, topic, 16, 200, 500);
    BallastProcess& ballast = start_ballast(quick_settings({
        "ballast.broker.failure.grace.ms=5000",
        "ballast.partition.return.block.ms=10000",
    }));
    // Ballast sees the cluster first.
    ASSERT_TRUE(ballast.wait_for_log("first metadata report", 60'000));

    testing::CommandOutput killed = testing::kafka_cluster({"kill-broker", "3"});
    ASSERT_EQ(killed.exit_code, 0) << killed.output;
    auto drained = [&] {
        const auto counts = replicas_per_broker(topic, 16);
        return counts.at(3) == 0 && all_in_sync(topic, 16, 2) && reassigning(topic).empty();
    };
    ASSERT_TRUE(testing::eventually(drained, 240'000))
        << "broker 3's replicas were not re-created on 1 and 2 with a full ISR";
    EXPECT_EQ(_rdkafka->partition(lonely, 0)->replicas, std::vector<int32_t>{3}) << "an RF1 partition stays put";

    testing::CommandOutput started = testing::kafka_cluster({"start-broker", "3"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    // Even as ReplicaCountDistributionGoal means it: every broker's replicas
    // (all topics) within 10% of the mean; and the topic's own spread,
    // TopicSpreadGoal's band of +-50%: 5-16 of its 32 replicas on each broker.
    auto even = [&] {
        const auto all = _rdkafka->replica_counts();
        if (!all.ok() || all->size() != 3) return false;
        double total = 0;
        for (const auto& [broker, count] : *all) total += count;
        const double mean = total / 3;
        for (const auto& [broker, count] : *all) {
            if (count < std::floor(mean * 0.9) || count > std::ceil(mean * 1.1)) return false;
        }
        const auto counts = replicas_per_broker(topic, 16);
        return std::all_of(counts.begin(), counts.end(), [](const auto& c) { return c.second >= 5 && c.second <= 16; }) &&
               all_in_sync(topic, 16, 2) && reassigning(topic).empty();
    };
    ASSERT_TRUE(testing::eventually(even, 240'000)) << "replicas never moved back to even counts";

    producer->stop();
    const auto acknowledged = producer->acknowledged();
    EXPECT_GT(acknowledged.size(), 1000u);
    ASSERT_TRUE(testing::eventually(
        [&] {
            const auto received = consumer.received();
            return std::includes(received.begin(), received.end(), acknowledged.begin(), acknowledged.end());
        },
        120'000))
        << "the consumer did not receive every acknowledged record";
    EXPECT_EQ(ballast.terminate(), 0);

    const Journal j = read_journal(journal());
    bool reported = false;
    for (const json& u : j.unfixable) reported |= u.at("topic") == lonely && u.at("partition") == 0;
    EXPECT_TRUE(reported) << "the RF1 partition on the dead broker is reported unfixable";
    EXPECT_TRUE(moves_of(j, lonely).empty()) << "and never moved";
    // No thrash: each replica left broker 3 once and the way back is about as long.
    size_t total = 0;
    for (const auto& [partition, list] : moves_of(j, topic)) {
        total += list.size();
        EXPECT_LE(list.size(), 3u) << topic << "-" << partition << " moved " << list.size() << " times";
    }
    EXPECT_GE(total, static_cast<size_t>(on_three));
    EXPECT_LE(total, static_cast<size_t>(2 * on_three + 8));
    expect_cooldowns_kept(j, topic);
    const std::string log = ballast.log();
    EXPECT_NE(log.find("cannot fix " + lonely + "-0"), std::string::npos) << "and says so in its log";
}

// Killed with SIGKILL in the middle of a batch of moves held
// back by a replication throttle, restarted on the same journal: it adopts
// every move in flight without submitting any again, follows those Kafka
// runs, decides again those that never reached Kafka, and finishes the plan.
TEST_F(RunOnKafka, ACrashMidBatchReconcilesAndSubmitsNothingTwice) {
    const std::string topic = topic_name("crash");
    // Six partitions of 3 MB on broker 1; moving them copies through 10 KB/s
    // (a follower takes 1 MiB of a partition at once, then the throttle holds
    // it for ~105 s: tools/kafka-cluster's quota windows): minutes per move,
    // so what runs at the kill still runs at the restart, however slow the
    // machine.
    create_topic(topic, std::vector<std::vector<int32_t>>(6, {1}),
                 {{"leader.replication.throttled.replicas", "*"}, {"follower.replication.throttled.replicas", "*"}});
    for (int32_t p = 0; p < 6; p++) ASSERT_TRUE(_rdkafka->produce(topic, p, 3000, 1000).ok());
    const std::map<int32_t, std::string> throttle{{1, "leader.replication.throttled.rate"},
                                                  {2, "follower.replication.throttled.rate"},
                                                  {3, "follower.replication.throttled.rate"}};
    for (const auto& [b, key] : throttle) ASSERT_TRUE(_rdkafka->set_broker_configs(b, {{key, "10000"}}).ok());
    ASSERT_TRUE(testing::eventually(
        [&] {
            for (const auto& [b, key] : throttle) {
                auto rate = _rdkafka->broker_config(b, key);
                if (!rate.ok() || *rate != "10000") return false;
            }
            return true;
        },
        60'000));
    const std::vector<std::string> settings = quick_settings({"ballast.action.timeout.ms=600000"});
    BallastProcess& first = start_ballast(settings);
    ASSERT_TRUE(testing::eventually([&] { return reassigning(topic).size() >= 2; }, 120'000))
        << "no batch of moves started";
    first.kill();
    const std::set<int32_t> running_at_kill = reassigning(topic);
    ASSERT_FALSE(running_at_kill.count(-1));
    ASSERT_GE(running_at_kill.size(), 2u) << "the throttle holds them";

    BallastProcess& second = start_ballast(settings);
    // Every action in flight at the kill is adopted (one line each), at
    // least those Kafka runs, and none is submitted again: the kill can land
    // between journaling an intent and Kafka taking it, and such a move is
    // found not started and decided again under a new id.
    const std::string adopted_mark = ": in flight before the restart";
    ASSERT_TRUE(second.wait_for_log(adopted_mark, 60'000, running_at_kill.size())) << second.log();
    const std::string move = "MOVE " + topic + "-";
    auto partition_in = [&](const std::string& line) {
        const size_t m = line.find(move);
        return m == std::string::npos ? -1 : std::stoi(line.substr(m + move.size()));
    };
    // "action N: in flight before the restart (MOVE topic-P ...); ..." -> N, P
    std::vector<std::string> adopted;
    std::set<int32_t> adopted_partitions;
    for (const std::string& line : lines_with(second.log(), adopted_mark, 0)) {
        const size_t from = line.find("action ") + 7;
        adopted.push_back(line.substr(from, line.find(':', from) - from));
        if (partition_in(line) >= 0) adopted_partitions.insert(partition_in(line));
    }
    {
        const std::string log = second.log();
        const size_t recovered_at = log.find("info  recovered ");
        ASSERT_NE(recovered_at, std::string::npos) << log;
        // What the journal held is made again at start, not logged as new.
        EXPECT_EQ(log.find("(during start: replayed)"), std::string::npos) << log;
        EXPECT_NE(log.find("submissions made again from the journal, none submitted again"), std::string::npos)
            << log;
        for (const std::string& id : adopted) {
            EXPECT_TRUE(lines_with(log, "submitted action " + id + " ", recovered_at).empty())
                << "action " << id << " was adopted, then submitted again";
        }
        for (const int32_t p : running_at_kill) {
            EXPECT_TRUE(adopted_partitions.count(p)) << "partition " << p << " ran at the kill and was not adopted";
        }
        // Every reassignment Kafka runs is an adopted action's or one
        // submitted since the restart: each has its intent in the journal.
        std::set<int32_t> known = adopted_partitions;
        for (const std::string& line : lines_with(log, "submitted action ", recovered_at)) {
            if (partition_in(line) >= 0) known.insert(partition_in(line));
        }
        for (const int32_t p : reassigning(topic)) {
            EXPECT_TRUE(known.count(p)) << "partition " << p << " runs, neither adopted nor submitted";
        }
    }
    for (int32_t b : {1, 2, 3}) ASSERT_TRUE(_rdkafka->set_broker_configs(b, {}).ok());
    // Each adopted action ends in its log: completed, or (never started) failed as such.
    std::vector<std::pair<std::string, std::string>> followed;
    for (const std::string& id : adopted) {
        followed.push_back({"completed action " + id + ":", "action " + id + " failed (attempt "});
    }
    auto finished = [&] {
        const std::string log = second.log();
        for (const auto& [completed, failed] : followed) {
            if (log.find(completed) == std::string::npos && log.find(failed) == std::string::npos) return false;
        }
        const auto counts = replicas_per_broker(topic, 6);
        return std::all_of(counts.begin(), counts.end(), [](const auto& c) { return c.second >= 1 && c.second <= 3; }) &&
               reassigning(topic).empty();
    };
    if (!testing::eventually(finished, 180'000)) {
        std::string state;
        const std::string log = second.log();
        for (const auto& [completed, failed] : followed) {
            if (log.find(completed) == std::string::npos && log.find(failed) == std::string::npos) {
                state += " missing '" + completed + "';";
            }
        }
        for (const auto& [broker, count] : replicas_per_broker(topic, 6)) {
            state += " broker " + std::to_string(broker) + ": " + std::to_string(count) + ";";
        }
        for (const int32_t p : reassigning(topic)) state += " reassigning " + std::to_string(p) + ";";
        FAIL() << "the plan was not finished:" << state;
    }
    EXPECT_EQ(second.terminate(), 0);

    const Journal j = read_journal(journal());
    std::set<int32_t> checked;
    for (const auto& [partition, list] : moves_of(j, topic)) {
        if (!running_at_kill.count(partition)) continue;
        // The move running at the kill (the partition's first): submitted once,
        // completed after the restart.
        ASSERT_FALSE(list.empty());
        const JournaledAction* first_move = list.front();
        EXPECT_EQ(first_move->attempts, std::vector<uint32_t>{1})
            << topic << "-" << partition << ": action " << first_move->id << " was running at the kill";
        EXPECT_GE(first_move->completed_ms, 0) << "action " << first_move->id;
        checked.insert(partition);
    }
    EXPECT_EQ(checked, running_at_kill);
    for (const auto& [id, a] : j.actions) EXPECT_FALSE(a.failed_for_good) << "action " << id;
    EXPECT_TRUE(reassigning(topic).empty()) << "Kafka has nothing left running";
}

}  // namespace
}  // namespace ballast::kafka
