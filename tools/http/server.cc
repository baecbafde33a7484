#include "tools/http/server.h"

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "events/properties.h"

namespace ballast::http {

using events::ErrorCode;
using events::make_error;

events::Result<std::string> configured_token(const events::Config& config) {
    const std::string& token = config.get_string("ballast.http.auth.token");
    const std::string& file = config.get_string("ballast.http.auth.token.file");
    if (file.empty()) return token;
    if (!token.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "ballast.http.auth.token and ballast.http.auth.token.file are both set: give one");
    }
    events::Result<std::string> text = events::read_text_file(file, "ballast.http.auth.token.file");
    if (!text) return text.error();
    std::string line = text->substr(0, text->find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "ballast.http.auth.token.file '" + file + "': its first line holds no token");
    }
    return line;
}

events::Result<std::unique_ptr<Server>> Server::start(const events::Config& config, EngineAccess& access,
                                                      const ApiOptions& api) {
    const std::string& listen = config.get_string("ballast.http.listen");
    if (listen.empty()) return std::unique_ptr<Server>();
    events::Result<events::ListenAddress> address = events::parse_listen_address(listen);
    if (!address) return make_error(ErrorCode::invalid_argument, "ballast.http.listen: " + address.error().message);
    events::Result<std::string> token = configured_token(config);
    if (!token) return token.error();

    std::unique_ptr<Server> server(new Server());
    server->_address = *address;
    server->_token = !token->empty();
    server->_router = std::make_unique<Router>(AuthPolicy{*token, address->loopback()});
    add_api_routes(*server->_router, access, api);
    add_ui_routes(*server->_router, !token->empty());

    server->_server = std::make_unique<httplib::Server>();
    httplib::Server& s = *server->_server;
    s.new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
    s.set_payload_max_length(body_bytes_max);
    s.set_read_timeout(5, 0);
    s.set_write_timeout(5, 0);
    s.set_keep_alive_timeout(5);
    s.set_keep_alive_max_count(100);
    // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a
    // second instance on the same port would share it (each request to either)
    // instead of being refused at start.
    s.set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    const Router* router = server->_router.get();
    // Every method to the one route table (which answers 404 and 405 itself).
    const httplib::Server::Handler dispatch = [router](const httplib::Request& req, httplib::Response& res) {
        Request request;
        request.method = req.method;
        request.path = req.path;
        for (const auto& [name, value] : req.params) request.query.emplace(name, value);  // the first of each
        request.authorization = req.get_header_value("Authorization");
        request.body = req.body;
        request.remote_address = req.remote_addr;
        Response response = router->dispatch(std::move(request));
        res.status = response.status;
        for (const auto& [name, value] : response.headers) res.set_header(name, value);
        res.set_content(response.body, response.content_type);
        const bool writes = req.method != "GET" && req.method != "HEAD";
        spdlog::log(writes ? spdlog::level::info : spdlog::level::debug, "HTTP {} {} from {}: {}", req.method,
                    req.path, req.remote_addr, response.status);
    };
    // A request without a body (`curl -X POST URL` sends no Content-Length,
    // which cpp-httplib refuses for a POST) is answered before any body is
    // read; the handlers below see the body of the rest.
    s.set_pre_routing_handler([dispatch](const httplib::Request& req, httplib::Response& res) {
        if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
            return httplib::Server::HandlerResponse::Unhandled;
        }
        dispatch(req, res);
        return httplib::Server::HandlerResponse::Handled;
    });
    s.Get(".*", dispatch);
    s.Post(".*", dispatch);
    s.Put(".*", dispatch);
    s.Delete(".*", dispatch);
    s.Patch(".*", dispatch);
    s.Options(".*", dispatch);

    errno = 0;
    if (address->port == 0) {
        const int port = s.bind_to_any_port(address->host);
        if (port > 0) server->_address.port = static_cast<uint16_t>(port);
    } else if (!s.bind_to_port(address->host, address->port)) {
        server->_address.port = 0;
    }
    if (server->_address.port == 0) {
        const int error = errno;
        return make_error(ErrorCode::io_error,
                          "ballast.http.listen=" + listen + ": cannot listen there" +
                              (error != 0 ? std::string(" (") + std::strerror(error) + ")" : std::string()) +
                              ": give a free port of an address of this machine (port 0: any free port), or an "
                              "empty ballast.http.listen for no HTTP API");
    }
    server->_thread = std::thread([&s] { s.listen_after_bind(); });
    return server;
}

Server::~Server() { stop(); }

void Server::stop() {
    if (!_thread.joinable()) return;
    // cpp-httplib's stop() does nothing before its loop runs: wait for it
    // (it starts at once; the loop ends if the socket is gone).
    for (int i = 0; i < 500 && !_server->is_running(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    _server->stop();
    _thread.join();
}

std::string Server::url() const { return "http://" + _address.text(); }

std::string Server::access_text() const {
    if (_token) return "bearer token required";
    return _address.loopback() ? "loopback, no token"
                               : "no token: write verbs refused until ballast.http.auth.token is set";
}

}  // namespace ballast::http
