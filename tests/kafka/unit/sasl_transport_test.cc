// SASL against a scripted broker that plays Kafka's side of the exchange with
// Kafka's own frames and SCRAM conversations (tests/kafka/vectors/): PLAIN,
// SCRAM-SHA-256 and SCRAM-SHA-512 succeed; a wrong password, an unsupported
// mechanism, a server that cannot sign and a listener that is not SASL fail
// with errors that name mechanism and user and never the password; sessions
// with a lifetime are renewed on the same connection before they end (KIP-368),
// against a broker that closes a connection whose session ended, on a clock the
// test moves.

#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"
#include "adapters/kafka/wire/transport_sasl.h"
#include "adapters/kafka/wire/transport_tcp.h"
#include "tests/kafka/support/kafka_vectors.h"
#include "tests/kafka/support/sasl_frames.h"
#include "tests/kafka/support/scripted_broker.h"

// A namespace of its own: the unity build joins the suite's files, and each keeps
// its own helpers.
namespace ballast::kafka::wire::sasl_transport_test {
namespace {

using namespace ballast::kafka::wire::messages;

using testing::kafka_vectors;
using testing::ScriptedBroker;
using Action = ScriptedBroker::Action;
using Request = ScriptedBroker::Request;

constexpr int16_t api_versions_key = 18;
constexpr int16_t sasl_handshake_key = 17;
constexpr int16_t sasl_authenticate_key = 36;

std::string vector_text(const std::string& name) {
    const std::vector<uint8_t>& bytes = kafka_vectors().at(name);
    return std::string(bytes.begin(), bytes.end());
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// The credentials and SCRAM conversations the vectors hold.
struct Credentials {
    SaslMechanism mechanism;
    std::string username;
    std::string password;
    std::string nonce;  // SCRAM's client nonce
    std::string vector; // "scram.sha512": the conversation Kafka's formatter wrote
};

Credentials scram_512() {
    return {SaslMechanism::scram_sha_512, "ballast,ops=admin", "correct horse battery",
            "fyko+d2lbbFgONRv9qkxdawL", "scram.sha512"};
}
Credentials scram_256() {
    return {SaslMechanism::scram_sha_256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO", "scram.rfc7677"};
}
Credentials plain() { return {SaslMechanism::plain, "ballast", "pl4in-secret", "", ""}; }

/// Kafka's side of SASL: the mechanisms it enables, what it accepts, the
/// lifetime it gives sessions, and the rule KIP-368 adds: a request other than
/// SaslHandshake on a connection whose session ended closes the connection.
/// Time is the test's clock (`now_ms`), shared with the client.
class SaslBroker {
public:
    explicit SaslBroker(Credentials accepted) : _accepted(std::move(accepted)) {}

    std::vector<std::string> mechanisms{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
    std::atomic<int64_t> lifetime_ms{0};
    /// What the broker tells the client, when not `lifetime_ms`.
    std::atomic<int64_t> announced_lifetime_ms{0};
    std::atomic<int64_t> now_ms{0};
    /// A server-final message that is not the one the password produces.
    std::atomic<bool> forge_signature{false};
    /// Refuse every authentication from now on (a password changed on the broker).
    std::atomic<bool> refuse{false};
    /// Answer SaslHandshake as a listener that is not SASL does.
    bool not_a_sasl_listener = false;

    Action handle(const Request& request) {
        std::lock_guard<std::mutex> lock(_mutex);
        Session& session = _sessions[request.connection];
        switch (request.api_key) {
            case api_versions_key:
                return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.sasl.v4"),
                                              request);
            case sasl_handshake_key: {
                if (not_a_sasl_listener) {
                    return reply(request, testing::sasl_handshake_response(1, 34, {}));
                }
                session.mechanism = testing::requested_mechanism(request);
                session.step = 0;
                const bool enabled = std::find(mechanisms.begin(), mechanisms.end(),
                                               session.mechanism) != mechanisms.end();
                return reply(request, testing::sasl_handshake_response(
                                          request.api_version, enabled ? 0 : 33, mechanisms));
            }
            case sasl_authenticate_key: return authenticate(request, session);
            default:
                if (!session.authenticated || now_ms.load() >= session.expires_ms) {
                    return Action{Action::close, {}};
                }
                return ScriptedBroker::answer(kafka_vectors().at("response.describe_cluster.v2"),
                                              request);
        }
    }

private:
    struct Session {
        std::string mechanism;
        int step = 0;
        bool authenticated = false;
        int64_t expires_ms = INT64_MAX;
    };

    Action reply(const Request& request, const std::vector<uint8_t>& frame) {
        return ScriptedBroker::answer(frame, request);
    }

    Action authenticate(const Request& request, Session& session) {
        const std::string token = testing::sasl_token(request);
        const int16_t version = request.api_version;
        const std::string failed = "Authentication failed during authentication due to invalid "
                                   "credentials with SASL mechanism " + session.mechanism;
        auto success = [&](const std::string& answer) {
            session.authenticated = true;
            const int64_t lifetime = lifetime_ms.load();
            session.expires_ms = lifetime > 0 && version >= 1 ? now_ms.load() + lifetime : INT64_MAX;
            const int64_t announced = announced_lifetime_ms.load() > 0 ? announced_lifetime_ms.load() : lifetime;
            return reply(request, testing::sasl_authenticate_response(version, 0, std::nullopt, answer,
                                                                      version >= 1 ? announced : 0));
        };
        auto failure = [&] {
            return Action{Action::respond_then_close,
                          reply(request, testing::sasl_authenticate_response(version, 58, failed, "", 0))
                              .frame};
        };
        if (refuse.load() || session.mechanism != sasl_mechanism_name(_accepted.mechanism)) {
            return failure();
        }
        if (_accepted.mechanism == SaslMechanism::plain) {
            const std::string expected = std::string(1, '\0') + _accepted.username + '\0' + _accepted.password;
            return token == expected ? success("") : failure();
        }
        if (session.step++ == 0) {
            if (token != vector_text(_accepted.vector + ".client_first")) return failure();
            return reply(request, testing::sasl_authenticate_response(
                                      version, 0, std::nullopt,
                                      vector_text(_accepted.vector + ".server_first"), 0));
        }
        if (token != vector_text(_accepted.vector + ".client_final")) return failure();
        return success(forge_signature.load() ? "v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
                                              : vector_text(_accepted.vector + ".server_final"));
    }

    Credentials _accepted;
    std::mutex _mutex;
    std::map<int, Session> _sessions;
};

/// A client of `broker` with `credentials`, its SCRAM nonce fixed and its
/// clock the broker's.
ConnectionOptions sasl_options(SaslBroker& broker, const Credentials& credentials,
                               double reauthenticate_at = 0.9) {
    SaslOptions sasl;
    sasl.mechanism = credentials.mechanism;
    sasl.username = credentials.username;
    sasl.password = Secret(credentials.password);
    sasl.reauthenticate_at = reauthenticate_at;
    const std::string nonce = credentials.nonce;
    ConnectionOptions options;
    options.transport = SaslTransport::factory(
        TcpTransport::factory("SASL_PLAINTEXT"), sasl,
        [nonce]() -> Result<std::string> { return nonce; },
        [&broker] {
            return Deadline::Clock::time_point(std::chrono::milliseconds(broker.now_ms.load()));
        });
    return options;
}

std::vector<int16_t> keys(const std::vector<Request>& requests) {
    std::vector<int16_t> out;
    for (const Request& request : requests) out.push_back(request.api_key);
    return out;
}

struct Harness {
    explicit Harness(Credentials accepted)
        : script(std::move(accepted)),
          broker([this](const Request& request) { return script.handle(request); }) {}
    std::string where() const { return "SASL_PLAINTEXT 127.0.0.1:" + std::to_string(broker.port()); }
    SaslBroker script;
    ScriptedBroker broker;
};

TEST(SaslTransport, TheScriptedBrokersFramesAreKafkas) {
    const std::vector<std::string> all{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
    for (int16_t v = 0; v <= 1; ++v) {
        EXPECT_EQ(testing::sasl_handshake_response(v, 0, all),
                  kafka_vectors().at("response.sasl_handshake.v" + std::to_string(v)));
    }
    EXPECT_EQ(testing::sasl_handshake_response(1, 33, {"PLAIN", "SCRAM-SHA-256"}),
              kafka_vectors().at("response.sasl_handshake.unsupported.v1"));
    const std::string failed = "Authentication failed during authentication due to invalid "
                               "credentials with SASL mechanism SCRAM-SHA-512";
    for (int16_t v = 0; v <= 2; ++v) {
        EXPECT_EQ(testing::sasl_authenticate_response(v, 58, failed, "", 0),
                  kafka_vectors().at("response.sasl_authenticate.failed.v" + std::to_string(v)));
    }
    EXPECT_EQ(testing::sasl_authenticate_response(
                  1, 0, std::nullopt,
                  "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096", 3600000),
              kafka_vectors().at("response.sasl_authenticate.v1"));
}

TEST(SaslTransport, PlainAfterApiVersions) {
    Harness h(plain());
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, plain()));
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    const std::vector<Request> requests = h.broker.requests();
    EXPECT_EQ(keys(requests), (std::vector<int16_t>{18, 17, 36, 60}));
    EXPECT_EQ(requests[1].api_version, 1);  // SaslHandshake v1: tokens in SaslAuthenticate
    EXPECT_EQ(requests[2].api_version, 2);  // the highest both speak
    EXPECT_EQ(testing::sasl_token(requests[2]), std::string("\0ballast\0pl4in-secret", 21));
    // Ordinary requests: the connection's header and correlation ids, in sequence.
    for (size_t i = 0; i < requests.size(); ++i) EXPECT_EQ(requests[i].correlation_id, int32_t(i + 1));
    EXPECT_EQ(connection.describe(), h.where());
}

TEST(SaslTransport, ScramSha512AsKafkasFormatterComputesIt) {
    Harness h(scram_512());
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, scram_512()));
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_TRUE(opened.ok()) << opened.error().to_string();
    const std::vector<Request> requests = h.broker.requests();
    ASSERT_EQ(keys(requests), (std::vector<int16_t>{18, 17, 36, 36}));
    EXPECT_EQ(testing::requested_mechanism(requests[1]), "SCRAM-SHA-512");
    EXPECT_EQ(testing::sasl_token(requests[3]), vector_text("scram.sha512.client_final"));
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
}

TEST(SaslTransport, ScramSha256AtEverySaslAuthenticateVersion) {
    for (int16_t cap = 0; cap <= 2; ++cap) {
        SCOPED_TRACE("SaslAuthenticate v" + std::to_string(cap));
        Harness h(scram_256());
        ConnectionOptions options = sasl_options(h.script, scram_256());
        options.version_caps = {{ApiKey::sasl_authenticate, cap}};
        BrokerConnection connection("127.0.0.1", h.broker.port(), options);
        Result<DescribeClusterResponse> cluster =
            connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
        ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
        EXPECT_EQ(h.broker.requests()[2].api_version, cap);
    }
}

TEST(SaslTransport, AWrongPasswordNamesMechanismAndUserNotThePassword) {
    Harness h(scram_512());
    Credentials wrong = scram_512();
    wrong.password = "Tr0ub4dor&3";
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, wrong));
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_FALSE(cluster.ok());
    EXPECT_EQ(cluster.error().code, events::ErrorCode::invalid_argument);
    EXPECT_EQ(cluster.error().message,
              "SASL authentication failed for user 'ballast,ops=admin' with SCRAM-SHA-512: "
              "Authentication failed during authentication due to invalid credentials with SASL "
              "mechanism SCRAM-SHA-512 (" + h.where() + ")");
    EXPECT_FALSE(contains(cluster.error().message, wrong.password));
    EXPECT_FALSE(connection.is_open());
    // The request that waited for the authentication was never sent.
    EXPECT_EQ(keys(h.broker.requests()), (std::vector<int16_t>{18, 17, 36, 36}));

    Harness p(plain());
    Credentials wrong_plain = plain();
    wrong_plain.password = "n0t-it";
    BrokerConnection plain_connection("127.0.0.1", p.broker.port(), sasl_options(p.script, wrong_plain));
    Status opened = plain_connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_TRUE(contains(opened.error().message,
                         "SASL authentication failed for user 'ballast' with PLAIN: "))
        << opened.error().message;
    EXPECT_FALSE(contains(opened.error().message, wrong_plain.password));
}

