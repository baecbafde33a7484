#pragma once

/// The HTTP API of a `ballast run` under test, as an operator's client
/// reaches it: where it listens (the start line of its log; every test
/// process listens on port 0), and one request at a time.

#include <httplib.h>

#include <string>

#include <nlohmann/json.hpp>

namespace ballast::testing {

/// "http://127.0.0.1:PORT" from the log's "HTTP API on ..." line; "" before it.
inline std::string api_url(const std::string& log) {
    const std::string mark = "HTTP API on ";
    const size_t at = log.find(mark);
    if (at == std::string::npos) return "";
    const size_t from = at + mark.size();
    return log.substr(from, log.find(' ', from) - from);
}

struct ApiReply {
    int status = 0;        ///< 0: no answer
    std::string text;      ///< the body as sent (`/metrics` is not JSON)
    nlohmann::json body;   ///< the body parsed, discarded when it is not JSON
};

inline ApiReply api_call(const std::string& url, const std::string& method, const std::string& path) {
    httplib::Client client(url);
    client.set_read_timeout(60, 0);
    httplib::Result r = method == "GET" ? client.Get(path) : client.Post(path, "", "application/json");
    ApiReply reply;
    if (!r) return reply;
    reply.status = r->status;
    reply.text = r->body;
    reply.body = nlohmann::json::parse(r->body, nullptr, false);
    return reply;
}

/// The sum of `name`'s samples whose labels hold `labels` (say
/// `outcome="completed"`; "" for every sample), as `/metrics` writes them;
/// -1 when it has none.
inline double metric_sum(const std::string& exposition, const std::string& name, const std::string& labels = "") {
    double sum = 0;
    bool found = false;
    size_t line_start = 0;
    while (line_start < exposition.size()) {
        size_t end = exposition.find('\n', line_start);
        if (end == std::string::npos) end = exposition.size();
        const std::string line = exposition.substr(line_start, end - line_start);
        line_start = end + 1;
        if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
        if (line[name.size()] != '{' && line[name.size()] != ' ') continue;
        const size_t value_at = line.rfind(' ');
        if (!labels.empty() && line.substr(0, value_at).find(labels) == std::string::npos) continue;
        sum += std::stod(line.substr(value_at + 1));
        found = true;
    }
    return found ? sum : -1;
}

}  // namespace ballast::testing
