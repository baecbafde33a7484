// The security configuration: Kafka's names read as Kafka reads them, what
// cannot work refused by property, secrets shown only as "[hidden]", and a
// configuration that fails its check failing every connection with that error.

#include <gtest/gtest.h>

#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/security_options.h"

// A namespace of its own: the unity build joins the suite's files, and each keeps
// its own helpers.
namespace ballast::kafka::wire::security_options_test {
namespace {

TEST(SecurityOptions, KafkasNames) {
    EXPECT_EQ(*parse_security_protocol("SASL_SSL"), SecurityProtocol::sasl_ssl);
    EXPECT_EQ(*parse_security_protocol("sasl_plaintext"), SecurityProtocol::sasl_plaintext);
    EXPECT_EQ(*parse_security_protocol("Ssl"), SecurityProtocol::ssl);
    EXPECT_EQ(parse_security_protocol("TLS").error().message,
              "security.protocol 'TLS' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");

    EXPECT_EQ(*parse_sasl_mechanism("SCRAM-SHA-512"), SaslMechanism::scram_sha_512);
    EXPECT_EQ(*parse_sasl_mechanism("PLAIN"), SaslMechanism::plain);
    EXPECT_EQ(parse_sasl_mechanism("plain").error().message,
              "sasl.mechanism 'plain' is not known: Ballast speaks PLAIN, SCRAM-SHA-256 and "
              "SCRAM-SHA-512");
    EXPECT_EQ(parse_sasl_mechanism("GSSAPI").error().code, events::ErrorCode::unsupported);
    EXPECT_EQ(parse_sasl_mechanism("OAUTHBEARER").error().message,
              "sasl.mechanism 'OAUTHBEARER' is not supported: Ballast speaks PLAIN, SCRAM-SHA-256 "
              "and SCRAM-SHA-512");

    EXPECT_EQ(*parse_store_type("pkcs12"), StoreType::pkcs12);
    EXPECT_EQ(*parse_store_type("PEM"), StoreType::pem);
    EXPECT_EQ(parse_store_type("JKS").error().message,
              "store type JKS is not read: convert the store with keytool -importkeystore "
              "-srcstoretype JKS -deststoretype PKCS12, or use PEM");
}

SecurityOptions sasl_ssl() {
    SecurityOptions options;
    options.protocol = SecurityProtocol::sasl_ssl;
    options.sasl.mechanism = SaslMechanism::scram_sha_512;
    options.sasl.username = "ballast";
    options.sasl.password = Secret("s3cr3t-Pa55");
    options.tls.truststore_path = "/etc/ballast/ca.pem";
    return options;
}

TEST(SecurityOptions, WhatCannotWorkIsRefusedByProperty) {
    EXPECT_TRUE(SecurityOptions{}.check().ok());
    EXPECT_TRUE(sasl_ssl().check().ok());

    SecurityOptions no_mechanism = sasl_ssl();
    no_mechanism.sasl.mechanism.reset();
    EXPECT_EQ(no_mechanism.check().error().message,
              "security.protocol=SASL_SSL needs sasl.mechanism: PLAIN, SCRAM-SHA-256 or "
              "SCRAM-SHA-512 (Kafka's default, GSSAPI, is not supported)");
    SecurityOptions no_user = sasl_ssl();
    no_user.sasl.username.clear();
    EXPECT_EQ(no_user.check().error().message,
              "security.protocol=SASL_SSL needs a username (sasl.jaas.config username=\"...\")");
    SecurityOptions nul = sasl_ssl();
    nul.sasl.password = Secret(std::string("a\0b", 3));
    EXPECT_EQ(nul.check().error().message,
              "the SASL username or password contains a NUL character");
    SecurityOptions fraction = sasl_ssl();
    fraction.sasl.reauthenticate_at = 1.5;
    EXPECT_EQ(fraction.check().error().message,
              "the re-authentication point 1.500000 is not a fraction of the session lifetime in "
              "(0, 1]");
    SecurityOptions pem_password = sasl_ssl();
    pem_password.tls.truststore_password = Secret("x");
    EXPECT_EQ(pem_password.check().error().message,
              "ssl.truststore.password cannot be given for a PEM trust store");
    SecurityOptions p12_without_file = sasl_ssl();
    p12_without_file.tls.truststore_path.clear();
    p12_without_file.tls.truststore_type = StoreType::pkcs12;
    EXPECT_EQ(p12_without_file.check().error().message,
              "ssl.truststore.type=PKCS12 needs ssl.truststore.location");

    // Settings the protocol does not read are ignored, as Kafka's clients ignore them.
    SecurityOptions plaintext = sasl_ssl();
    plaintext.protocol = SecurityProtocol::plaintext;
    plaintext.sasl.mechanism.reset();
    EXPECT_TRUE(plaintext.check().ok());
}

TEST(SecurityOptions, RedactedShowsWhatTheProtocolReadsAndHidesSecrets) {
    EXPECT_EQ(SecurityOptions{}.redacted(), "security.protocol=PLAINTEXT");
    SecurityOptions options = sasl_ssl();
    options.tls.keystore_path = "/etc/ballast/client.p12";
    options.tls.keystore_type = StoreType::pkcs12;
    options.tls.keystore_password = Secret("st0re-Pa55");
    EXPECT_EQ(options.redacted(),
              "security.protocol=SASL_SSL, sasl.mechanism=SCRAM-SHA-512, sasl.username=ballast, "
              "sasl.password=[hidden], ssl.truststore.location=/etc/ballast/ca.pem, "
              "ssl.truststore.type=PEM, ssl.keystore.location=/etc/ballast/client.p12, "
              "ssl.keystore.type=PKCS12, ssl.keystore.password=[hidden], "
              "ssl.endpoint.identification.algorithm=https");
    options.protocol = SecurityProtocol::sasl_plaintext;
    EXPECT_EQ(options.redacted(),
              "security.protocol=SASL_PLAINTEXT, sasl.mechanism=SCRAM-SHA-512, "
              "sasl.username=ballast, sasl.password=[hidden]");
    options.protocol = SecurityProtocol::ssl;
    options.tls.truststore_path.clear();
    options.tls.verify_hostname = false;
    EXPECT_EQ(options.redacted(),
              "security.protocol=SSL, ssl.truststore.location=(system default), "
              "ssl.keystore.location=/etc/ballast/client.p12, ssl.keystore.type=PKCS12, "
              "ssl.keystore.password=[hidden], ssl.endpoint.identification.algorithm=");
    EXPECT_EQ(Secret("x").redacted(), "[hidden]");
    EXPECT_EQ(Secret().redacted(), "");
}

TEST(SecurityOptions, AConfigurationThatFailsItsCheckFailsEveryConnection) {
    ConnectionOptions options;
    options.security = sasl_ssl();
    options.security.sasl.mechanism.reset();
    BrokerConnection connection("127.0.0.1", 9094, options);
    Status opened = connection.ensure_open(Deadline::after_ms(1000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message, options.security.check().error().message);
    EXPECT_EQ(connection.open_count(), 0u);
}

}  // namespace
}  // namespace ballast::kafka::wire::security_options_test