TEST(SaslTransport, AnUnsupportedMechanismListsTheBrokersMechanisms) {
    Harness h(scram_512());
    h.script.mechanisms = {"PLAIN", "SCRAM-SHA-256"};
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, scram_512()));
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message,
              "SASL mechanism SCRAM-SHA-512 is not enabled on the broker: it enables PLAIN, "
              "SCRAM-SHA-256 (" + h.where() + ")");
}

TEST(SaslTransport, AServerThatCannotSignIsRefused) {
    Harness h(scram_512());
    h.script.forge_signature = true;
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, scram_512()));
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message,
              "SASL authentication failed for user 'ballast,ops=admin' with SCRAM-SHA-512: the "
              "server's signature does not match: it does not know the password (it is not the "
              "broker it claims to be) (" + h.where() + ")");
    EXPECT_FALSE(connection.is_open());
}

TEST(SaslTransport, AListenerThatIsNotSasl) {
    Harness h(plain());
    h.script.not_a_sasl_listener = true;
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, plain()));
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().message,
              "SASL authentication failed for user 'ballast' with PLAIN: SaslHandshake refused: "
              "ILLEGAL_SASL_STATE (34) (is it a SASL listener?) (" + h.where() + ")");
}

TEST(SaslTransport, ABrokerWithoutSaslHandshakeV1) {
    // Kafka's plain ApiVersions vector lists only ApiVersions and DescribeCluster.
    ScriptedBroker broker([](const Request& request) {
        return ScriptedBroker::answer(kafka_vectors().at("response.api_versions.v4"), request);
    });
    SaslBroker unused(plain());
    BrokerConnection connection("127.0.0.1", broker.port(), sasl_options(unused, plain()));
    Status opened = connection.ensure_open(Deadline::after_ms(5000));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, events::ErrorCode::unsupported);
    EXPECT_TRUE(contains(opened.error().message,
                         "the broker does not speak SaslHandshake v1 and SaslAuthenticate"))
        << opened.error().message;
}

