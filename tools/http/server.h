#pragma once

/// The HTTP API's server: cpp-httplib (Debian's libcpp-httplib 0.11) on
/// `ballast.http.listen`, every request handed to the route table
/// (router.h, the endpoints in api.h). It runs on threads of its own: a pool
/// of `worker_threads` answers requests, each of which reaches the engine
/// only through `EngineAccess`.
///
/// Bounds: a request body of at most `body_bytes_max` (a larger one is 413
/// before anything reads it), 5 s to read a request or write an answer, a
/// kept-alive connection closed after 5 s idle or 100 requests.

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "events/config.h"
#include "events/result.h"
#include "tools/http/api.h"
#include "tools/http/engine_access.h"
#include "tools/http/router.h"

namespace httplib {
class Server;
}

namespace ballast::http {

inline constexpr size_t worker_threads = 4;
inline constexpr size_t body_bytes_max = 64 * 1024;

/// `ballast.http.auth.token`, or the first line of the file
/// `ballast.http.auth.token.file` (read now); "" when neither is set. Both
/// set, or a file that does not read or holds no token, is an error naming
/// the key and the file.
events::Result<std::string> configured_token(const events::Config& config);

class Server {
public:
    /// Listens on `ballast.http.listen` with the API's routes, or returns
    /// null when the setting is empty (no API). The error names the address
    /// and the key when it cannot listen (in use, not this machine's).
    static events::Result<std::unique_ptr<Server>> start(const events::Config& config, EngineAccess& access,
                                                         const ApiOptions& api);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Stops taking requests and waits for those under way.
    void stop();

    /// Where it listens: HOST:PORT, the port the system chose for port 0.
    const events::ListenAddress& address() const { return _address; }
    /// "http://127.0.0.1:9470".
    std::string url() const;
    /// Whether write verbs need a token here (one is configured) and are open
    /// to loopback only otherwise: for the line that says where it listens.
    std::string access_text() const;

private:
    Server() = default;

    events::ListenAddress _address;
    std::unique_ptr<Router> _router;
    std::unique_ptr<httplib::Server> _server;
    std::thread _thread;
    bool _token = false;
};

}  // namespace ballast::http
