// `ballast run` as a child process against the secured cluster, configured with the client
// properties the harness writes for Kafka's tools (`--command-config`) and kafka.* settings on
// top: it balances a skewed topic over SASL_SSL and leaves no password in anything it wrote; a
// wrong password is named with its mechanism and user and retried with a backoff (the brokers'
// own logs count the attempts); an untrusted certificate is named as such; a user without
// Alter on the cluster is told the ACL that would allow the move.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kafka/rdkafka_client.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/run_support.h"
#include "tests/support/temp_dir.h"

namespace ballast::testing {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// stdout and stderr of `ballast ARGS`, run to its end.
std::string ballast_output(const std::string& args) {
    const std::string command = std::string(std::getenv("BALLAST_BIN")) + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return "";
    std::string out;
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    pclose(pipe);
    return out;
}

std::string topic_name(const std::string& base) { return "ballast-secrun-" + base + "-" + std::to_string(::getpid()); }

/// Short intervals, as the plaintext run tests use.
const std::vector<std::string> quick_settings{
    "autobalancer.controller.anomaly.detect.interval.ms=4000",
    "autobalancer.controller.execution.interval.ms=1000",
    "ballast.partition.cooldown.ms=15000",
    "ballast.metrics.sample.interval.ms=2000",
    "ballast.metrics.window.ms=8000",
    "ballast.metadata.poll.ms=500",
    "ballast.metadata.poll.sweep.ms=5000",
    "ballast.tick.interval.ms=500",
};

class SecuredRun : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string bootstrap = bootstrap_servers_from_env();
        ASSERT_FALSE(bootstrap.empty()) << no_cluster_message();
        events::Result<SecuredCluster> found = SecuredCluster::find(bootstrap);
        ASSERT_TRUE(found.ok()) << found.error().to_string();
        _cluster.emplace(std::move(*found));
        _admin = std::make_unique<RdKafka>(bootstrap, _cluster->rdkafka_settings("admin", "PLAIN"));
    }
    void TearDown() override {
        if (HasFailure()) {
            for (auto& p : _processes) std::fprintf(stderr, "---- ballast run's log:\n%s\n", p->log().c_str());
        }
        _processes.clear();
        for (const std::string& topic : _topics) (void)_admin->delete_topic(topic);
    }

    /// `ballast --set S... run --bootstrap-server B --journal J --command-config F`.
    BallastProcess& start(const std::string& command_config, const std::vector<std::string>& settings) {
        std::vector<std::string> args;
        for (const std::string& s : settings) args.insert(args.end(), {"--set", s});
        args.insert(args.end(), {"--set", "ballast.http.listen=127.0.0.1:0"});
        args.insert(args.end(), {"run", "--bootstrap-server", _cluster->bootstrap_servers(), "--journal", journal(),
                                 "--command-config", command_config});
        _processes.push_back(
            std::make_unique<BallastProcess>(args, _dir / ("run-" + std::to_string(_processes.size() + 1) + ".log")));
        return *_processes.back();
    }
    std::string journal() const { return _dir / "journal"; }
    std::string config_of(const std::string& user, const std::string& mechanism, const std::string& store = "pem") {
        events::Result<std::string> file = _cluster->client_config(user, mechanism, store);
        EXPECT_TRUE(file.ok()) << file.error().to_string();
        return file.ok() ? *file : "";
    }
    void create_topic(const std::string& topic, int partitions) {
        _topics.push_back(topic);
        ASSERT_TRUE(_admin->create_topic(topic, std::vector<std::vector<int32_t>>(partitions, {1})).ok());
        for (int p = 0; p < partitions; ++p) ASSERT_TRUE(_admin->produce(topic, p, 20, 500).ok());
    }
    std::map<int32_t, int> replicas_per_broker(const std::string& topic, int partitions) {
        std::map<int32_t, int> out{{1, 0}, {2, 0}, {3, 0}};
        for (int p = 0; p < partitions; ++p) {
            events::Result<PartitionState> state = _admin->partition(topic, p);
            if (state.ok()) {
                for (int32_t b : state->replicas) out[b]++;
            }
        }
        return out;
    }
    /// Failed logins the three brokers logged so far.
    size_t failed_logins() const {
        size_t n = 0;
        for (const std::string& log : _cluster->broker_logs()) n += count(read_file(log), "Failed authentication with");
        return n;
    }

    std::optional<SecuredCluster> _cluster;
    std::unique_ptr<RdKafka> _admin;
    TempDir _dir;
    std::vector<std::string> _topics;
    std::vector<std::unique_ptr<BallastProcess>> _processes;
};

