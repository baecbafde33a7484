// The `kafka.*` keys (Kafka's client properties as Ballast settings: never
// journaled, secrets shown as [hidden]) and the .properties reader in the
// dialect of Kafka's own files (`--command-config`).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "events/config.h"
#include "events/properties.h"

namespace ballast::events {
namespace {

constexpr std::string_view jaas =
    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ballast\" "
    "password=\"s3cr=t\\\"x\";";

bool mentions(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(ConfigKafkaKeys, AreTextKeptAsGivenWithKafkasDefaults) {
    Config config = Config::defaults();
    EXPECT_EQ(config.get_string("kafka.security.protocol"), "PLAINTEXT");
    EXPECT_EQ(config.get_string("kafka.ssl.endpoint.identification.algorithm"), "https");
    EXPECT_EQ(config.get_string("kafka.sasl.mechanism"), "");
    ASSERT_TRUE(config.apply_override(std::string("kafka.sasl.jaas.config=") + std::string(jaas)).ok());
    EXPECT_EQ(config.get_string("kafka.sasl.jaas.config"), jaas);
    // Empty is a value: it turns hostname verification off, as in Kafka.
    ASSERT_TRUE(config.apply_override("kafka.ssl.endpoint.identification.algorithm=").ok());
    EXPECT_EQ(config.get_string("kafka.ssl.endpoint.identification.algorithm"), "");
    EXPECT_EQ(config.origin("kafka.ssl.endpoint.identification.algorithm"), "--set");
}

TEST(ConfigKafkaKeys, NeverReachTheJournal) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.apply_override("kafka.security.protocol=SASL_SSL").ok());
    ASSERT_TRUE(config.apply_override(std::string("kafka.sasl.jaas.config=") + std::string(jaas)).ok());
    ASSERT_TRUE(config.apply_override("kafka.ssl.truststore.password=trust-me").ok());
    const std::string journaled = config.to_properties_text();
    EXPECT_FALSE(mentions(journaled, "kafka.")) << journaled;
    EXPECT_FALSE(mentions(journaled, "s3cr=t"));
    for (const auto& [key, value] : config.journal_entries()) {
        EXPECT_FALSE(key.starts_with("kafka.")) << key;
    }
    EXPECT_EQ(config.entries().size(), config_keys().size());  // the process itself sees them all
    // What the journal holds loads back, and leaves the connection settings alone.
    Config reloaded = Config::defaults();
    ASSERT_TRUE(reloaded.load_properties_text(journaled, "journal").ok());
    EXPECT_EQ(reloaded.journal_entries(), config.journal_entries());
    EXPECT_EQ(reloaded.get_string("kafka.security.protocol"), "PLAINTEXT");
}

TEST(ConfigKafkaKeys, SecretsAreShownHidden) {
    Config config = Config::defaults();
    EXPECT_EQ(config.display_text("kafka.sasl.jaas.config"), "");  // nothing to hide
    for (const char* key : {"kafka.sasl.jaas.config", "kafka.ssl.truststore.password", "kafka.ssl.keystore.password",
                            "kafka.ssl.key.password"}) {
        SCOPED_TRACE(key);
        ASSERT_TRUE(config.set(key, "p4ss").ok());
        EXPECT_EQ(config.display_text(key), "[hidden]");
        EXPECT_TRUE(find_key(key)->secret);
    }
    ASSERT_TRUE(config.set("kafka.ssl.truststore.location", "/etc/ca.pem").ok());
    EXPECT_EQ(config.display_text("kafka.ssl.truststore.location"), "/etc/ca.pem");
    EXPECT_EQ(config.display_text("ballast.log.level"), "info");
}

TEST(ConfigKafkaKeys, ATypoNamesTheKafkaKey) {
    Config config = Config::defaults();
    Status status = config.apply_override("kafka.sasl.mechanisms=PLAIN");  // librdkafka's spelling
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().message,
              "unknown config key 'kafka.sasl.mechanisms' (did you mean 'kafka.sasl.mechanism'?)");
    status = config.apply_override("kafka.client.id=x");  // a Kafka property Ballast has no key for
    ASSERT_FALSE(status.ok());
    EXPECT_TRUE(mentions(status.error().message, "unknown config key 'kafka.client.id'"));
}

