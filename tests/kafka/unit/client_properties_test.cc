// Kafka's client properties as Ballast reads them (adapters/kafka/client_properties.h):
// the JAAS line as Kafka parses it, a command-config file beside the kafka.* settings (which
// win), what is ignored, refused or unknown, every error naming where the value came from and
// none showing a password; and the same settings for librdkafka (rdkafka_security.h).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "adapters/kafka/client_properties.h"
#include "adapters/kafka/rdkafka_security.h"
#include "tests/kafka/support/test_pki.h"
#include "tests/support/temp_dir.h"

namespace ballast::kafka {
namespace {

constexpr const char* plain = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr const char* scram = "org.apache.kafka.common.security.scram.ScramLoginModule";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string jaas_error(const std::string& text) {
    events::Result<JaasLogin> login = parse_jaas_config(text);
    EXPECT_FALSE(login.ok()) << text;
    return login.ok() ? "" : login.error().message;
}

TEST(JaasConfig, ReadsTheLoginAsKafkaDoes) {
    events::Result<JaasLogin> login =
        parse_jaas_config(std::string(scram) + " required username=\"ballast\" password=\"s3cret\";");
    ASSERT_TRUE(login.ok()) << login.error().message;
    EXPECT_EQ(login->module, scram);
    EXPECT_EQ(login->flag, "required");
    EXPECT_EQ(login->username, "ballast");
    EXPECT_EQ(login->password.reveal(), "s3cret");

    // Any order, bare and single-quoted values, any case of the flag, comments, line breaks,
    // extra options, no space before ';'.
    login = parse_jaas_config(std::string(plain) +
                              "\n  REQUIRED // Kafka's own comment style\n"
                              "  password='pa ss;word' /* both kinds */ extra=1 username=alice;");
    ASSERT_TRUE(login.ok()) << login.error().message;
    EXPECT_EQ(login->flag, "required");
    EXPECT_EQ(login->username, "alice");
    EXPECT_EQ(login->password.reveal(), "pa ss;word");
}

TEST(JaasConfig, QuotedValuesTakeStreamTokenizersEscapes) {
    events::Result<JaasLogin> login = parse_jaas_config(
        std::string(plain) + R"( required username="a\"b" password="q\\w\t\101\351x" ;)");
    ASSERT_TRUE(login.ok()) << login.error().message;
    EXPECT_EQ(login->username, "a\"b");
    // \101 is 'A'; \351 is Latin-1 e-acute, sent as UTF-8 as Kafka's clients send a Java char.
    EXPECT_EQ(login->password.reveal(), "q\\w\tA\xC3\xA9x");
    // A name given twice: the later wins. Non-ASCII text is taken as it is.
    login = parse_jaas_config(std::string(plain) + " required username=x username=\xC3\xA9t\xC3\xA9 password=\"\";");
    ASSERT_TRUE(login.ok()) << login.error().message;
    EXPECT_EQ(login->username, "\xC3\xA9t\xC3\xA9");
    EXPECT_TRUE(login->password.empty());
}

TEST(JaasConfig, MistakesAreNamedWithoutTheirValues) {
    EXPECT_EQ(jaas_error(""), "sasl.jaas.config: no login module is given");
    EXPECT_EQ(jaas_error(std::string(plain) + ";"),
              "sasl.jaas.config: the login module's control flag (required) is missing after " + std::string(plain));
    EXPECT_TRUE(has(jaas_error(std::string(plain) + " mandatory username=a password=b;"),
                    "'mandatory' is not a control flag"));
    const std::string unterminated = jaas_error(std::string(plain) + " required username=a password=\"hunter2\"");
    EXPECT_TRUE(has(unterminated, "does not end with ';'")) << unterminated;
    EXPECT_FALSE(has(unterminated, "hunter2"));
    // A value with a space unquoted: the rest of it is not an option. Nothing of it is shown.
    const std::string spaced = jaas_error(std::string(plain) + " required username=a password=hunter two;");
    EXPECT_TRUE(has(spaced, "option 3 of " + std::string(plain) + " is not name=value")) << spaced;
    EXPECT_FALSE(has(spaced, "hunter"));
    EXPECT_FALSE(has(spaced, "two"));
    EXPECT_TRUE(has(jaas_error(std::string(plain) + " required password=b;"), "has no username"));
    EXPECT_TRUE(has(jaas_error(std::string(plain) + " required username=a;"), "has no password"));
    EXPECT_TRUE(has(jaas_error(std::string(plain) + " required username=a password=b; " + plain +
                               " required username=c password=d;"),
                    "holds 2 login modules"));
    EXPECT_TRUE(has(jaas_error(std::string(scram) + " required username=a password=b tokenauth=true;"),
                    "tokenauth=true (a delegation token) is not supported"));
    const std::string kerberos = jaas_error("com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;");
    EXPECT_TRUE(has(kerberos, "the login module com.sun.security.auth.module.Krb5LoginModule is not supported"));
}

TEST(JaasConfig, RedactedShowsTheUserNotThePassword) {
    EXPECT_EQ(redact_jaas_config(std::string(scram) + " required password=\"s3cret\" username=\"bal\\\"last\";"),
              std::string(scram) + " required username=\"bal\\\"last\" password=[hidden];");
    EXPECT_EQ(redact_jaas_config(std::string(scram) + " required password=\"s3cret\""), "[hidden]");
    EXPECT_EQ(redact_jaas_config(""), "");
}

/// A file in a test's own directory.
std::string write_file(const testing::TempDir& dir, const std::string& name, const std::string& text) {
    const std::string path = dir / name;
    std::ofstream(path) << text;
    return path;
}

std::string scram_login(const std::string& user, const std::string& password) {
    return std::string(scram) + " required username=\"" + user + "\" password=\"" + password + "\";";
}

TEST(ClientConfig, ACommandConfigFileAsKafkasToolsTakeIt) {
    testing::TempDir dir;
    const std::string file = write_file(dir, "client.properties",
                                        "bootstrap.servers=127.0.0.1:9094\n"
                                        "security.protocol=SASL_SSL\n"
                                        "sasl.mechanism=SCRAM-SHA-512\n"
                                        "sasl.jaas.config=" + scram_login("ballast", "s3cret") + "\n"
                                        "ssl.truststore.type=PEM\n"
                                        "ssl.truststore.location=/etc/ca.pem\n"
                                        "client.id=tools\n"
                                        "request.timeout.ms=5000\n"
                                        "client.id=again\n");
    events::Result<ClientConfig> read = read_client_config(events::Config::defaults(), file);
    ASSERT_TRUE(read.ok()) << read.error().message;
    const wire::SecurityOptions& s = read->security;
    EXPECT_EQ(s.protocol, wire::SecurityProtocol::sasl_ssl);
    EXPECT_EQ(s.sasl.mechanism, wire::SaslMechanism::scram_sha_512);
    EXPECT_EQ(s.sasl.username, "ballast");
    EXPECT_EQ(s.sasl.password.reveal(), "s3cret");
    EXPECT_EQ(s.tls.truststore_path, "/etc/ca.pem");
    EXPECT_TRUE(s.tls.verify_hostname);  // Kafka's default, https
    EXPECT_EQ(read->bootstrap_servers, "127.0.0.1:9094");
    EXPECT_EQ(read->ignored, (std::vector<std::string>{"client.id", "request.timeout.ms"}));
    const std::string warning = read->ignored_warning(file);
    EXPECT_TRUE(has(warning, file + ": ignoring client.id, request.timeout.ms")) << warning;
    // Where each came from, for `ballast config`; secrets hidden there.
    ASSERT_EQ(read->effective.size(), security_property_names().size());
    EXPECT_EQ(read->effective[0].name, "security.protocol");
    EXPECT_EQ(read->effective[0].origin, file + ":2");
    EXPECT_EQ(read->display_value(read->effective[2]),
              std::string(scram) + " required username=\"ballast\" password=[hidden];");
    EXPECT_EQ(read->effective.back().origin, "default");
}

TEST(ClientConfig, AKafkaSettingWinsOverTheFile) {
    testing::TempDir dir;
    const std::string file = write_file(dir, "client.properties",
                                        "security.protocol=SASL_SSL\n"
                                        "sasl.mechanism=SCRAM-SHA-512\n"
                                        "sasl.jaas.config=" + scram_login("ballast", "s3cret") + "\n");
    events::Config config = events::Config::defaults();
    ASSERT_TRUE(config.apply_override("kafka.sasl.mechanism=PLAIN").ok());
    ASSERT_TRUE(config.load_properties_text("kafka.ssl.endpoint.identification.algorithm=\n", "ballast.properties").ok());
    events::Result<ClientConfig> read = read_client_config(config, file);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->security.sasl.mechanism, wire::SaslMechanism::plain);
    EXPECT_EQ(read->security.sasl.username, "ballast");  // the file's, not replaced
    EXPECT_FALSE(read->security.tls.verify_hostname);
    EXPECT_EQ(read->effective[1].origin, "kafka.sasl.mechanism (from --set)");
    EXPECT_EQ(read->overridden,
              (std::vector<std::string>{"sasl.mechanism of " + file + ":2 gives way to kafka.sasl.mechanism from --set"}));
    // The kafka.* settings alone suffice.
    config = events::Config::defaults();
    ASSERT_TRUE(config.apply_override("kafka.security.protocol=sasl_plaintext").ok());
    ASSERT_TRUE(config.apply_override("kafka.sasl.mechanism=SCRAM-SHA-256").ok());
    ASSERT_TRUE(config.apply_override("kafka.sasl.jaas.config=" + scram_login("u", "p")).ok());
    read = read_client_config(config, "");
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->security.protocol, wire::SecurityProtocol::sasl_plaintext);
    EXPECT_EQ(read->security.sasl.mechanism, wire::SaslMechanism::scram_sha_256);
}

