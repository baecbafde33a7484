// TLS against an in-process OpenSSL server on loopback (the scripted broker with
// certificates made at test time, test_pki.h): a trusted CA connects, PEM and
// PKCS12 trust stores; an untrusted CA and a certificate for another host fail
// saying so; mutual TLS with PEM, encrypted PEM and PKCS12 key stores, and without
// one; records that carry no data leave an idle connection usable; a listener
// that is not TLS, and one that never answers, fail naming what happened.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/transport_tls.h"
#include "tests/kafka/support/kafka_vectors.h"
#include "tests/kafka/support/sasl_frames.h"
#include "tests/kafka/support/scripted_broker.h"
#include "tests/kafka/support/test_pki.h"

// A namespace of its own: the unity build joins the suite's files, and each keeps
// its own helpers.
namespace ballast::kafka::wire::tls_transport_test {
namespace {

using namespace ballast::kafka::wire::messages;

using testing::kafka_vectors;
using testing::ScriptedBroker;
using Action = ScriptedBroker::Action;
using Request = ScriptedBroker::Request;

constexpr int16_t api_versions_key = 18;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

const testing::TestPki& pki() {
    static const testing::TestPki made;
    return made;
}

/// ApiVersions and DescribeCluster from Kafka's vectors; `then` picks how the
/// DescribeCluster answer goes out.
ScriptedBroker::Handler answering(Action::Kind then = Action::respond) {
    return [then](const Request& request) {
        if (request.api_key == api_versions_key) {
            return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.v4"), request);
        }
        Action action =
            ScriptedBroker::answer(kafka_vectors().at("response.describe_cluster.v2"), request);
        action.kind = then;
        return action;
    };
}

ScriptedBroker::TlsServer server_tls(bool require_client_certificate = false) {
    ScriptedBroker::TlsServer tls;
    tls.chain_pem = pki().server_chain_pem;
    tls.key_pem = pki().server_key_pem;
    if (require_client_certificate) tls.client_ca_pem = pki().ca_pem;
    return tls;
}

ConnectionOptions ssl_options(TlsOptions tls) {
    ConnectionOptions options;
    options.security.protocol = SecurityProtocol::ssl;
    options.security.tls = std::move(tls);
    return options;
}

TlsOptions trusting(const std::string& ca) {
    TlsOptions tls;
    tls.truststore_path = ca;
    return tls;
}

Status open(const std::string& host, const ScriptedBroker& broker, ConnectionOptions options,
            int64_t timeout_ms = 5000) {
    BrokerConnection connection(host, broker.port(), std::move(options));
    return connection.ensure_open(Deadline::after_ms(timeout_ms));
}

TEST(TlsTransport, ATrustedCertificateConnectsByIpAndByName) {
    ScriptedBroker broker(answering(), server_tls());
    for (const char* host : {"127.0.0.1", "localhost"}) {
        SCOPED_TRACE(host);
        BrokerConnection connection(host, broker.port(), ssl_options(trusting(pki().ca_pem)));
        Result<DescribeClusterResponse> cluster =
            connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
        ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
        EXPECT_EQ(cluster->cluster_id, "cluster-abc");
        EXPECT_EQ(connection.describe(), "SSL " + std::string(host) + ":" + std::to_string(broker.port()));
    }
    EXPECT_EQ(broker.tls_failures(), 0);
}

TEST(TlsTransport, APkcs12TrustStore) {
    ScriptedBroker broker(answering(), server_tls());
    TlsOptions tls;
    tls.truststore_path = pki().truststore_p12;
    tls.truststore_type = StoreType::pkcs12;
    tls.truststore_password = Secret(pki().truststore_password);
    Status opened = open("127.0.0.1", broker, ssl_options(tls));
    EXPECT_TRUE(opened.ok()) << opened.error().to_string();

    tls.truststore_password = Secret("not-the-password");
    Status refused = open("127.0.0.1", broker, ssl_options(tls));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message,
              "SSL 127.0.0.1:" + std::to_string(broker.port()) + ": ssl.truststore.location " +
                  pki().truststore_p12 + " (PKCS12): mac verify failure: wrong password or damaged file");
    EXPECT_FALSE(contains(refused.error().message, "not-the-password"));
}

TEST(TlsTransport, AnUntrustedCertificateSaysSo) {
    ScriptedBroker broker(answering(), server_tls());
    Status opened = open("127.0.0.1", broker, ssl_options(trusting(pki().other_ca_pem)));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, events::ErrorCode::invalid_argument);
    EXPECT_EQ(opened.error().message,
              "certificate verify failed: the broker's certificate is not trusted: self-signed "
              "certificate in certificate chain (SSL "
              "127.0.0.1:" + std::to_string(broker.port()) + "; truststore " + pki().other_ca_pem + ")");
}

