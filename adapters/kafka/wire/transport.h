#pragma once

/// The byte stream under a broker connection: the seam where security plugs
/// in. PLAINTEXT is `TcpTransport` (transport_tcp.h), SSL is `TlsTransport`
/// (transport_tls.h: the TLS handshake happens in `open`), and SASL_PLAINTEXT
/// and SASL_SSL are a `SaslTransport` (transport_sasl.h) around one of them.
/// `security_options.h` picks one from the configuration.
///
/// SASL is not bytes but Kafka requests, so it does not run in `open`: the
/// connection opens the stream, asks for ApiVersions (which a broker answers
/// before authentication, and which says which SaslHandshake and
/// SaslAuthenticate versions it speaks), then calls `authenticate` with
/// itself as the channel. Before each later request it asks
/// `reauthentication_due` and, when the session nears its end, calls
/// `authenticate` again on the same stream. One ApiVersions serves both the
/// authentication and the calls (librdkafka does the same; Kafka's Java
/// client sends one inside its authenticator and another after).
///
/// Every call is bounded by a deadline; nothing blocks past it.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "adapters/kafka/wire/deadline.h"
#include "adapters/kafka/wire/request_channel.h"
#include "events/result.h"

namespace ballast::kafka::wire {

class Transport {
public:
    virtual ~Transport() = default;

    /// Connects (for TLS: and completes the handshake, checking the broker's
    /// certificate). Errors name the protocol and the address.
    virtual events::Status open(const std::string& host, int32_t port, Deadline deadline) = 0;
    /// Writes every byte, or fails.
    virtual events::Status write(std::span<const uint8_t> bytes, Deadline deadline) = 0;
    /// Fills `buffer` completely, or fails (a peer that closes mid-way fails).
    virtual events::Status read(std::span<uint8_t> buffer, Deadline deadline) = 0;
    /// Without blocking: has the peer closed the stream (or sent bytes nobody
    /// asked for)? A connection asks before reusing an idle stream, because
    /// brokers close connections idle for connections.max.idle.ms.
    virtual bool broken() = 0;
    virtual void close() = 0;
    virtual bool is_open() const = 0;
    /// "PLAINTEXT 127.0.0.1:9092", "SASL_SSL 127.0.0.1:9094", for errors.
    /// Never a password.
    virtual std::string describe() const = 0;

    /// After ApiVersions on a fresh stream, and again whenever
    /// `reauthentication_due`: proves who we are with requests on `channel`.
    /// Nothing to do for PLAINTEXT and SSL (a client certificate was
    /// presented in the handshake). On failure the connection closes.
    virtual events::Status authenticate(RequestChannel& channel, Deadline deadline) {
        (void)channel;
        (void)deadline;
        return events::Status();
    }
    /// Whether the session must be renewed before the next request.
    virtual bool reauthentication_due() const { return false; }
};

/// Makes a fresh, unopened transport: a connection calls it to reconnect.
using TransportFactory = std::function<std::unique_ptr<Transport>()>;

}  // namespace ballast::kafka::wire
