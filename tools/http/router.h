#pragma once

/// The HTTP API's route table and its rules, apart from any socket: a
/// request (method, path, query, headers, body) in, a response (status, JSON
/// body) out. `Server` (server.h) hands every request cpp-httplib reads to
/// `Router::dispatch`; the unit tests call it directly.
///
/// A route is a method, a path pattern whose `{name}` segments capture a
/// parameter, whether it reads or writes, and a handler. Adding an endpoint
/// is one `add` call (api.cc has them all); a route outside /v1 (the
/// Prometheus /metrics, the dashboard at /) is added the same way, with
/// `Access::open` when it needs no token.
///
/// The rules, in order: a path no route has is 404, a method its routes do
/// not take is 405 (with Allow); with a token configured, a request to a
/// route that is not open without `Authorization: Bearer TOKEN` is 401; with
/// none, a write on a listener beyond loopback is 403. Every error is JSON:
/// {"status": 404, "error": "not_found", "message": "..."}, the message naming
/// what was wrong.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ballast::http {

using Json = nlohmann::ordered_json;

struct Request {
    std::string method;  // GET, POST, PUT, ...
    std::string path;    // without the query
    std::map<std::string, std::string> query;   // the first value of each parameter
    std::map<std::string, std::string> params;  // the route's {name} segments, filled by dispatch
    std::string authorization;                  // the Authorization header, as sent
    std::string body;
    std::string remote_address;
};

struct Response {
    int status = 200;
    std::string body;  // JSON, one line, for every route so far
    /// A route that answers otherwise (Prometheus' text, the dashboard's
    /// HTML) sets its own.
    std::string content_type = "application/json";
    std::map<std::string, std::string> headers;
};

/// A JSON answer.
Response json_response(int status, const Json& body);
/// {"status": S, "error": "<reason>", "message": M} and `extra`'s fields.
Response error_response(int status, const std::string& message, const Json& extra = Json::object());
/// "not_found" for 404, ...: the JSON `error` field.
const char* status_reason(int status);

enum class Access : uint8_t {
    open,   // no token asked (health and readiness probes)
    read,   // the token when one is configured
    write,  // the token when one is configured; without one, loopback listeners only
};

/// Who may call: the configured token (empty: none) and whether the
/// listener takes connections from this machine only.
struct AuthPolicy {
    std::string token;
    bool loopback_listener = true;
};

using Handler = std::function<Response(const Request&)>;

class Router {
public:
    explicit Router(AuthPolicy auth) : _auth(std::move(auth)) {}

    /// `pattern`: "/v1/brokers/{id}/drain"; a segment in braces matches any
    /// one non-empty segment and is handed to the handler in Request::params.
    void add(std::string method, std::string pattern, Access access, Handler handler);

    /// The route's handler, or the error the rules above give. A handler
    /// that throws is a 500 naming the exception.
    Response dispatch(Request request) const;

    /// "GET /healthz", ... in the order they were added (for a 404's message).
    std::vector<std::string> routes() const;

private:
    struct Route {
        std::string method;
        std::string pattern;
        std::vector<std::string> segments;
        Access access;
        Handler handler;
    };
    /// Whether `auth` lets `request` through to a route of `access`; the
    /// refusal otherwise.
    bool allowed(Access access, const Request& request, Response* refusal) const;

    AuthPolicy _auth;
    std::vector<Route> _routes;
};

/// The path's segments: "/v1/brokers/3/drain" -> v1, brokers, 3, drain.
std::vector<std::string> path_segments(const std::string& path);

/// Constant-time comparison: how long it takes does not tell how much of a
/// guessed token was right.
bool same_secret(const std::string& a, const std::string& b);

}  // namespace ballast::http
