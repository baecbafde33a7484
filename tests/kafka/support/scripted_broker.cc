#include "tests/kafka/support/scripted_broker.h"

#include "adapters/kafka/wire/wire_writer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
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

/// Waits up to 50 ms for `events` on `fd`.
void wait_for(int fd, short events) {
    pollfd entry{fd, events, 0};
    ::poll(&entry, 1, 50);
}

}  // namespace

/// One accepted connection, plain or TLS (a non-blocking socket either way,
/// so that `stop` ends every wait).
class ScriptedBroker::Stream {
public:
    Stream(int fd, SSL* ssl) : _fd(fd), _ssl(ssl) {}
    ~Stream() {
        if (_ssl == nullptr) return;
        // A broker closing a TLS connection says so with close_notify.
        if (SSL_is_init_finished(_ssl)) SSL_shutdown(_ssl);
        SSL_free(_ssl);
        ERR_clear_error();
    }

    /// Exactly `size` bytes; false on close or stop.
    bool read_exact(uint8_t* out, size_t size, const std::atomic<bool>& stop) {
        size_t filled = 0;
        while (filled < size) {
            if (stop.load()) return false;
            if (_ssl == nullptr) {
                pollfd entry{_fd, POLLIN, 0};
                if (::poll(&entry, 1, 50) <= 0) continue;
                const ssize_t got = ::recv(_fd, out + filled, size - filled, 0);
                if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
                if (got <= 0) return false;
                filled += static_cast<size_t>(got);
                continue;
            }
            size_t got = 0;
            if (SSL_read_ex(_ssl, out + filled, size - filled, &got) == 1) {
                filled += got;
                continue;
            }
            if (!retry(SSL_get_error(_ssl, 0))) return false;
        }
        return true;
    }

    void write_all(const std::vector<uint8_t>& bytes) {
        size_t written = 0;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (written < bytes.size() && std::chrono::steady_clock::now() < give_up) {
            if (_ssl == nullptr) {
                const ssize_t sent =
                    ::send(_fd, bytes.data() + written, bytes.size() - written, MSG_NOSIGNAL);
                if (sent > 0) {
                    written += static_cast<size_t>(sent);
                } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    wait_for(_fd, POLLOUT);
                } else {
                    return;
                }
                continue;
            }
            size_t sent = 0;
            if (SSL_write_ex(_ssl, bytes.data() + written, bytes.size() - written, &sent) == 1) {
                written += sent;
            } else if (!retry(SSL_get_error(_ssl, 0))) {
                return;
            }
        }
    }

    /// TLS 1.3: a new session ticket, flushed now: a record the client must
    /// read and that carries no data.
    void send_ticket() {
        if (_ssl == nullptr || SSL_new_session_ticket(_ssl) != 1) return;
        for (int i = 0; i < 100 && SSL_do_handshake(_ssl) != 1; ++i) {
            if (!retry(SSL_get_error(_ssl, 0))) return;
        }
    }

private:
    bool retry(int error) {
        ERR_clear_error();
        if (error == SSL_ERROR_WANT_READ) {
            wait_for(_fd, POLLIN);
            return true;
        }
        if (error == SSL_ERROR_WANT_WRITE) {
            wait_for(_fd, POLLOUT);
            return true;
        }
        return false;
    }

    int _fd;
    SSL* _ssl;
};

ScriptedBroker::ScriptedBroker(Handler handler, std::optional<TlsServer> tls)
    : _handler(std::move(handler)) {
    if (tls) {
        // The client may close while we write; that must not kill the test.
        std::signal(SIGPIPE, SIG_IGN);
        _tls = SSL_CTX_new(TLS_server_method());
        if (_tls == nullptr ||
            SSL_CTX_use_certificate_chain_file(_tls, tls->chain_pem.c_str()) != 1 ||
            SSL_CTX_use_PrivateKey_file(_tls, tls->key_pem.c_str(), SSL_FILETYPE_PEM) != 1) {
            ERR_print_errors_fp(stderr);
            die("scripted broker: TLS context");
        }
        if (tls->max_version != 0) SSL_CTX_set_max_proto_version(_tls, tls->max_version);
        if (!tls->client_ca_pem.empty()) {
            if (SSL_CTX_load_verify_locations(_tls, tls->client_ca_pem.c_str(), nullptr) != 1) {
                die("scripted broker: client CA");
            }
            SSL_CTX_set_verify(_tls, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
        }
    }
    _listen_fd = listen_loopback(&_port);
    if (::listen(_listen_fd, 8) != 0) die("listen");
    _thread = std::thread([this] { serve(); });
}

ScriptedBroker::~ScriptedBroker() {
    _stop.store(true);
    _thread.join();
    ::close(_listen_fd);
    if (_tls != nullptr) SSL_CTX_free(_tls);
}

std::vector<ScriptedBroker::Request> ScriptedBroker::requests() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _requests;
}

