#pragma once

/// SSL: TLS 1.2 or 1.3 with OpenSSL over a non-blocking `TcpTransport`, every
/// step (connect, handshake, each read and write) bounded by the deadline.
///
/// The broker's certificate must chain to the trust store, and (unless
/// `TlsOptions::verify_hostname` is off) name the host we connect to: a DNS
/// name in its subject alternative names (wildcards in the leftmost label
/// only, as Kafka's Java clients accept), or the IP address when we connect
/// to one. The host name also goes out as SNI (not an IP address: RFC 6066
/// forbids it). A client certificate, when configured, answers a broker that
/// asks for one (ssl.client.auth).
///
/// Errors say what failed and against what:
///   "certificate verify failed: the broker's certificate is not trusted:
///    self-signed certificate in certificate chain (SSL 127.0.0.1:9093;
///    truststore /x/ca.pem)"
///   "certificate verify failed: hostname mismatch: the broker's certificate does
///    not name 'broker-1.example' (SSL broker-1.example:9093; truststore ...)"
/// With TLS 1.3 the broker judges our certificate after our side of the
/// handshake is done, so its refusal ("tlsv13 alert certificate required")
/// arrives with the first response instead.
///
/// Writes go through a socket BIO of our own that sends with MSG_NOSIGNAL: a
/// broker that closed the connection fails the write instead of raising
/// SIGPIPE in the process.

#include <functional>
#include <memory>
#include <string>

#include "adapters/kafka/wire/security_options.h"
#include "adapters/kafka/wire/transport_tcp.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace ballast::kafka::wire {

/// OpenSSL's client context with the trust store and the key store loaded:
/// made once per client and shared by its connections (SSL_CTX is safe to
/// share once configured).
class TlsContext {
public:
    /// Errors name the property, the file and OpenSSL's reason ("ssl.truststore
    /// .location /x/t.p12 (PKCS12): mac verify failure: wrong password or
    /// damaged file"); never a password.
    static events::Result<std::shared_ptr<const TlsContext>> load(const TlsOptions& options);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    SSL_CTX* native() const { return _ctx; }
    bool verify_hostname() const { return _verify_hostname; }
    /// "truststore /x/ca.pem" or "the system's trust store", for errors.
    const std::string& trust() const { return _trust; }

private:
    TlsContext(SSL_CTX* ctx, bool verify_hostname, std::string trust);
    SSL_CTX* _ctx;
    bool _verify_hostname;
    std::string _trust;
};

/// The certificates of the trust store as PEM text, for a TLS library that
/// takes PEM only (librdkafka's ssl.ca.pem): a PEM store's file as it is, a
/// PKCS12 store's certificates converted. "" for the system's store. Errors
/// as `TlsContext::load`'s.
events::Result<std::string> truststore_pem(const TlsOptions& options);

/// Gives the context at `open`; an error fails that open.
using TlsContextSource = std::function<events::Result<std::shared_ptr<const TlsContext>>()>;

class TlsTransport final : public Transport {
public:
    /// `protocol` names the transport in errors: "SSL", or "SASL_SSL" when a
    /// SaslTransport wraps it.
    explicit TlsTransport(TlsContextSource context, std::string protocol = "SSL");
    ~TlsTransport() override;
    TlsTransport(const TlsTransport&) = delete;
    TlsTransport& operator=(const TlsTransport&) = delete;

    events::Status open(const std::string& host, int32_t port, Deadline deadline) override;
    events::Status write(std::span<const uint8_t> bytes, Deadline deadline) override;
    events::Status read(std::span<uint8_t> buffer, Deadline deadline) override;
    /// TLS sends records that carry no data (TLS 1.3 session tickets, key
    /// updates, and the close_notify alert): a readable socket alone does not
    /// say the stream broke. OpenSSL peeks (consuming records without data,
    /// never data): decrypted data nobody asked for, an alert or EOF is
    /// broken; "needs more bytes" after handshake records is idle and fine.
    bool broken() override;
    void close() override;
    bool is_open() const override { return _ssl != nullptr && _tcp.is_open(); }
    std::string describe() const override { return _tcp.describe(); }

    /// Loads the context at the first open (shared by every transport this
    /// factory makes, across threads); a failed load is tried again at the
    /// next open, so a fixed file is picked up without a restart.
    static TransportFactory factory(TlsOptions options, std::string protocol = "SSL");

private:
    /// Why an SSL call failed, when waiting for the socket does not help.
    struct Failure {
        events::Status timeout;  // failed: the deadline passed while waiting
        bool closed = false;     // the broker closed the stream
        bool reset = false;      // ... or reset it (ECONNRESET, EPIPE)
        std::string reason;      // otherwise: OpenSSL's (or the system's) reason
    };
    /// What a failure after the handshake likely means when nothing was
    /// read yet: a TLS 1.3 broker refusing our certificate resets the stream.
    std::string first_answer_hint(const Failure& failure) const;
    events::Status handshake(const std::string& host, Deadline deadline);
    /// After an SSL call returned `result`: waits for the socket when
    /// OpenSSL asks to and returns true (call again), or fills `failure`.
    bool wait_or_fail(int result, Deadline deadline, const char* doing, Failure& failure);
    void free_ssl();

    TlsContextSource _source;
    std::shared_ptr<const TlsContext> _context;
    TcpTransport _tcp;
    SSL* _ssl = nullptr;
    /// After a fatal TLS error no close_notify may be sent (OpenSSL's rule).
    bool _fatal = false;
    /// Whether any data came back on this stream.
    bool _answered = false;
};

}  // namespace ballast::kafka::wire
