// `ballast run --bootstrap-controller` on a quorum of three controllers (the suite
// `kafka_quorum`, `tools/kafka-cluster up --controllers 3 --brokers 1 --short-metadata-log`):
// the active controller SIGKILLed, a topic created under the new leader arrives in the journal
// from the log; then the quorum lost (a second controller killed), `/readyz` saying the metadata
// log is unreachable while the engine goes on, and the quorum back, the log read on from where it
// stood: every metadata-log event in Kafka's order, none twice.

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "adapters/kafka/metadata_log/observer.h"
#include "tests/kafka/integration/api_client.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/support/ballast_process.h"
#include "tests/support/temp_dir.h"

namespace ballast::kafka {
namespace {

using nlohmann::json;

class QuorumRun : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        const events::Result<std::string> controllers = testing::ask_script({"controller"});
        ASSERT_TRUE(controllers.ok()) << controllers.error().to_string();
        _controllers = *controllers;
        _rdkafka = std::make_unique<testing::RdKafka>(_bootstrap);
    }
    void TearDown() override {
        if (_ballast && _ballast->running()) _ballast->kill();
        if (HasFailure() && _ballast) std::fprintf(stderr, "---- ballast run's log:\n%s\n", _ballast->log().c_str());
        for (int32_t id : _killed) (void)testing::kafka_cluster({"start-controller", std::to_string(id)});
    }

    /// The quorum's leader now, as an observer's fetch answers it; -1 when none answers.
    int32_t active_controller() {
        events::Result<std::vector<wire::BrokerAddress>> addresses = wire::parse_bootstrap_servers(_controllers);
        if (!addresses) return -1;
        metadata_log::ObserverOptions options;
        options.controllers = *addresses;
        options.max_wait_ms = 100;
        options.call_timeout_ms = 3000;
        metadata_log::MetadataLogObserver observer(options);
        for (int attempt = 0; attempt < 50; attempt++) {
            events::Result<metadata_log::PollResult> polled = observer.poll();
            if (polled && polled->leader_id >= 0) return polled->leader_id;
        }
        return -1;
    }
    void kill_controller(int32_t id) {
        const testing::CommandOutput killed = testing::kafka_cluster({"kill-controller", std::to_string(id)});
        ASSERT_EQ(killed.exit_code, 0) << killed.output;
        _killed.insert(id);
    }
    void start_controller(int32_t id) {
        const testing::CommandOutput started = testing::kafka_cluster({"start-controller", std::to_string(id)});
        ASSERT_EQ(started.exit_code, 0) << started.output;
        _killed.erase(id);
    }
    /// Created through the broker, retried while the quorum elects (bounded).
    void create_topic(const std::string& name) {
        std::string last;
        ASSERT_TRUE(testing::eventually(
            [&] {
                const events::Status created = _rdkafka->create_topic(name, {{1}});
                if (!created) last = created.error().to_string();
                return created.ok() || last.find("already exists") != std::string::npos;
            },
            60'000))
            << name << ": " << last;
    }
    std::vector<json> log_events() const {
        std::vector<json> out;
        for (json& e : testing::journal_events(_dir / "journal")) {
            if (e.at("source") == "kafka_metadata_log") out.push_back(std::move(e));
        }
        return out;
    }
    bool journaled_created(const std::string& topic, int64_t timeout_ms = 60'000) const {
        return testing::eventually(
            [&] {
                for (const json& e : log_events()) {
                    if (e.at("type") == "topic_created" && e.value("topic", "") == topic) return true;
                }
                return false;
            },
            timeout_ms);
    }

    std::string _bootstrap;
    std::string _controllers;
    std::unique_ptr<testing::RdKafka> _rdkafka;
    testing::TempDir _dir;
    std::unique_ptr<testing::BallastProcess> _ballast;
    std::set<int32_t> _killed;
};

std::string topic_name(const std::string& stem) { return "ballast-quorum-run-" + stem + "-" + std::to_string(::getpid()); }

TEST_F(QuorumRun, TheActiveControllerKilledAndTheQuorumLostAndBackTheLogIsReadOnInOrder) {
    _ballast = std::make_unique<testing::BallastProcess>(
        std::vector<std::string>{"--set", "ballast.http.listen=127.0.0.1:0", "--set", "ballast.tick.interval.ms=500", "run",
                                 "--bootstrap-server", _bootstrap, "--bootstrap-controller", _controllers, "--journal",
                                 _dir / "journal"},
        _dir / "run.log");
    ASSERT_TRUE(_ballast->wait_for_log("metadata log read up to offset", 90'000)) << _ballast->log();
    const std::string url = testing::api_url(_ballast->log());
    ASSERT_FALSE(url.empty());
    create_topic(topic_name("before"));
    ASSERT_TRUE(journaled_created(topic_name("before")));

    // 1. The active controller killed: another is elected, and Ballast reads its log.
    const int32_t first = active_controller();
    ASSERT_GE(first, 0) << "no controller leads";
    kill_controller(first);
    create_topic(topic_name("new-leader"));
    EXPECT_TRUE(journaled_created(topic_name("new-leader"))) << "a topic created under the new leader";

    // 2. The quorum lost: two of three down. The engine goes on; /readyz names the log.
    const int32_t second = active_controller();
    ASSERT_GE(second, 0);
    ASSERT_NE(second, first);
    kill_controller(second);
    testing::ApiReply ready;
    EXPECT_TRUE(testing::eventually(
        [&] {
            ready = testing::api_call(url, "GET", "/readyz");
            return ready.text.find("metadata log unreachable") != std::string::npos;
        },
        60'000))
        << "/readyz never said the log is unreachable: " << ready.status << " " << ready.text;
    EXPECT_TRUE(_ballast->running()) << "a lost quorum stopped the run";

    // 3. The quorum back: the log is read on, and /readyz no longer names it.
    start_controller(second);
    start_controller(first);
    create_topic(topic_name("after"));
    EXPECT_TRUE(journaled_created(topic_name("after"), 90'000)) << "nothing read after the quorum came back";
    EXPECT_TRUE(testing::eventually(
        [&] {
            ready = testing::api_call(url, "GET", "/readyz");
            return ready.status == 200 && ready.text.find("metadata log unreachable") == std::string::npos;
        },
        30'000))
        << ready.text;

    // Kafka's order, nothing twice: offsets never go back, and no record's event is journaled again.
    std::set<std::tuple<int64_t, std::string, std::string, int32_t>> seen;
    int64_t previous = -1;
    for (const json& e : log_events()) {
        const int64_t offset = e.at("metadata_offset");
        EXPECT_GE(offset, previous) << e.dump();
        previous = offset;
        const auto key = std::make_tuple(offset, e.at("type").get<std::string>(), e.value("topic", ""),
                                         e.value("partition", -1));
        EXPECT_TRUE(seen.insert(key).second) << "journaled twice: " << e.dump();
    }
    EXPECT_EQ(_ballast->terminate(), 0);
}

}  // namespace
}  // namespace ballast::kafka
