#pragma once

/// PLAINTEXT: a TCP socket, non-blocking, every wait a poll() bounded by the
/// deadline. TCP_NODELAY: requests are small and answered one at a time.
/// TLS runs over one (transport_tls.h), and SASL_PLAINTEXT is one inside a
/// SaslTransport: `protocol` names which in every error.

#include <string>

#include "adapters/kafka/wire/transport.h"

struct addrinfo;

namespace ballast::kafka::wire {

class TcpTransport final : public Transport {
public:
    explicit TcpTransport(std::string protocol = "PLAINTEXT") : _protocol(std::move(protocol)) {}
    ~TcpTransport() override;
    TcpTransport(const TcpTransport&) = delete;
    TcpTransport& operator=(const TcpTransport&) = delete;

    /// `host` is an IPv4/IPv6 literal or a name. Name resolution
    /// (getaddrinfo) cannot be bounded by the deadline: use literals or
    /// names the local resolver knows.
    events::Status open(const std::string& host, int32_t port, Deadline deadline) override;
    events::Status write(std::span<const uint8_t> bytes, Deadline deadline) override;
    events::Status read(std::span<uint8_t> buffer, Deadline deadline) override;
    bool broken() override;
    void close() override;
    bool is_open() const override { return _fd >= 0; }
    std::string describe() const override;

    /// "PLAINTEXT", "SASL_PLAINTEXT", "SSL", ...
    const std::string& protocol() const { return _protocol; }
    /// The socket, for a transport layered on it (TLS); -1 when closed.
    int fd() const { return _fd; }
    /// Waits until the socket is ready for `events` (POLLIN/POLLOUT); the
    /// error says what timed out ("timed out during the TLS handshake").
    events::Status wait(short events, Deadline deadline, const char* doing);

    static TransportFactory factory(std::string protocol = "PLAINTEXT");

private:
    events::Status connect_to(const ::addrinfo& address, Deadline deadline);

    std::string _protocol;
    int _fd = -1;
    std::string _host;
    int32_t _port = 0;
};

}  // namespace ballast::kafka::wire