TEST(TlsTransport, ACertificateForAnotherHostSaysSo) {
    ScriptedBroker::TlsServer tls = server_tls();
    tls.chain_pem = pki().elsewhere_chain_pem;
    tls.key_pem = pki().elsewhere_key_pem;
    ScriptedBroker broker(answering(), tls);
    const std::string port = std::to_string(broker.port());
    Status by_name = open("localhost", broker, ssl_options(trusting(pki().ca_pem)));
    ASSERT_FALSE(by_name.ok());
    EXPECT_EQ(by_name.error().message,
              "certificate verify failed: hostname mismatch: the broker's certificate does not "
              "name 'localhost' (SSL localhost:" + port + "; truststore " + pki().ca_pem + ")");
    Status by_ip = open("127.0.0.1", broker, ssl_options(trusting(pki().ca_pem)));
    ASSERT_FALSE(by_ip.ok());
    EXPECT_EQ(by_ip.error().message,
              "certificate verify failed: IP address mismatch: the broker's certificate does not "
              "name 127.0.0.1 (SSL 127.0.0.1:" + port + "; truststore " + pki().ca_pem + ")");
    // ssl.endpoint.identification.algorithm= (empty): the chain alone is checked.
    TlsOptions unchecked = trusting(pki().ca_pem);
    unchecked.verify_hostname = false;
    Status opened = open("localhost", broker, ssl_options(unchecked));
    EXPECT_TRUE(opened.ok()) << opened.error().to_string();
}

TEST(TlsTransport, MutualTlsWithEachKindOfKeyStore) {
    ScriptedBroker broker(answering(), server_tls(true));
    TlsOptions pem = trusting(pki().ca_pem);
    pem.keystore_path = pki().client_pem;
    TlsOptions encrypted = trusting(pki().ca_pem);
    encrypted.keystore_path = pki().client_encrypted_pem;
    encrypted.key_password = Secret(pki().key_password);
    TlsOptions p12 = trusting(pki().ca_pem);
    p12.keystore_path = pki().client_p12;
    p12.keystore_type = StoreType::pkcs12;
    p12.keystore_password = Secret(pki().keystore_password);
    for (const TlsOptions& tls : {pem, encrypted, p12}) {
        SCOPED_TRACE(tls.keystore_path);
        BrokerConnection connection("127.0.0.1", broker.port(), ssl_options(tls));
        Result<DescribeClusterResponse> cluster =
            connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
        ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
        EXPECT_EQ(broker.client_subject(), "ballast");
    }
    EXPECT_EQ(broker.tls_failures(), 0);
}

TEST(TlsTransport, MutualTlsWithoutACertificateIsRefusedByTheBroker) {
    ScriptedBroker broker(answering(), server_tls(true));
    Status opened = open("127.0.0.1", broker, ssl_options(trusting(pki().ca_pem)));
    ASSERT_FALSE(opened.ok());
    // TLS 1.3: the broker judges our (missing) certificate after our side of the
    // handshake, so its refusal comes with the first request: its alert if we read it
    // in time ("tlsv13 alert certificate required"), or a reset stream.
    EXPECT_TRUE(contains(opened.error().message, "client certificate")) << opened.error().message;
    EXPECT_TRUE(contains(opened.error().message, "ssl.keystore.location")) << opened.error().message;
}

TEST(TlsTransport, KeyStoresThatDoNotLoadNameTheFile) {
    ScriptedBroker broker(answering(), server_tls(true));
    TlsOptions locked = trusting(pki().ca_pem);
    locked.keystore_path = pki().client_encrypted_pem;
    Status no_password = open("127.0.0.1", broker, ssl_options(locked));
    ASSERT_FALSE(no_password.ok());
    const std::string where = "SSL 127.0.0.1:" + std::to_string(broker.port()) + ": ";
    EXPECT_EQ(no_password.error().message,
              where + "ssl.keystore.location " + pki().client_encrypted_pem +
                  " (PEM): the private key is encrypted and ssl.key.password is not set");
    locked.key_password = Secret("not-it");
    Status wrong_password = open("127.0.0.1", broker, ssl_options(locked));
    ASSERT_FALSE(wrong_password.ok());
    EXPECT_TRUE(contains(wrong_password.error().message,
                         "(PEM): cannot decrypt the private key, wrong ssl.key.password? ("))
        << wrong_password.error().message;
    EXPECT_FALSE(contains(wrong_password.error().message, "not-it"));

    Status absent = open("127.0.0.1", broker, ssl_options(trusting(pki().dir + "/absent.pem")));
    ASSERT_FALSE(absent.ok());
    EXPECT_EQ(absent.error().message, where + "ssl.truststore.location " + pki().dir +
                                          "/absent.pem (PEM): cannot open: No such file or directory");
    EXPECT_EQ(broker.connections(), 0);  // nothing connects with a store that does not load
}

