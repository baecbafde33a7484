#pragma once

/// The fixture of the `ballast run` integration tests (run_test.cc, and
/// http_run_test.cc, which tells the same run what to do through its HTTP
/// API; ha_run_test.cc shares its clients and settings): the cluster's clients, a journal directory, `ballast run` started
/// with settings, topics made and deleted, Kafka's view of a topic. Every
/// test leaves the three brokers running and its topics deleted.

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "adapters/kafka/wire/admin_client.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/run_support.h"
#include "tests/support/temp_dir.h"

namespace ballast::kafka {

inline constexpr int64_t call_timeout_ms = 15'000;

/// The cluster's clients every fixture that runs `ballast run` starts with: the
/// bootstrap servers from the environment, the wire client's admin, librdkafka.
class ClientsOnKafka : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        events::Result<std::vector<wire::BrokerAddress>> servers = wire::parse_bootstrap_servers(_bootstrap);
        ASSERT_TRUE(servers.ok()) << servers.error().to_string();
        wire::ClientOptions options;
        options.bootstrap_servers = *servers;
        _admin = std::make_unique<wire::AdminClient>(options);
        _rdkafka = std::make_unique<testing::RdKafka>(_bootstrap);
    }

    std::string _bootstrap;
    std::unique_ptr<wire::AdminClient> _admin;
    std::unique_ptr<testing::RdKafka> _rdkafka;
};

class RunOnKafka : public ClientsOnKafka {
protected:
    void TearDown() override {
        if (!_rdkafka) return;  // SetUp found no cluster and said so
        for (auto& p : _processes) {
            if (p->running()) p->kill();
        }
        if (HasFailure()) {
            for (size_t i = 0; i < _processes.size(); i++) {
                const std::string log = _processes[i]->log();
                std::fprintf(stderr, "---- ballast run #%zu, last lines of its log:\n%s\n", i + 1,
                             log.substr(log.size() > 60000 ? log.size() - 60000 : 0).c_str());
            }
        }
        testing::CommandOutput started = testing::kafka_cluster({"start-broker", "3"});
        EXPECT_EQ(started.exit_code, 0) << started.output;
        for (int32_t b : {1, 2, 3}) (void)_rdkafka->set_broker_configs(b, {});
        for (const std::string& topic : _topics) (void)_rdkafka->delete_topic(topic);
    }

    /// `ballast --set ... run --bootstrap-server ... --journal J [run_args]`.
    testing::BallastProcess& start_ballast(const std::vector<std::string>& settings,
                                           const std::vector<std::string>& run_args = {}) {
        std::vector<std::string> args;
        for (const std::string& s : settings) {
            args.push_back("--set");
            args.push_back(s);
        }
        args.insert(args.end(), {"--set", "ballast.http.listen=127.0.0.1:0", "run", "--bootstrap-server", _bootstrap,
                                 "--journal", journal()});
        args.insert(args.end(), run_args.begin(), run_args.end());
        _processes.push_back(std::make_unique<testing::BallastProcess>(
            args, _dir / ("run-" + std::to_string(_processes.size() + 1) + ".log")));
        testing::BallastProcess& p = *_processes.back();
        EXPECT_TRUE(p.wait_for_log("engine started on journal", 60'000)) << p.log();
        return p;
    }
    std::string journal() const { return _dir / "journal"; }

    void create_topic(const std::string& topic, const std::vector<std::vector<int32_t>>& assignment,
                      const std::vector<std::pair<std::string, std::string>>& configs = {}) {
        _topics.push_back(topic);
        ASSERT_TRUE(_rdkafka->create_topic(topic, assignment, configs).ok());
    }

    std::vector<testing::PartitionState> partitions(const std::string& topic, int32_t count) {
        std::vector<testing::PartitionState> out;
        for (int32_t p = 0; p < count; p++) {
            auto state = _rdkafka->partition(topic, p);
            out.push_back(state.ok() ? *state : testing::PartitionState{});
        }
        return out;
    }
    std::map<int32_t, int> replicas_per_broker(const std::string& topic, int32_t count) {
        std::map<int32_t, int> out{{1, 0}, {2, 0}, {3, 0}};
        for (const auto& p : partitions(topic, count)) {
            for (int32_t b : p.replicas) out[b]++;
        }
        return out;
    }
    /// The partitions of `topic` Kafka is reassigning now (-1 in the set: the call failed).
    std::set<int32_t> reassigning(const std::string& topic) {
        std::set<int32_t> out;
        auto listed = _admin->list_partition_reassignments({}, call_timeout_ms);
        if (!listed) return {-1};
        for (const auto& t : listed->topics) {
            if (t.name != topic) continue;
            for (const auto& p : t.partitions) out.insert(p.partition_index);
        }
        return out;
    }
    bool all_in_sync(const std::string& topic, int32_t count, size_t replication_factor) {
        for (const auto& p : partitions(topic, count)) {
            if (p.replicas.size() != replication_factor || p.isr.size() != replication_factor || p.leader < 0) {
                return false;
            }
        }
        return true;
    }

    testing::TempDir _dir;
    std::vector<std::string> _topics;
    std::vector<std::unique_ptr<testing::BallastProcess>> _processes;
};

/// Short intervals for a test on a 2-core machine; the defaults are minutes.
inline std::vector<std::string> quick_settings(std::vector<std::string> more = {}) {
    std::vector<std::string> s{
        "autobalancer.controller.anomaly.detect.interval.ms=4000",
        "autobalancer.controller.execution.interval.ms=1000",
        "ballast.partition.cooldown.ms=15000",
        "ballast.metrics.sample.interval.ms=2000",
        "ballast.metrics.window.ms=8000",  // four samples
        "ballast.metadata.poll.ms=500",
        // Incremental polls, a whole sweep well inside the tests' waits.
        "ballast.metadata.poll.sweep.ms=5000",
        "ballast.tick.interval.ms=500",
    };
    s.insert(s.end(), more.begin(), more.end());
    return s;
}

}  // namespace ballast::kafka
