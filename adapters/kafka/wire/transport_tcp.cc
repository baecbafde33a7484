#include "adapters/kafka/wire/transport_tcp.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <climits>
#include <cstring>

namespace ballast::kafka::wire {

using events::ErrorCode;
using events::make_error;
using events::Status;

namespace {

std::string errno_text(int error) { return std::strerror(error); }

}  // namespace

TcpTransport::~TcpTransport() { close(); }

std::string TcpTransport::describe() const {
    return _protocol + " " + _host + ":" + std::to_string(_port);
}

TransportFactory TcpTransport::factory(std::string protocol) {
    return [protocol] { return std::make_unique<TcpTransport>(protocol); };
}

void TcpTransport::close() {
    if (_fd >= 0) {
        ::close(_fd);
        _fd = -1;
    }
}

Status TcpTransport::wait(short events, Deadline deadline, const char* doing) {
    assert(_fd >= 0);
    for (;;) {
        const int64_t remaining_ms = deadline.remaining_ms();
        if (remaining_ms <= 0) {
            return make_error(ErrorCode::io_error, describe() + ": timed out " + doing);
        }
        pollfd entry{_fd, events, 0};
        const int timeout_ms = remaining_ms > INT_MAX ? INT_MAX : static_cast<int>(remaining_ms);
        const int ready = ::poll(&entry, 1, timeout_ms);
        if (ready > 0) return Status();
        if (ready < 0 && errno != EINTR) {
            return make_error(ErrorCode::io_error,
                              describe() + ": poll while " + doing + ": " + errno_text(errno));
        }
    }
}

Status TcpTransport::connect_to(const addrinfo& address, Deadline deadline) {
    _fd = ::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                   address.ai_protocol);
    if (_fd < 0) {
        return make_error(ErrorCode::io_error, describe() + ": socket: " + errno_text(errno));
    }
    const int one = 1;
    ::setsockopt(_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (::connect(_fd, address.ai_addr, address.ai_addrlen) == 0) return Status();
    if (errno != EINPROGRESS) {
        const int error = errno;
        close();
        return make_error(ErrorCode::io_error,
                          "connect to " + describe() + ": " + errno_text(error));
    }
    Status ready = wait(POLLOUT, deadline, "connecting");
    if (!ready.ok()) {
        close();
        return ready;
    }
    int error = 0;
    socklen_t length = sizeof(error);
    ::getsockopt(_fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) {
        close();
        return make_error(ErrorCode::io_error,
                          "connect to " + describe() + ": " + errno_text(error));
    }
    return Status();
}

Status TcpTransport::open(const std::string& host, int32_t port, Deadline deadline) {
    close();
    _host = host;
    _port = port;
    if (port <= 0 || port > 65535) {
        return make_error(ErrorCode::invalid_argument,
                          describe() + ": port " + std::to_string(port) + " is not 1-65535");
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* addresses = nullptr;
    const std::string service = std::to_string(port);
    const int resolved = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &addresses);
    if (resolved != 0) {
        return make_error(ErrorCode::io_error, "resolve " + describe() + ": " +
                                                   ::gai_strerror(resolved));
    }
    // Try each address in the resolver's order; report the last failure.
    Status status = make_error(ErrorCode::io_error, "resolve " + describe() + ": no address");
    for (addrinfo* address = addresses; address != nullptr; address = address->ai_next) {
        status = connect_to(*address, deadline);
        if (status.ok() || deadline.expired()) break;
    }
    ::freeaddrinfo(addresses);
    return status;
}

Status TcpTransport::write(std::span<const uint8_t> bytes, Deadline deadline) {
    if (_fd < 0) return make_error(ErrorCode::io_error, describe() + ": not connected");
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t sent =
            ::send(_fd, bytes.data() + written, bytes.size() - written, MSG_NOSIGNAL);
        if (sent > 0) {
            written += static_cast<size_t>(sent);
            continue;
        }
        if (sent < 0 && errno == EINTR) continue;
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            Status ready = wait(POLLOUT, deadline, "writing");
            if (!ready.ok()) return ready;
            continue;
        }
        const int error = errno;
        close();
        return make_error(ErrorCode::io_error, describe() + ": write after " +
                                                   std::to_string(written) + " of " +
                                                   std::to_string(bytes.size()) +
                                                   " bytes: " + errno_text(error));
    }
    return Status();
}

Status TcpTransport::read(std::span<uint8_t> buffer, Deadline deadline) {
    if (_fd < 0) return make_error(ErrorCode::io_error, describe() + ": not connected");
    size_t filled = 0;
    while (filled < buffer.size()) {
        const ssize_t got = ::recv(_fd, buffer.data() + filled, buffer.size() - filled, 0);
        if (got > 0) {
            filled += static_cast<size_t>(got);
            continue;
        }
        if (got == 0) {
            close();
            return make_error(ErrorCode::io_error,
                              describe() + ": connection closed by the broker after " +
                                  std::to_string(filled) + " of " +
                                  std::to_string(buffer.size()) + " bytes");
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            Status ready = wait(POLLIN, deadline, "waiting for the response");
            if (!ready.ok()) return ready;
            continue;
        }
        const int error = errno;
        close();
        return make_error(ErrorCode::io_error, describe() + ": read: " + errno_text(error));
    }
    return Status();
}

bool TcpTransport::broken() {
    if (_fd < 0) return true;
    pollfd entry{_fd, POLLIN, 0};
    const int ready = ::poll(&entry, 1, 0);
    if (ready == 0) return false;  // idle and open: the usual case
    if (ready < 0) return errno != EINTR;
    // Readable while we expect nothing: either the peer closed (recv 0), an
    // error, or bytes no request asked for. None leaves a usable stream.
    return true;
}

}  // namespace ballast::kafka::wire