std::string file_error(const std::string& text) {
    testing::TempDir dir;
    const std::string file = write_file(dir, "c.properties", text);
    events::Result<ClientConfig> read = read_client_config(events::Config::defaults(), file);
    EXPECT_FALSE(read.ok()) << text;
    if (read.ok()) return "";
    std::string message = read.error().message;
    // Name the file as "c.properties" whatever the directory.
    if (const size_t at = message.find(file); at != std::string::npos) message.replace(at, file.size(), "c.properties");
    return message;
}

TEST(ClientConfig, MistakesNameTheFileLineAndProperty) {
    EXPECT_EQ(file_error("security.protocol=SASL_SSL\nsasl.mechanisms=PLAIN\n"),
              "c.properties:2: unknown Kafka client property 'sasl.mechanisms' (did you mean 'sasl.mechanism'?): "
              "Ballast reads an admin client's properties, as kafka-topics --command-config does");
    EXPECT_TRUE(has(file_error("group.id=x\n"), "c.properties:1: unknown Kafka client property 'group.id'"));
    EXPECT_EQ(file_error("\nsasl.login.callback.handler.class=com.example.Handler\n"),
              "c.properties:2: sasl.login.callback.handler.class is not supported: it names a Java class, which "
              "Ballast cannot run");
    EXPECT_TRUE(has(file_error("ssl.truststore.certificates=-----BEGIN CERTIFICATE-----\n"),
                    "c.properties:1: ssl.truststore.certificates is not supported: Ballast reads certificates"));
    EXPECT_EQ(file_error("security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n"),
              "c.properties:2: sasl.mechanism 'GSSAPI' is not supported: Ballast speaks PLAIN, SCRAM-SHA-256 and "
              "SCRAM-SHA-512");
    EXPECT_EQ(file_error("security.protocol=TLS\n"),
              "c.properties:1: security.protocol 'TLS' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
    EXPECT_TRUE(has(file_error("security.protocol=SSL\nssl.truststore.location=/x/t.jks\n"),
                    "c.properties:2: ssl.truststore.location is given without ssl.truststore.type: say PEM or PKCS12 "
                    "(Kafka's default, JKS, is not read"));
    EXPECT_TRUE(has(file_error("security.protocol=SSL\nssl.keystore.type=JKS\nssl.keystore.location=/k.jks\n"),
                    "c.properties:2: ssl.keystore.type: store type JKS is not read: convert the store"));
    EXPECT_TRUE(has(file_error("ssl.endpoint.identification.algorithm=ldap\n"),
                    "c.properties:1: ssl.endpoint.identification.algorithm 'ldap' is not https"));
    // A SASL protocol without the login: the check names the property to give.
    EXPECT_TRUE(has(file_error("security.protocol=SASL_SSL\n"), "security.protocol=SASL_SSL needs sasl.mechanism"));
    const std::string login = file_error("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
                                         "sasl.jaas.config=" + std::string(plain) + " required password=hunter2;\n");
    EXPECT_TRUE(has(login, "c.properties:3: sasl.jaas.config: " + std::string(plain) + " has no username")) << login;
    EXPECT_FALSE(has(login, "hunter2"));
    EXPECT_TRUE(has(file_error("a=\\uZZZZ\n"), "c.properties:1: malformed \\uXXXX escape in '\\uZZZZ'"));
    const std::string secret = file_error("ssl.truststore.password=hunter2\\u12\n");
    EXPECT_EQ(secret, "c.properties:1: malformed \\uXXXX escape in the value of ssl.truststore.password (a secret, not "
                      "shown)");
}

TEST(ClientConfig, AKafkaSettingsMistakeNamesTheSetting) {
    events::Config config = events::Config::defaults();
    ASSERT_TRUE(config.apply_override("kafka.security.protocol=SASL").ok());
    events::Result<ClientConfig> read = read_client_config(config, "");
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().message,
              "kafka.security.protocol (from --set): security.protocol 'SASL' is not one of PLAINTEXT, SSL, "
              "SASL_PLAINTEXT, SASL_SSL");
    EXPECT_FALSE(read_client_config(events::Config::defaults(), "/no/such/client.properties").ok());
}