std::vector<PropertyLine> parse_java(std::string_view text) {
    Result<std::vector<PropertyLine>> lines = parse_properties(text, "client.properties", PropertiesDialect::java);
    EXPECT_TRUE(lines.ok()) << lines.error().message;
    return lines.ok() ? *lines : std::vector<PropertyLine>{};
}

TEST(PropertiesJava, ReadsEscapesAsJavaDoes) {
    // An escape Java does not know drops its backslash: the JAAS line's \" is a quote.
    const auto lines = parse_java(
        "# Kafka's tools read this file\n"
        "security.protocol = SASL_SSL\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
        "    username=\"a\" password=\"q\\\"w\";\n"
        "ssl.truststore.location=C:\\certs\\ca.pem\n"
        "name\\u003d=caf\\u00e9 \\uD83D\\uDE00\n");
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0].key, "security.protocol");
    EXPECT_EQ(lines[0].value, "SASL_SSL");
    EXPECT_EQ(lines[0].line, 2);
    EXPECT_EQ(lines[1].value,
              "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"q\"w\";");
    EXPECT_EQ(lines[1].line, 3);
    EXPECT_EQ(lines[2].value, "C:certsca.pem");
    EXPECT_EQ(lines[3].key, "name=");
    EXPECT_EQ(lines[3].value, "caf\xC3\xA9 \xF0\x9F\x98\x80");
}

TEST(PropertiesJava, MalformedUnicodeEscapesAreNamedWithTheLine) {
    for (std::string_view bad : {"a=\\u00\n", "a=\\uzzzz\n", "a=\\uD83D\n", "a=\\uDE00\n", "a=\\uD83Dx\n"}) {
        Result<std::vector<PropertyLine>> lines = parse_properties(bad, "c.properties", PropertiesDialect::java);
        ASSERT_FALSE(lines.ok()) << bad;
        EXPECT_TRUE(mentions(lines.error().message, "c.properties:1: malformed \\uXXXX escape")) << lines.error().message;
    }
}

TEST(ConfigKafkaKeys, ABadEscapeInASecretDoesNotShowIt) {
    Config config = Config::defaults();
    Status status = config.load_properties_text("kafka.ssl.truststore.password=hun\\qter2\n", "b.properties");
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().message,
              "b.properties:1: unknown escape '\\q' in the value of kafka.ssl.truststore.password (a secret, not "
              "shown) (write '\\\\' for a backslash)");
    // Not a secret: the text at fault is quoted.
    status = config.load_properties_text("kafka.ssl.truststore.location=C:\\ca.pem\n", "b.properties");
    ASSERT_FALSE(status.ok());
    EXPECT_TRUE(mentions(status.error().message, "unknown escape '\\c' in 'C:\\ca.pem'")) << status.error().message;
}

TEST(PropertiesBallast, KeepsRefusingUnknownEscapes) {
    Result<std::vector<PropertyLine>> lines =
        parse_properties("p=C:\\data\n", "ballast.properties", PropertiesDialect::ballast);
    ASSERT_FALSE(lines.ok());
    EXPECT_TRUE(mentions(lines.error().message, "ballast.properties:1: unknown escape '\\d'"));
    lines = parse_properties("p=\\u0041\n", "ballast.properties", PropertiesDialect::ballast);
    ASSERT_FALSE(lines.ok());
}

TEST(ClosestName, OffersATypoOnly) {
    const std::vector<std::string_view> names{"sasl.mechanism", "security.protocol", "ssl.key.password"};
    EXPECT_EQ(closest_name("sasl.mechanisms", names), "sasl.mechanism");
    EXPECT_EQ(closest_name("securty.protocol", names), "security.protocol");
    EXPECT_EQ(closest_name("group.id", names), "");
}

}  // namespace
}  // namespace ballast::events
