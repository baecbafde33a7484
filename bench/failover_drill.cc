// The failover drill behind bench/failover.sh: three `ballast run --ha`
// instances beside a running cluster, a skewed topic with a producer and a
// consumer, and the leader SIGKILLed again and again at random moments; then
// one SIGSTOP past the session timeout and SIGCONT (the zombie), and one
// SIGTERM (a clean handover). Failover is measured from the signal to the new
// leader's "the first tick is fed" line (its engine started, the cluster's
// sources running: the first Tick on which it can decide), by the clock of
// this machine, which the instances share. Prints one JSON line.
//
// Usage: failover_drill --bootstrap HOST:PORT,... --ballast BIN --dir DIR [--kills N] [--seed S]

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/run_support.h"

namespace {

using ballast::testing::BallastProcess;

constexpr int instances = 3;
const std::string led_mark = ": leading: the cluster's sources run and the first tick is fed";

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// A log line "YYYY-MM-DDTHH:MM:SS.mmm level ..." (local time, as `ballast`
/// logs) -> epoch ms.
int64_t line_time_ms(const std::string& line) {
    std::tm tm{};
    if (line.size() < 23 || !strptime(line.substr(0, 19).c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return -1;
    tm.tm_isdst = -1;
    return static_cast<int64_t>(std::mktime(&tm)) * 1000 + std::stoi(line.substr(20, 3));
}

struct Drill {
    std::string bootstrap;
    std::string ballast;
    std::string dir;
    std::string group = "ballast-drill-" + std::to_string(::getpid());
    std::vector<std::unique_ptr<BallastProcess>> processes = std::vector<std::unique_ptr<BallastProcess>>(instances);
    int logs = 0;

    void start(int i) {
        std::vector<std::string> args{"--set", "ballast.ha.group.id=" + group,
                                      "--set", "ballast.ha.instance.id=ballast-" + std::to_string(i + 1),
                                      "--set", "autobalancer.controller.anomaly.detect.interval.ms=4000",
                                      "--set", "ballast.metrics.sample.interval.ms=2000",
                                      "--set", "ballast.metrics.window.ms=8000",
                                      "--set", "ballast.partition.cooldown.ms=15000",
                                      "--set", "ballast.http.listen=127.0.0.1:0",  // three on one machine
                                      "run", "--ha", "--bootstrap-server", bootstrap,
                                      "--journal", dir + "/journal-" + std::to_string(i + 1)};
        processes[i] = std::make_unique<BallastProcess>(args, dir + "/ballast-" + std::to_string(i + 1) + "-" +
                                                                  std::to_string(logs++) + ".log");
    }
    /// The first "first tick is fed" line after `after_ms` in any running
    /// instance but `except`: (instance, its time), or (-1, -1) by the deadline.
    std::pair<int, int64_t> led_after(int64_t after_ms, int except, int64_t timeout_ms) {
        const int64_t deadline = now_ms() + timeout_ms;
        while (now_ms() < deadline) {
            for (int i = 0; i < instances; i++) {
                if (i == except || !processes[i] || !processes[i]->running()) continue;
                const std::string log = processes[i]->log();
                for (size_t at = log.find(led_mark); at != std::string::npos; at = log.find(led_mark, at + 1)) {
                    const size_t start = log.rfind('\n', at) + 1;
                    const int64_t t = line_time_ms(log.substr(start, at - start));
                    if (t >= after_ms) return {i, t};
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return {-1, -1};
    }
    /// Who leads now (its newest leadership not followed by a step-down).
    int leader() {
        for (int i = 0; i < instances; i++) {
            if (!processes[i] || !processes[i]->running()) continue;
            const std::string log = processes[i]->log();
            const size_t led = log.rfind(led_mark);
            const size_t down = log.rfind(": stepping down: ");
            if (led != std::string::npos && (down == std::string::npos || down < led)) return i;
        }
        return -1;
    }
};

int count(const std::string& text, const std::string& mark, size_t from) {
    int n = 0;
    for (size_t at = text.find(mark, from); at != std::string::npos; at = text.find(mark, at + 1)) n++;
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    Drill drill;
    int kills = 5;
    uint64_t seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--bootstrap") drill.bootstrap = value;
        else if (flag == "--ballast") drill.ballast = value;
        else if (flag == "--dir") drill.dir = value;
        else if (flag == "--kills") kills = std::stoi(value);
        else if (flag == "--seed") seed = std::stoull(value);
        else {
            std::fprintf(stderr, "failover_drill: unknown flag %s\n", flag.c_str());
            return 2;
        }
    }
    if (drill.bootstrap.empty() || drill.ballast.empty() || drill.dir.empty()) {
        std::fprintf(stderr, "usage: failover_drill --bootstrap HOST:PORT,... --ballast BIN --dir DIR [--kills N]\n");
        return 2;
    }
    setenv("BALLAST_BIN", drill.ballast.c_str(), 1);
    std::mt19937_64 random(seed);

    const std::string topic = "ballast-drill-" + std::to_string(::getpid());
    constexpr int32_t partitions = 12;
    ballast::testing::RdKafka rdkafka(drill.bootstrap);
    if (!rdkafka.create_topic(topic, std::vector<std::vector<int32_t>>(partitions, {1})).ok()) {
        std::fprintf(stderr, "failover_drill: could not create %s\n", topic.c_str());
        return 1;
    }
    ballast::testing::CountingProducer producer(drill.bootstrap, topic, partitions, 200, 200);
    ballast::testing::CountingConsumer consumer(drill.bootstrap, topic, partitions);

    for (int i = 0; i < instances; i++) drill.start(i);
    if (drill.led_after(0, -1, 120'000).first < 0) {
        std::fprintf(stderr, "failover_drill: nobody led within 120 s\n");
        return 1;
    }
    std::vector<int64_t> failovers_ms;
    int failed = 0;
    for (int k = 0; k < kills; k++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2'000 + random() % 8'000));
        const int leader = drill.leader();
        if (leader < 0) continue;
        const int64_t killed_ms = now_ms();
        drill.processes[leader]->kill();
        const auto [next, led_ms] = drill.led_after(killed_ms, leader, 120'000);
        if (next < 0) {
            failed++;
        } else {
            failovers_ms.push_back(led_ms - killed_ms);
        }
        drill.start(leader);
    }

    // The zombie: stopped past the session timeout, resumed after another leads.
    int zombie_submissions = -1;
    if (int zombie = drill.leader(); zombie >= 0) {
        ::kill(drill.processes[zombie]->pid(), SIGSTOP);
        const int64_t stopped_ms = now_ms();
        (void)drill.led_after(stopped_ms, zombie, 120'000);
        const size_t resumed_at = drill.processes[zombie]->log().size();
        ::kill(drill.processes[zombie]->pid(), SIGCONT);
        (void)drill.processes[zombie]->wait_for_log(": stepping down: ", 60'000);
        std::this_thread::sleep_for(std::chrono::seconds(2));
        zombie_submissions = count(drill.processes[zombie]->log(), "submitted action ", resumed_at);
    }
    // A clean handover.
    int64_t handover_ms = -1;
    if (int leader = drill.leader(); leader >= 0) {
        const int64_t term_ms = now_ms();
        ::kill(drill.processes[leader]->pid(), SIGTERM);
        const auto [next, led_ms] = drill.led_after(term_ms, leader, 60'000);
        if (next >= 0) handover_ms = led_ms - term_ms;
        (void)drill.processes[leader]->terminate();
    }

    producer.stop();
    std::this_thread::sleep_for(std::chrono::seconds(5));
    const auto acked = producer.acknowledged();
    const auto received = consumer.received();
    size_t lost = 0;
    for (const auto& record : acked) lost += received.count(record) ? 0 : 1;
    for (auto& p : drill.processes) {
        if (p && p->running()) (void)p->terminate();
    }
    (void)rdkafka.delete_topic(topic);
    (void)rdkafka.delete_topic(drill.group + "-journal");
    (void)rdkafka.delete_topic(drill.group + "-journal-snapshots");

    std::sort(failovers_ms.begin(), failovers_ms.end());
    const int64_t p50 = failovers_ms.empty() ? -1 : failovers_ms[(failovers_ms.size() - 1) / 2];
    const int64_t max = failovers_ms.empty() ? -1 : failovers_ms.back();
    std::string each;
    for (const int64_t ms : failovers_ms) each += (each.empty() ? "" : ",") + std::to_string(ms);
    std::printf("{\"kills\":%d,\"failovers_ms\":[%s],\"failover_ms_p50\":%ld,\"failover_ms_max\":%ld,"
                "\"failovers_missed\":%d,\"handover_ms\":%ld,\"zombie_submissions\":%d,\"records_acknowledged\":%zu,"
                "\"records_lost\":%zu}\n",
                kills, each.c_str(), static_cast<long>(p50), static_cast<long>(max), failed,
                static_cast<long>(handover_ms), zombie_submissions, acked.size(), lost);
    return 0;
}