TEST(RdKafkaSecurity, TheSameSettingsAsLibrdkafkasProperties) {
    wire::SecurityOptions s;
    events::Result<RdKafkaSettings> none = rdkafka_security_settings(s);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());  // PLAINTEXT: librdkafka's defaults

    s.protocol = wire::SecurityProtocol::sasl_ssl;
    s.sasl.mechanism = wire::SaslMechanism::scram_sha_512;
    s.sasl.username = "ballast";
    s.sasl.password = wire::Secret("s3cret");
    s.tls.truststore_path = "/etc/ca.pem";
    s.tls.keystore_path = "/etc/me.pem";
    s.tls.key_password = wire::Secret("k3y");
    s.tls.verify_hostname = false;
    events::Result<RdKafkaSettings> settings = rdkafka_security_settings(s);
    ASSERT_TRUE(settings.ok()) << settings.error().message;
    EXPECT_EQ(*settings, (RdKafkaSettings{{"security.protocol", "sasl_ssl"},
                                          {"sasl.mechanisms", "SCRAM-SHA-512"},
                                          {"sasl.username", "ballast"},
                                          {"sasl.password", "s3cret"},
                                          {"ssl.ca.location", "/etc/ca.pem"},
                                          {"ssl.certificate.location", "/etc/me.pem"},
                                          {"ssl.key.location", "/etc/me.pem"},
                                          {"ssl.key.password", "k3y"},
                                          {"ssl.endpoint.identification.algorithm", "none"}}));
    EXPECT_EQ(rdkafka_setting_text("sasl.password", "s3cret"), "sasl.password=[hidden]");
    EXPECT_EQ(rdkafka_setting_text("ssl.ca.pem", "-----BEGIN"), "ssl.ca.pem=(10 bytes of PEM)");
    EXPECT_EQ(rdkafka_setting_text("sasl.username", "ballast"), "sasl.username=ballast");
}

