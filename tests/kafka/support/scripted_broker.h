#pragma once

/// A TCP server on 127.0.0.1 that plays a broker from a script: for each
/// request frame it reads, a handler decides to answer (with bytes, usually a
/// Kafka-generated vector whose correlation id it patches), stay silent, or
/// close the connection. Real sockets and a real thread, so the connection's
/// timeouts, reconnects and framing are tested as they run against a broker;
/// the real broker tests are in tests/kafka/integration/.
///
/// With `TlsServer` options it speaks TLS (OpenSSL, the certificates of
/// test_pki.h), asking for a client certificate when given a CA to check it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

typedef struct ssl_ctx_st SSL_CTX;

namespace ballast::testing {

class ScriptedBroker {
public:
    struct Request {
        int16_t api_key = 0;
        int16_t api_version = 0;
        int32_t correlation_id = 0;
        std::vector<uint8_t> frame;  // after the size prefix
        int connection = 0;          // 1 for the first accepted connection, ...
    };
    struct Action {
        enum Kind {
            respond,
            silent,
            close,
            respond_then_close,
            raw_then_close,
            raw,                      // bytes as they are, the connection kept
            respond_then_tls_ticket,  // TLS 1.3: then a session ticket, a record with no data
        } kind = respond;
        std::vector<uint8_t> frame;  // respond: written after a size prefix; raw: as is
    };
    using Handler = std::function<Action(const Request&)>;

    struct TlsServer {
        std::string chain_pem;  // the server's certificate chain, leaf first
        std::string key_pem;
        /// When set, a client certificate signed by this CA is required.
        std::string client_ca_pem;
        int max_version = 0;  // TLS1_2_VERSION to hold TLS 1.2; 0: up to 1.3
    };

    explicit ScriptedBroker(Handler handler, std::optional<TlsServer> tls = std::nullopt);
    ~ScriptedBroker();
    ScriptedBroker(const ScriptedBroker&) = delete;
    ScriptedBroker& operator=(const ScriptedBroker&) = delete;

    int32_t port() const { return _port; }
    int connections() const { return _connections.load(); }
    /// Connections the server has closed (by script, or after the client left).
    int closed() const { return _closed.load(); }
    std::vector<Request> requests() const;
    /// TLS: handshakes that failed, and the CN of the last client certificate.
    int tls_failures() const { return _tls_failures.load(); }
    std::string client_subject() const;

    /// `frame` (a vector, correlation id 7) answering `request`: the id patched.
    static Action answer(const std::vector<uint8_t>& frame, const Request& request);

    struct ApiRange {
        int16_t key = 0;
        int16_t min = 0;
        int16_t max = 0;
    };
    /// An ApiVersions request (v3+) answered with these versions (response
    /// header v0, then the flexible body).
    static Action api_versions(const Request& request, const std::vector<ApiRange>& apis);

private:
    class Stream;
    void serve();
    void serve_connection(Stream& stream, int number);

    Handler _handler;
    SSL_CTX* _tls = nullptr;
    std::atomic<int> _tls_failures{0};
    std::string _client_subject;
    int _listen_fd = -1;
    int32_t _port = 0;
    std::atomic<bool> _stop{false};
    std::atomic<int> _connections{0};
    std::atomic<int> _closed{0};
    mutable std::mutex _mutex;
    std::vector<Request> _requests;
    std::thread _thread;
};

/// A loopback port nothing listens on (bound, then closed).
int32_t closed_port();

}  // namespace ballast::testing