// KIP-368: a session with a lifetime is renewed on the same connection, between two
// requests, once `reauthenticate_at` of it has passed; the broker here closes a
// connection whose session ended at its next other request, as Kafka's does.
TEST(SaslTransport, ReauthenticatesBeforeTheSessionEnds) {
    Harness h(scram_512());
    h.script.lifetime_ms = 10000;
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, scram_512()));
    auto call = [&] {
        Result<DescribeClusterResponse> cluster =
            connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
        EXPECT_TRUE(cluster.ok()) << cluster.error().to_string();
    };
    call();
    ASSERT_EQ(h.broker.requests().size(), 5u);
    h.script.now_ms = 8999;  // 0.9 of 10 s is 9000 ms
    call();
    EXPECT_EQ(keys(h.broker.requests()), (std::vector<int16_t>{18, 17, 36, 36, 60, 60}));
    h.script.now_ms = 9000;
    call();
    // SaslHandshake and the two SCRAM rounds again, on the same stream, between requests,
    // with the connection's next correlation ids; no second ApiVersions.
    std::vector<Request> requests = h.broker.requests();
    EXPECT_EQ(keys(requests), (std::vector<int16_t>{18, 17, 36, 36, 60, 60, 17, 36, 36, 60}));
    for (size_t i = 0; i < requests.size(); ++i) {
        EXPECT_EQ(requests[i].connection, 1);
        EXPECT_EQ(requests[i].correlation_id, int32_t(i + 1));
    }
    EXPECT_EQ(connection.open_count(), 1u);

    // Long past the renewed session's end (9000 + 10000): still renewed first, which the
    // broker allows, and the call goes through on the same connection.
    h.script.now_ms = 60000;
    call();
    requests = h.broker.requests();
    EXPECT_EQ(keys(requests).back(), 60);
    EXPECT_EQ(requests.size(), 14u);
    EXPECT_EQ(requests.back().connection, 1);
    EXPECT_EQ(connection.open_count(), 1u);
}