TEST(RdKafkaSecurity, APkcs12TrustStoreBecomesPemAndAKeyStoreStaysPkcs12) {
    testing::TestPki pki;
    wire::SecurityOptions s;
    s.protocol = wire::SecurityProtocol::ssl;
    s.tls.truststore_type = wire::StoreType::pkcs12;
    s.tls.truststore_path = pki.truststore_p12;
    s.tls.truststore_password = wire::Secret(pki.truststore_password);
    s.tls.keystore_type = wire::StoreType::pkcs12;
    s.tls.keystore_path = pki.client_p12;
    s.tls.keystore_password = wire::Secret(pki.keystore_password);
    events::Result<RdKafkaSettings> settings = rdkafka_security_settings(s);
    ASSERT_TRUE(settings.ok()) << settings.error().message;
    std::string ca_pem;
    for (const auto& [key, value] : *settings) {
        if (key == "ssl.ca.pem") ca_pem = value;
    }
    std::ifstream ca(pki.ca_pem);
    const std::string expected((std::istreambuf_iterator<char>(ca)), std::istreambuf_iterator<char>());
    EXPECT_EQ(ca_pem, expected);  // the CA the PKCS12 store holds, as PEM
    EXPECT_EQ(settings->at(2), (std::pair<std::string, std::string>{"ssl.keystore.location", pki.client_p12}));

    s.tls.truststore_password = wire::Secret("wrong-pass");
    events::Result<RdKafkaSettings> refused = rdkafka_security_settings(s);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(has(refused.error().message, "mac verify failure: wrong password or damaged file"));
    EXPECT_FALSE(has(refused.error().message, "wrong-pass"));
}

