#pragma once

/// PLAINTEXT: a TCP socket, non-blocking, every wait a poll() bounded by the
/// deadline. TCP_NODELAY: requests are small and answered one at a time.

#include <string>

#include "adapters/kafka/wire/transport.h"

struct addrinfo;

namespace ballast::kafka::wire {

class TcpTransport final : public Transport {
public:
    TcpTransport() = default;
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

    static TransportFactory factory();

private:
    events::Status connect_to(const ::addrinfo& address, Deadline deadline);
    /// Waits until the socket is ready for `events` (POLLIN/POLLOUT).
    events::Status wait(short events, Deadline deadline, const char* doing);

    int _fd = -1;
    std::string _host;
    int32_t _port = 0;
};

}  // namespace ballast::kafka::wire
