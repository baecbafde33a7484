/// The Kafka client settings through the `ballast` binary: `config` and
/// `run` with `--command-config` (a file written for Kafka's tools) and the
/// kafka.* settings, where each value came from, which wins, and no password
/// in anything printed.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/support/ballast_cli.h"
#include "tests/support/temp_dir.h"

namespace ballast::tools {
namespace {

using testing::ballast;
using testing::contains;
using testing::TempDir;

constexpr const char* password = "pw-7Hq2-secret";

std::string client_file(const TempDir& dir, const std::string& extra = "") {
    const std::string path = dir / "client.properties";
    std::ofstream(path) << "bootstrap.servers=127.0.0.1:9094\n"
                           "security.protocol=SASL_SSL\n"
                           "sasl.mechanism=SCRAM-SHA-512\n"
                           "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
                           "    username=\"ballast\" password=\""
                        << password
                        << "\";\n"
                           "ssl.truststore.type=PKCS12\n"
                           "ssl.truststore.location=" << (dir / "truststore.p12") << "\n"
                           "ssl.truststore.password=" << password << "\n"
                           "client.id=from-kafka-tools\n"
                        << extra;
    return path;
}

TEST(CliClientConfig, ConfigShowsEachKafkaSettingsOriginWithSecretsHidden) {
    TempDir dir;
    const std::string file = client_file(dir);
    testing::CliOutcome run = ballast("--set kafka.sasl.mechanism=PLAIN config --command-config " + file);
    ASSERT_EQ(run.exit_code, 0) << run.out;
    EXPECT_TRUE(contains(run.out, "kafka.security.protocol=SASL_SSL    # from " + file + ":2")) << run.out;
    EXPECT_TRUE(contains(run.out, "kafka.sasl.mechanism=PLAIN    # from --set")) << run.out;
    EXPECT_TRUE(contains(run.out, "kafka.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
                                  "required username=\"ballast\" password=[hidden];    # from " + file + ":4"))
        << run.out;
    EXPECT_TRUE(contains(run.out, "kafka.ssl.truststore.password=[hidden]    # from " + file + ":8")) << run.out;
    EXPECT_TRUE(contains(run.out, "kafka.ssl.endpoint.identification.algorithm=https\n")) << run.out;
    EXPECT_TRUE(contains(run.out, "ballast: warning: " + file + ": ignoring client.id")) << run.out;
    EXPECT_FALSE(contains(run.out, password)) << run.out;

    // The same as Ballast settings alone, the secret from --set.
    testing::CliOutcome set = ballast(std::string("--set kafka.ssl.keystore.password=") + password + " config");
    ASSERT_EQ(set.exit_code, 0) << set.out;
    EXPECT_TRUE(contains(set.out, "kafka.ssl.keystore.password=[hidden]    # from --set")) << set.out;
    EXPECT_TRUE(contains(set.out, "kafka.security.protocol=PLAINTEXT\n")) << set.out;
    EXPECT_FALSE(contains(set.out, password)) << set.out;
}

TEST(CliClientConfig, MistakesStopRunAtOnceNamingFileAndLine) {
    TempDir dir;
    const std::string file = client_file(dir, "sasl.mechanisms=PLAIN\n");
    testing::CliOutcome run = ballast("run --bootstrap-server 127.0.0.1:1 --journal " + (dir / "j") +
                                      " --command-config " + file);
    EXPECT_EQ(run.exit_code, 1) << run.out;
    EXPECT_TRUE(contains(run.out, "ballast: error: invalid argument: " + file +
                                      ":10: unknown Kafka client property 'sasl.mechanisms' (did you mean "
                                      "'sasl.mechanism'?)"))
        << run.out;
    testing::CliOutcome setting = ballast("--set kafka.security.protocol=TLS run --bootstrap-server 127.0.0.1:1");
    EXPECT_EQ(setting.exit_code, 1) << setting.out;
    EXPECT_TRUE(contains(setting.out, "kafka.security.protocol (from --set): security.protocol 'TLS' is not one of"))
        << setting.out;
    // The PKCS12 trust store librdkafka gets as PEM is read before anything connects.
    testing::CliOutcome store = ballast("run --bootstrap-server 127.0.0.1:1 --journal " + (dir / "j") +
                                        " --command-config " + client_file(dir));
    EXPECT_EQ(store.exit_code, 1) << store.out;
    EXPECT_TRUE(contains(store.out, "ssl.truststore.location " + (dir / "truststore.p12") +
                                        " (PKCS12): cannot open: No such file or directory"))
        << store.out;
    EXPECT_FALSE(contains(run.out + setting.out + store.out, password));
}

// A secured run against nothing: it says how it connects (the password hidden), that the
// cluster does not answer, and stops on SIGTERM.
TEST(CliClientConfig, RunSaysHowItConnectsWithoutThePassword) {
    TempDir dir;
    const char* bin = std::getenv("BALLAST_BIN");
    ASSERT_NE(bin, nullptr);
    const std::string script =
        std::string(bin) + " --set ballast.http.listen=127.0.0.1:0" +
        " --set kafka.security.protocol=SASL_SSL --set kafka.sasl.mechanism=SCRAM-SHA-256" +
        " --set 'kafka.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required" +
        " username=ballast password=" + password + ";' run --bootstrap-server 127.0.0.1:1 --journal " + (dir / "j") +
        " & pid=$!; sleep 3; kill -TERM $pid; wait $pid; echo exit=$?";
    FILE* pipe = popen(("(" + script + ") 2>&1").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    pclose(pipe);
    EXPECT_TRUE(contains(out, "connecting with security.protocol=SASL_SSL, sasl.mechanism=SCRAM-SHA-256, "
                              "sasl.username=ballast, sasl.password=[hidden], ssl.truststore.location=(system "
                              "default)"))
        << out;
    EXPECT_TRUE(contains(out, "connecting to the Kafka cluster at 127.0.0.1:1 failed")) << out;
    EXPECT_TRUE(contains(out, "exit=0")) << out;
    EXPECT_FALSE(contains(out, password)) << out;
}

}  // namespace
}  // namespace ballast::tools