// The control: the script does end sessions. A broker that announces twice the lifetime
// it enforces gets no renewal in time, and closes the connection at the next request, so
// it is the renewal above that keeps the connection.
TEST(SaslTransport, TheScriptedBrokerEndsSessionsThatAreNotRenewed) {
    Harness h(plain());
    h.script.lifetime_ms = 10000;
    h.script.announced_lifetime_ms = 20000;
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, plain()));
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
    h.script.now_ms = 12000;  // the broker's end passed; ours (18000) not yet
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_FALSE(cluster.ok());
    EXPECT_TRUE(contains(cluster.error().message, "connection closed by the broker"))
        << cluster.error().message;
}

TEST(SaslTransport, ARefusedReauthenticationClosesAndSaysSo) {
    Harness h(scram_512());
    h.script.lifetime_ms = 10000;
    BrokerConnection connection("127.0.0.1", h.broker.port(), sasl_options(h.script, scram_512()));
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
    h.script.refuse = true;  // the user's password changed on the broker
    h.script.now_ms = 9500;
    Result<DescribeClusterResponse> cluster =
        connection.call<DescribeCluster>({}, Deadline::after_ms(5000));
    ASSERT_FALSE(cluster.ok());
    EXPECT_EQ(cluster.error().message.rfind(
                  "SASL re-authentication failed for user 'ballast,ops=admin' with SCRAM-SHA-512: "
                  "Authentication failed during authentication",
                  0),
              0u)
        << cluster.error().message;
    EXPECT_FALSE(connection.is_open());
    EXPECT_EQ(keys(h.broker.requests()).back(), sasl_authenticate_key);
}

