#pragma once

/// SASL_PLAINTEXT and SASL_SSL: a TCP or TLS transport that authenticates
/// with Kafka's SASL requests once the connection has asked for ApiVersions
/// (transport.h says why there and not in `open`):
///
///   SaslHandshake v1 {mechanism}      -> the broker's enabled mechanisms
///   PLAIN:  SaslAuthenticate {"\0user\0password"} (RFC 4616)
///   SCRAM:  SaslAuthenticate {client-first} -> server-first
///           SaslAuthenticate {client-final} -> server-final (scram.h)
///
/// SaslAuthenticate goes at the version negotiated (0-2); from v1 its last
/// answer carries the session's lifetime. When positive, the session must be
/// renewed on the same connection before it ends (KIP-368): the broker closes
/// a connection whose session ended at its next request other than
/// SaslHandshake. `reauthentication_due` turns true after
/// `SaslOptions::reauthenticate_at` of the lifetime, counted from when our
/// authentication completed, and the connection runs the same exchange
/// again between two requests; the ApiVersions answer of the first one
/// still holds, as Kafka's clients assume.
///
/// Errors name the mechanism and the user, never the password:
///   "SASL authentication failed for user 'ballast' with SCRAM-SHA-512:
///    Authentication failed during authentication due to invalid credentials
///    with SASL mechanism SCRAM-SHA-512 (SASL_SSL 127.0.0.1:9094)"
///   "SASL mechanism SCRAM-SHA-512 is not enabled on the broker: it enables
///    PLAIN, SCRAM-SHA-256 (SASL_SSL 127.0.0.1:9094)"

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "adapters/kafka/wire/scram.h"
#include "adapters/kafka/wire/security_options.h"
#include "adapters/kafka/wire/transport.h"

namespace ballast::kafka::wire {

class SaslTransport final : public Transport {
public:
    using Clock = Deadline::Clock;
    /// Tests fix the time (re-authentication) and the SCRAM nonce.
    using Now = std::function<Clock::time_point()>;

    /// Precondition: `options` passed SecurityOptions::check (a mechanism
    /// and a username). `inner` names itself SASL_PLAINTEXT or SASL_SSL.
    SaslTransport(std::unique_ptr<Transport> inner, SaslOptions options,
                  ScramNonceSource nonce = random_scram_nonce, Now now = Clock::now);

    events::Status open(const std::string& host, int32_t port, Deadline deadline) override;
    events::Status write(std::span<const uint8_t> bytes, Deadline deadline) override {
        return _inner->write(bytes, deadline);
    }
    events::Status read(std::span<uint8_t> buffer, Deadline deadline) override {
        return _inner->read(buffer, deadline);
    }
    bool broken() override { return _inner->broken(); }
    void close() override;
    bool is_open() const override { return _inner->is_open(); }
    std::string describe() const override { return _inner->describe(); }

    events::Status authenticate(RequestChannel& channel, Deadline deadline) override;
    bool reauthentication_due() const override;

    /// When the session will be renewed; nullopt when it does not expire
    /// (or before the first authentication).
    std::optional<Clock::time_point> reauthenticate_at() const { return _reauthenticate_at; }
    /// How many times this stream authenticated (1, then 2 after the first
    /// renewal, ...).
    int authentications() const { return _authentications; }

    static TransportFactory factory(TransportFactory inner, SaslOptions options,
                                    ScramNonceSource nonce = random_scram_nonce,
                                    Now now = Clock::now);

private:
    /// The mechanism's exchange after the handshake; the last answer's
    /// session lifetime in `lifetime_ms`. Errors are the detail after "for
    /// user 'x' with MECHANISM: ".
    events::Status run_mechanism(RequestChannel& channel, int16_t version, Deadline deadline,
                                 int64_t& lifetime_ms);
    /// "SASL authentication failed for user 'u' with M: <detail> (SASL_SSL h:p)"
    std::string failure(const std::string& detail) const;
    /// A request that did not complete: "SASL authentication for user 'u'
    /// with M: " before the channel's error, which names the broker.
    events::Error interrupted(const events::Error& error) const;

    std::unique_ptr<Transport> _inner;
    SaslOptions _options;
    ScramNonceSource _nonce;
    Now _now;
    std::optional<Clock::time_point> _reauthenticate_at;
    int _authentications = 0;
};

}  // namespace ballast::kafka::wire