std::string ScriptedBroker::client_subject() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _client_subject;
}

ScriptedBroker::Action ScriptedBroker::answer(const std::vector<uint8_t>& frame,
                                              const Request& request) {
    Action action;
    action.frame = frame;
    const auto id = static_cast<uint32_t>(request.correlation_id);
    for (int i = 0; i < 4; ++i) action.frame[i] = static_cast<uint8_t>(id >> (24 - 8 * i));
    return action;
}

ScriptedBroker::Action ScriptedBroker::api_versions(const Request& request, const std::vector<ApiRange>& apis) {
    ballast::kafka::wire::Writer out;
    out.int32(request.correlation_id);
    out.int16(0);
    out.array_length(apis.size(), true);
    for (const ApiRange& api : apis) {
        out.int16(api.key);
        out.int16(api.min);
        out.int16(api.max);
        out.tagged_fields(true);
    }
    out.int32(0);  // throttle
    out.tagged_fields(true);
    return Action{Action::respond, out.take()};
}

void ScriptedBroker::serve() {
    while (!_stop.load()) {
        pollfd entry{_listen_fd, POLLIN, 0};
        if (::poll(&entry, 1, 50) <= 0) continue;
        const int fd = ::accept4(_listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) continue;
        const int number = ++_connections;
        SSL* ssl = nullptr;
        bool ready = true;
        if (_tls != nullptr) {
            ssl = SSL_new(_tls);
            SSL_set_fd(ssl, fd);
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            int accepted = 0;
            while (!_stop.load() && std::chrono::steady_clock::now() < give_up) {
                ERR_clear_error();
                accepted = SSL_accept(ssl);
                if (accepted == 1) break;
                const int error = SSL_get_error(ssl, accepted);
                if (error == SSL_ERROR_WANT_READ) {
                    wait_for(fd, POLLIN);
                } else if (error == SSL_ERROR_WANT_WRITE) {
                    wait_for(fd, POLLOUT);
                } else {
                    break;
                }
            }
            ERR_clear_error();
            ready = accepted == 1;
            if (!ready) {
                ++_tls_failures;
            } else if (X509* peer = SSL_get1_peer_certificate(ssl)) {
                char name[256] = {};
                X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, name,
                                          sizeof(name));
                X509_free(peer);
                std::lock_guard<std::mutex> lock(_mutex);
                _client_subject = name;
            }
        }
        {
            Stream stream(fd, ssl);
            if (ready) serve_connection(stream, number);
        }
        ::close(fd);
        ++_closed;
    }
}

void ScriptedBroker::serve_connection(Stream& stream, int number) {
    for (;;) {
        uint8_t size_bytes[4];
        if (!stream.read_exact(size_bytes, 4, _stop)) return;
        const uint32_t size = (uint32_t{size_bytes[0]} << 24) | (uint32_t{size_bytes[1]} << 16) |
                              (uint32_t{size_bytes[2]} << 8) | uint32_t{size_bytes[3]};
        if (size < 8 || size > (1u << 20)) return;
        Request request;
        request.frame.resize(size);
        if (!stream.read_exact(request.frame.data(), size, _stop)) return;
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
            case Action::raw: stream.write_all(action.frame); break;
            case Action::raw_then_close: stream.write_all(action.frame); return;
            case Action::respond:
            case Action::respond_then_close:
            case Action::respond_then_tls_ticket: {
                std::vector<uint8_t> bytes;
                const auto length = static_cast<uint32_t>(action.frame.size());
                for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(length >> (24 - 8 * i)));
                bytes.insert(bytes.end(), action.frame.begin(), action.frame.end());
                stream.write_all(bytes);
                if (action.kind == Action::respond_then_close) return;
                if (action.kind == Action::respond_then_tls_ticket) stream.send_ticket();
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
