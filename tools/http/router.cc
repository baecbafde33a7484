#include "tools/http/router.h"

#include <exception>

namespace ballast::http {

Response json_response(int status, const Json& body) {
    Response response;
    response.status = status;
    response.body = body.dump() + "\n";
    return response;
}

const char* status_reason(int status) {
    switch (status) {
        case 200: return "ok";
        case 202: return "accepted";
        case 400: return "bad_request";
        case 401: return "unauthorized";
        case 403: return "forbidden";
        case 404: return "not_found";
        case 405: return "method_not_allowed";
        case 409: return "conflict";
        case 413: return "payload_too_large";
        case 500: return "internal_error";
        case 503: return "unavailable";
        case 504: return "timeout";
        default: return "error";
    }
}

Response error_response(int status, const std::string& message, const Json& extra) {
    Json body;
    body["status"] = status;
    body["error"] = status_reason(status);
    body["message"] = message;
    for (const auto& [key, value] : extra.items()) body[key] = value;
    return json_response(status, body);
}

std::vector<std::string> path_segments(const std::string& path) {
    std::vector<std::string> segments;
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        if (end > start) segments.push_back(path.substr(start, end - start));
        start = end + 1;
    }
    return segments;
}

bool same_secret(const std::string& a, const std::string& b) {
    // Every byte of the longer is looked at whatever matches.
    unsigned char differ = a.size() == b.size() ? 0 : 1;
    const size_t n = std::max(a.size(), b.size());
    for (size_t i = 0; i < n; i++) {
        const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        differ |= x ^ y;
    }
    return differ == 0;
}

void Router::add(std::string method, std::string pattern, Access access, Handler handler) {
    std::vector<std::string> segments = path_segments(pattern);
    _routes.push_back(Route{std::move(method), std::move(pattern), std::move(segments), access, std::move(handler)});
}

std::vector<std::string> Router::routes() const {
    std::vector<std::string> out;
    for (const Route& r : _routes) out.push_back(r.method + " " + r.pattern);
    return out;
}

bool Router::allowed(Access access, const Request& request, Response* refusal) const {
    if (access == Access::open) return true;
    if (!_auth.token.empty()) {
        constexpr std::string_view scheme = "Bearer ";
        if (request.authorization.empty()) {
            *refusal = error_response(401, "this API needs a bearer token: send the header 'Authorization: Bearer "
                                           "TOKEN' (the token is ballast.http.auth.token, or the first line of "
                                           "ballast.http.auth.token.file)");
        } else if (!request.authorization.starts_with(scheme) ||
                   !same_secret(request.authorization.substr(scheme.size()), _auth.token)) {
            *refusal = error_response(401, request.authorization.starts_with(scheme)
                                               ? "the bearer token is not this API's"
                                               : "the Authorization header is not 'Bearer TOKEN'");
        } else {
            return true;
        }
        refusal->headers["WWW-Authenticate"] = "Bearer realm=\"ballast\"";
        return false;
    }
    if (access == Access::write && !_auth.loopback_listener) {
        *refusal = error_response(403, request.method + " " + request.path +
                                           " changes what Ballast does, and this API listens beyond loopback "
                                           "without a token: set ballast.http.auth.token (or "
                                           "ballast.http.auth.token.file) to allow it");
        return false;
    }
    return true;
}

Response Router::dispatch(Request request) const {
    const std::vector<std::string> segments = path_segments(request.path);
    std::vector<std::string> allowed_methods;
    for (const Route& route : _routes) {
        if (route.segments.size() != segments.size()) continue;
        std::map<std::string, std::string> params;
        bool match = true;
        for (size_t i = 0; i < segments.size() && match; i++) {
            const std::string& want = route.segments[i];
            if (want.size() > 2 && want.front() == '{' && want.back() == '}') {
                params[want.substr(1, want.size() - 2)] = segments[i];
            } else {
                match = want == segments[i];
            }
        }
        if (!match) continue;
        if (route.method != request.method) {
            allowed_methods.push_back(route.method);
            continue;
        }
        Response refusal;
        if (!allowed(route.access, request, &refusal)) return refusal;
        request.params = std::move(params);
        try {
            return route.handler(request);
        } catch (const std::exception& e) {
            return error_response(500, request.method + " " + request.path + ": " + e.what());
        }
    }
    if (!allowed_methods.empty()) {
        std::string allow;
        for (const std::string& m : allowed_methods) allow += (allow.empty() ? "" : ", ") + m;
        Response response = error_response(405, request.path + " takes " + allow + ", not " + request.method,
                                           Json{{"allow", allowed_methods}});
        response.headers["Allow"] = allow;
        return response;
    }
    std::string known;
    for (const std::string& r : routes()) known += (known.empty() ? "" : ", ") + r;
    return error_response(404, "no route for " + request.method + " " + request.path + "; the routes are: " + known);
}

}  // namespace ballast::http