TEST(RdKafkaSecurity, ScramBeforeLibrdkafka261IsRefusedAgainstKafka4) {
    wire::SecurityOptions s;
    s.protocol = wire::SecurityProtocol::sasl_ssl;
    s.sasl.mechanism = wire::SaslMechanism::scram_sha_256;
    const int v2_0_2 = 0x020002ff;
    const std::string refusal = librdkafka_scram_refusal(v2_0_2, s, true);
    EXPECT_TRUE(has(refusal, "librdkafka 2.0.2 (the one this process loaded) cannot log in with SCRAM-SHA-256"))
        << refusal;
    EXPECT_TRUE(has(refusal, "Give Ballast's user PLAIN"));
    EXPECT_TRUE(has(refusal, "librdkafka 2.6.1 or later"));
    EXPECT_EQ(librdkafka_scram_refusal(v2_0_2, s, false), "");      // Kafka 3.x accepts it
    EXPECT_EQ(librdkafka_scram_refusal(0x020601ff, s, true), "");   // fixed
    s.sasl.mechanism = wire::SaslMechanism::plain;
    EXPECT_EQ(librdkafka_scram_refusal(v2_0_2, s, true), "");
    s.sasl.mechanism = wire::SaslMechanism::scram_sha_512;
    s.protocol = wire::SecurityProtocol::ssl;  // no SASL at all
    EXPECT_EQ(librdkafka_scram_refusal(v2_0_2, s, true), "");

    wire::messages::ApiVersionsResponse kafka4;
    kafka4.api_keys = {{0, 0, 13}, {1, 4, 18}, {18, 0, 4}};  // Kafka 4.1.1's
    EXPECT_TRUE(kafka4_or_later(kafka4));
    wire::messages::ApiVersionsResponse kafka3;
    kafka3.api_keys = {{0, 0, 11}, {1, 0, 17}};
    EXPECT_FALSE(kafka4_or_later(kafka3));
}

}  // namespace
}  // namespace ballast::kafka
