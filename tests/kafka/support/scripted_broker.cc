#include "tests/kafka/support/scripted_broker.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace ballast::testing {

namespace {

[[noreturn]] void die(const char* what) {
    std::perror(what);
    std::abort();
}

int listen_loopback(int32_t* port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) die("bind");
    socklen_t length = sizeof(address);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    *port = ntohs(address.sin_port);
    return fd;
}

/// Reads exactly `size` bytes, polling so that `stop` ends the wait; false on close or stop.
bool read_exact(int fd, uint8_t* out, size_t size, const std::atomic<bool>& stop) {
    size_t filled = 0;
    while (filled < size) {
        pollfd entry{fd, POLLIN, 0};
        const int ready = ::poll(&entry, 1, 50);
        if (stop.load()) return false;
        if (ready <= 0) continue;
        const ssize_t got = ::recv(fd, out + filled, size - filled, 0);
        if (got <= 0) return false;
        filled += static_cast<size_t>(got);
    }
    return true;
}

void write_all(int fd, const std::vector<uint8_t>& bytes) {
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t sent = ::send(fd, bytes.data() + written, bytes.size() - written, MSG_NOSIGNAL);
        if (sent <= 0) return;
        written += static_cast<size_t>(sent);
    }
}

}  // namespace

ScriptedBroker::ScriptedBroker(Handler handler) : _handler(std::move(handler)) {
    _listen_fd = listen_loopback(&_port);
    if (::listen(_listen_fd, 8) != 0) die("listen");
    _thread = std::thread([this] { serve(); });
}

ScriptedBroker::~ScriptedBroker() {
    _stop.store(true);
    _thread.join();
    ::close(_listen_fd);
}

std::vector<ScriptedBroker::Request> ScriptedBroker::requests() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _requests;
}

ScriptedBroker::Action ScriptedBroker::answer(const std::vector<uint8_t>& frame,
                                              const Request& request) {
    Action action;
    action.frame = frame;
    const auto id = static_cast<uint32_t>(request.correlation_id);
    for (int i = 0; i < 4; ++i) action.frame[i] = static_cast<uint8_t>(id >> (24 - 8 * i));
    return action;
}

void ScriptedBroker::serve() {
    while (!_stop.load()) {
        pollfd entry{_listen_fd, POLLIN, 0};
        if (::poll(&entry, 1, 50) <= 0) continue;
        const int fd = ::accept4(_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        serve_connection(fd, ++_connections);
        ::close(fd);
        ++_closed;
    }
}

void ScriptedBroker::serve_connection(int fd, int number) {
    for (;;) {
        uint8_t size_bytes[4];
        if (!read_exact(fd, size_bytes, 4, _stop)) return;
        const uint32_t size = (uint32_t{size_bytes[0]} << 24) | (uint32_t{size_bytes[1]} << 16) |
                              (uint32_t{size_bytes[2]} << 8) | uint32_t{size_bytes[3]};
        if (size < 8 || size > (1u << 20)) return;
        Request request;
        request.frame.resize(size);
        if (!read_exact(fd, request.frame.data(), size, _stop)) return;
        const std::vector<uint8_t>& f = request.frame;
        request.api_key = static_cast<int16_t>((f[0] << 8) | f[1]);
        request.api_version = static_cast<int16_t>((f[2] << 8) | f[3]);
        request.correlation_id =
            static_cast<int32_t>((uint32_t{f[4]} << 24) | (uint32_t{f[5]} << 16) |
                                 (uint32_t{f[6]} << 8) | uint32_t{f[7]});
        request.connection = number;
        {
            std::lock_guard<std::mutex> lock(_mutex);
            _requests.push_back(request);
        }
        const Action action = _handler(request);
        switch (action.kind) {
            case Action::silent: break;
            case Action::close: return;
            case Action::raw_then_close: write_all(fd, action.frame); return;
            case Action::respond:
            case Action::respond_then_close: {
                std::vector<uint8_t> bytes;
                const auto length = static_cast<uint32_t>(action.frame.size());
                for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(length >> (24 - 8 * i)));
                bytes.insert(bytes.end(), action.frame.begin(), action.frame.end());
                write_all(fd, bytes);
                if (action.kind == Action::respond_then_close) return;
                break;
            }
        }
    }
}

int32_t closed_port() {
    int32_t port = 0;
    const int fd = listen_loopback(&port);
    ::close(fd);
    return port;
}

}  // namespace ballast::testing