// SCRAM-SHA-512 (every call of a single run is the wire client's), the CA in the PKCS12
// truststore, so both passwords are at stake.
TEST_F(SecuredRun, BalancesASkewedTopicAndLeavesNoPasswordBehind) {
    const std::string topic = topic_name("skew");
    create_topic(topic, 8);
    const std::string config = config_of("ballast", "SCRAM-SHA-512", "pkcs12");
    BallastProcess& ballast = start(config, quick_settings);
    ASSERT_TRUE(ballast.wait_for_log("engine started on journal", 60'000)) << ballast.log();
    // Half of it at least leaves broker 1 (the rest of the cluster's replicas count too).
    auto spread = [&] {
        const auto counts = replicas_per_broker(topic, 8);
        return counts.at(1) <= 4 && counts.at(2) >= 2 && counts.at(3) >= 2;
    };
    ASSERT_TRUE(eventually(spread, 120'000)) << "the topic stayed on broker 1";
    // Rounds more (one every 4 s) with the topic spread, then a clean stop.
    EXPECT_TRUE(ballast.wait_for_log("completed action", 10'000)) << ballast.log();
    std::this_thread::sleep_for(std::chrono::seconds(5));
    EXPECT_EQ(ballast.terminate(), 0);
    EXPECT_TRUE(contains(ballast.log(), "stopped cleanly")) << ballast.log();
    EXPECT_TRUE(contains(ballast.log(), "sasl.username=ballast, sasl.password=[hidden]")) << ballast.log();

    // Every output and every file the run left, raw, for either password.
    std::string truststore_password;
    std::ifstream lines(config);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("ssl.truststore.password=")) truststore_password = line.substr(24);
    }
    ASSERT_FALSE(truststore_password.empty()) << "the PKCS12 client config has a truststore password";
    const std::string passwords[] = {_cluster->password("ballast"), truststore_password};
    ASSERT_TRUE(contains(read_file(config), passwords[0]));  // the search finds what is there
    std::map<std::string, std::string> outputs;
    outputs["ballast run's stdout and stderr"] = ballast.log();
    size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(journal())) {
        if (!entry.is_regular_file()) continue;
        outputs[entry.path().string()] = read_file(entry.path().string());
        ++files;
    }
    EXPECT_GE(files, 3u) << "the journal's RocksDB files";
    const std::string shown = ballast_output("log show --json --journal " + journal());
    EXPECT_TRUE(contains(shown, "\"action_completed\"")) << shown.substr(0, 2000);
    outputs["ballast log show --json"] = shown;
    const std::string exported = _dir / "export.jsonl";
    outputs["ballast log export"] = ballast_output("log export " + exported + " --journal " + journal());
    outputs["the exported file"] = read_file(exported);
    EXPECT_FALSE(outputs["the exported file"].empty());
    outputs["ballast config"] = ballast_output("config --command-config " + config);
    EXPECT_TRUE(contains(outputs["ballast config"], "password=[hidden]")) << outputs["ballast config"];
    for (const auto& [what, text] : outputs) {
        for (const std::string& password : passwords) {
            EXPECT_FALSE(contains(text, password)) << what << " holds a password";
        }
    }
}

// The brokers log every failed login: a backoff of 1, 2, 4, 8 s tries a few times in 10 s
// (each try asks the three brokers in turn), where a tight loop would try hundreds of times.
TEST_F(SecuredRun, AWrongPasswordIsNamedAndRetriedWithBackoff) {
    const size_t before = failed_logins();
    const std::string wrong = "not-" + _cluster->password("ballast");
    BallastProcess& ballast =
        start(config_of("ballast", "SCRAM-SHA-512"),
              {"kafka.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
               "username=ballast password=" + wrong + ";"});
    const auto started = std::chrono::steady_clock::now();
    ASSERT_TRUE(ballast.wait_for_log("SASL authentication failed for user 'ballast' with SCRAM-SHA-512", 30'000))
        << ballast.log();
    std::this_thread::sleep_until(started + std::chrono::seconds(10));
    const size_t attempts = failed_logins() - before;
    EXPECT_GE(attempts, 6u) << "at least two tries of the three brokers in 10 s";
    EXPECT_LE(attempts, 18u) << "more tries than a backoff makes in 10 s";
    EXPECT_TRUE(ballast.running());
    EXPECT_LE(count(ballast.log(), "retrying in"), 5u) << "one line per failure spell, not per try";
    EXPECT_EQ(ballast.terminate(), 0);
    EXPECT_TRUE(contains(ballast.log(), "stopped before the cluster answered"));
    EXPECT_FALSE(contains(ballast.log(), wrong));
}

// High availability is librdkafka's (the journal's transactional producer, its readers, the
// election's group): with PLAIN and the PKCS12 truststore (handed to librdkafka as PEM) it
// leads. The journal topic is one of the ballast-journal prefix the ACLs allow.
TEST_F(SecuredRun, HighAvailabilityLeadsOverSaslSslWithPlain) {
    const std::string journal_topic = "ballast-journal-" + topic_name("ha");
    _topics.insert(_topics.end(), {journal_topic, journal_topic + "-snapshots"});
    BallastProcess& ballast = start(config_of("ballast", "PLAIN", "pkcs12"),
                                    {"ballast.ha.enable=true", "ballast.ha.journal.topic=" + journal_topic,
                                     "ballast.ha.instance.id=secured-ha"});
    ASSERT_TRUE(ballast.wait_for_log("secured-ha: leading: the cluster's sources run and the first tick is fed",
                                     90'000))
        << ballast.log();
    EXPECT_EQ(ballast.terminate(), 0);
    EXPECT_TRUE(contains(ballast.log(), "stopped cleanly")) << ballast.log();
    EXPECT_FALSE(contains(ballast.log(), _cluster->password("ballast")));
}

// What needs librdkafka (here --ha) is refused at the start when librdkafka cannot log in with
// SCRAM to Kafka 4 (before 2.6.1), naming the version, the problem and the remedy.
TEST_F(SecuredRun, HighAvailabilityWithScramNamesLibrdkafkasLimit) {
    if (kafka::librdkafka_version() >= 0x020601ff) {
        GTEST_SKIP() << "librdkafka " << kafka::librdkafka_version() << " logs in with SCRAM: nothing to refuse";
    }
    BallastProcess& ballast = start(config_of("ballast", "SCRAM-SHA-512"), {"ballast.ha.enable=true"});
    ASSERT_TRUE(eventually([&] { return !ballast.running(); }, 30'000)) << "it keeps running";
    EXPECT_EQ(ballast.exit_code(), 1);
    const std::string log = ballast.log();
    EXPECT_TRUE(contains(log, "ballast: error: librdkafka 2.")) << log;
    EXPECT_TRUE(contains(log, "cannot log in with SCRAM-SHA-512 to this cluster")) << log;
    EXPECT_TRUE(contains(log, "Give Ballast's user PLAIN")) << log;
    EXPECT_TRUE(contains(log, "librdkafka 2.6.1 or later; librdkafka runs high availability (--ha)")) << log;
}

TEST_F(SecuredRun, AnUntrustedCertificateIsNamed) {
    BallastProcess& ballast = start(config_of("ballast", "PLAIN"),
                                    {"kafka.ssl.truststore.location=" + _cluster->untrusted_ca_file()});
    ASSERT_TRUE(ballast.wait_for_log("certificate verify failed: the broker's certificate is not trusted", 30'000))
        << ballast.log();
    EXPECT_TRUE(contains(ballast.log(), "truststore " + _cluster->untrusted_ca_file()));
    EXPECT_EQ(ballast.terminate(), 0);
}

// observer describes everything and alters nothing: Ballast plans, and each move is refused
// with the kafka-acls command that would allow it.
TEST_F(SecuredRun, AUserWithoutAlterIsToldTheAclThatAllowsTheMove) {
    const std::string topic = topic_name("observed");
    create_topic(topic, 4);
    BallastProcess& ballast = start(config_of("observer", "PLAIN"), quick_settings);
    const std::string acl = "User:observer needs ALTER on CLUSTER: kafka-acls --bootstrap-server " +
                            _cluster->bootstrap_servers() +
                            " --command-config ADMIN.properties --add --allow-principal User:observer --operation "
                            "Alter --cluster";
    ASSERT_TRUE(ballast.wait_for_log(acl, 60'000)) << ballast.log();
    EXPECT_TRUE(contains(ballast.log(), "CLUSTER_AUTHORIZATION_FAILED (31)"));
    EXPECT_EQ(ballast.terminate(), 0);
    EXPECT_EQ(replicas_per_broker(topic, 4).at(1), 4) << "observer moved a partition";
}

}  // namespace
}  // namespace ballast::testing