TEST(SaslTransport, NoLifetimeNoRenewal) {
    Harness h(scram_256());
    ConnectionOptions options = sasl_options(h.script, scram_256());
    BrokerConnection connection("127.0.0.1", h.broker.port(), options);
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
    h.script.now_ms = 1000000000;
    ASSERT_TRUE(connection.call<DescribeCluster>({}, Deadline::after_ms(5000)).ok());
    EXPECT_EQ(keys(h.broker.requests()), (std::vector<int16_t>{18, 17, 36, 36, 60, 60}));
}

// The whole path from the configuration: SecurityOptions to transport_factory to the
// client, with OpenSSL's random nonce (so PLAIN, whose exchange does not depend on it).
TEST(SaslTransport, AnAdminClientConfiguredBySecurityOptions) {
    Harness h(plain());
    ClientOptions options;
    options.bootstrap_servers = {{"127.0.0.1", h.broker.port()}};
    options.connection.security.protocol = SecurityProtocol::sasl_plaintext;
    options.connection.security.sasl.mechanism = SaslMechanism::plain;
    options.connection.security.sasl.username = "ballast";
    options.connection.security.sasl.password = Secret("pl4in-secret");
    AdminClient client(options);
    Result<DescribeClusterResponse> cluster = client.describe_cluster({}, 5000);
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    EXPECT_EQ(keys(h.broker.requests()), (std::vector<int16_t>{18, 17, 36, 60}));
    client.close();  // the scripted broker serves one connection at a time

    options.connection.security.sasl.password = Secret("wrong-one");
    AdminClient refused(options);
    Result<DescribeClusterResponse> none = refused.describe_cluster({}, 5000);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message,
              "no broker reachable: SASL authentication failed for user 'ballast' with PLAIN: "
              "Authentication failed during authentication due to invalid credentials with SASL "
              "mechanism PLAIN (" + h.where() + ")");
}

}  // namespace
}  // namespace ballast::kafka::wire::sasl_transport_test
