/// The dashboard: GET / (the page) and GET /ui/{file} (its script, style and
/// icon), carried inside the binary (tools/http/ui/, embedded at build time
/// by tools/embed_files.py). Open: the files hold no data; every figure the
/// page shows it reads from /v1/*, with the token the operator types.

#include <map>
#include <stdexcept>
#include <string>

#include "tools/http/api.h"

namespace ballast::http {

/// tools/http/ui/'s files by name (generated: ui_files.cc).
const std::map<std::string, std::string>& ui_files();

namespace {

/// Only the page's own files, scripts included, and requests to this server:
/// no inline script or style, nothing from elsewhere, not framed.
constexpr const char* content_security_policy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The page marks whether it must ask for the token before it reads: it
/// then sends nothing that would only be refused.
constexpr const char* token_marker = "data-token=\"unknown\"";

std::string content_type_of(const std::string& name) {
    const auto ends_with = [&](const std::string& suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends_with(".html")) return "text/html; charset=utf-8";
    if (ends_with(".js")) return "text/javascript; charset=utf-8";
    if (ends_with(".css")) return "text/css; charset=utf-8";
    if (ends_with(".svg")) return "image/svg+xml";
    return "application/octet-stream";
}

Response file_response(const std::string& name, std::string body) {
    Response response;
    response.body = std::move(body);
    response.content_type = content_type_of(name);
    response.headers["Content-Security-Policy"] = content_security_policy;
    response.headers["X-Content-Type-Options"] = "nosniff";
    // Asked again each load, so a new binary's page never meets an old script.
    response.headers["Cache-Control"] = "no-cache";
    return response;
}

}  // namespace

void add_ui_routes(Router& router, bool token_required) {
    std::string page = ui_files().at("index.html");
    const size_t marker = page.find(token_marker);
    if (marker == std::string::npos) throw std::logic_error("tools/http/ui/index.html lost its " + std::string(token_marker));
    page.replace(marker, std::string(token_marker).size(),
                 std::string("data-token=\"") + (token_required ? "required" : "none") + "\"");
    router.add("GET", "/", Access::open, [page](const Request&) { return file_response("index.html", page); });
    router.add("GET", "/ui/{file}", Access::open, [](const Request& request) {
        const std::string& name = request.params.at("file");
        auto it = ui_files().find(name);
        if (it == ui_files().end() || name == "index.html") {
            std::string names;
            for (const auto& [known, body] : ui_files()) {
                if (known != "index.html") names += (names.empty() ? "" : ", ") + known;
            }
            return error_response(404, "no dashboard file '" + name + "'; the files are: " + names);
        }
        return file_response(name, it->second);
    });
}

}  // namespace ballast::http