// TLS 1.3 brokers send session tickets (records with no data) after the handshake and
// may send more at any time: a readable socket is not a broken stream. The idle
// connection is reused; a close_notify, or data no request asked for, is not.
TEST(TlsTransport, RecordsWithoutDataKeepAnIdleConnection) {
    std::atomic<int> describe_calls{0};
    ScriptedBroker broker(
        [&](const Request& request) {
            if (request.api_key == api_versions_key) {
                return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.v4"), request);
            }
            Action action =
                ScriptedBroker::answer(kafka_vectors().at("response.describe_cluster.v2"), request);
            switch (++describe_calls) {
                case 1: action.kind = Action::respond_then_tls_ticket; break;
                case 2: action.kind = Action::respond_then_close; break;
                case 3: {  // the answer, then bytes nobody asked for
                    std::vector<uint8_t> bytes{0, 0, 0, static_cast<uint8_t>(action.frame.size())};
                    bytes.insert(bytes.end(), action.frame.begin(), action.frame.end());
                    bytes.insert(bytes.end(), {0, 0, 0, 9});
                    action = Action{Action::raw, bytes};
                    break;
                }
                default: break;
            }
            return action;
        },
        server_tls());
    BrokerConnection connection("127.0.0.1", broker.port(), ssl_options(trusting(pki().ca_pem)));
    auto call_and_settle = [&] {
        Result<DescribeClusterResponse> cluster =
            connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
        ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // what follows arrives
    };
    call_and_settle();  // then a session ticket
    call_and_settle();  // reused; then close_notify
    EXPECT_EQ(connection.open_count(), 1u);
    call_and_settle();  // reopened; then stray bytes
    EXPECT_EQ(connection.open_count(), 2u);
    call_and_settle();  // reopened
    EXPECT_EQ(connection.open_count(), 3u);
}

TEST(TlsTransport, Tls12Too) {
    ScriptedBroker::TlsServer tls = server_tls(true);
    tls.max_version = TLS1_2_VERSION;
    ScriptedBroker broker(answering(), tls);
    TlsOptions options = trusting(pki().ca_pem);
    options.keystore_path = pki().client_pem;
    Status opened = open("localhost", broker, ssl_options(options));
    EXPECT_TRUE(opened.ok()) << opened.error().to_string();
    EXPECT_EQ(broker.client_subject(), "ballast");
}

TEST(TlsTransport, AListenerThatIsNotTls) {
    ScriptedBroker plaintext(answering());
    Status opened = open("127.0.0.1", plaintext, ssl_options(trusting(pki().ca_pem)));
    ASSERT_FALSE(opened.ok());
    // It closes on our ClientHello, which it reads as a frame too large: closed, or reset
    // when our bytes were still unread.
    const std::string& message = opened.error().message;
    EXPECT_EQ(message.rfind("TLS handshake with SSL 127.0.0.1:" + std::to_string(plaintext.port()) +
                                " failed: ",
                            0),
              0u)
        << message;
    EXPECT_TRUE(contains(message, " (is it a TLS listener?)")) << message;
}

TEST(TlsTransport, AHandshakeThatNeverEndsTimesOut) {
    // Listening, never accepting: the kernel completes the TCP handshake, nobody speaks TLS.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    ASSERT_EQ(::listen(fd, 4), 0);
    socklen_t length = sizeof(address);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    const int32_t port = ntohs(address.sin_port);
    BrokerConnection connection("127.0.0.1", port, ssl_options(trusting(pki().ca_pem)));
    const auto started = std::chrono::steady_clock::now();
    Status opened = connection.ensure_open(Deadline::after_ms(300));
    const auto took = std::chrono::steady_clock::now() - started;
    ::close(fd);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message,
              "SSL 127.0.0.1:" + std::to_string(port) + ": timed out during the TLS handshake");
    EXPECT_LT(took, std::chrono::seconds(2));
}

// SASL over TLS: the whole stack from the configuration, PLAIN inside TLS.
TEST(TlsTransport, SaslSslFromTheConfiguration) {
    ScriptedBroker broker(
        [](const Request& request) {
            switch (request.api_key) {
                case api_versions_key:
                    return ScriptedBroker::answer(
                        kafka_vectors().at("response.api_versions.sasl.v4"), request);
                case 17:
                    return ScriptedBroker::answer(
                        testing::sasl_handshake_response(1, 0, {"PLAIN"}), request);
                case 36:
                    return ScriptedBroker::answer(
                        testing::sasl_authenticate_response(request.api_version, 0, std::nullopt, "", 0),
                        request);
                default:
                    return ScriptedBroker::answer(kafka_vectors().at("response.describe_cluster.v2"),
                                                  request);
            }
        },
        server_tls());
    ConnectionOptions options = ssl_options(trusting(pki().ca_pem));
    options.security.protocol = SecurityProtocol::sasl_ssl;
    options.security.sasl.mechanism = SaslMechanism::plain;
    options.security.sasl.username = "ballast";
    options.security.sasl.password = Secret("tls-wrapped");
    BrokerConnection connection("127.0.0.1", broker.port(), options);
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    EXPECT_EQ(connection.describe(), "SASL_SSL 127.0.0.1:" + std::to_string(broker.port()));
    EXPECT_EQ(testing::sasl_token(broker.requests()[2]), std::string("\0ballast\0tls-wrapped", 20));
}

}  // namespace
}  // namespace ballast::kafka::wire::tls_transport_test
