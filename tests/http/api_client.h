#pragma once

/// What the tests of the HTTP API against `ballast sim --realtime` share
/// (api_test.cc, metrics_api_test.cc): the simulated cluster, starting it as
/// a process with its API on a free port, and asking it.
///
/// The simulated cluster: apache, three brokers, six 2 GiB partitions two
/// to a broker, even traffic, so nothing moves unless asked; a drained
/// broker's partitions copy at 50 MiB/s (~40 s), long enough to be seen in
/// flight and cancelled.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/ballast_process.h"
#include "tests/support/temp_dir.h"

namespace ballast::http::api_testing {

using nlohmann::json;
using testing::BallastProcess;
using testing::TempDir;

inline constexpr const char* scenario_json = R"({
  "name": "http-api", "flavor": "apache", "seed": 7, "duration": "10m",
  "settings": {"autobalancer.controller.anomaly.detect.interval.ms": 600000},
  "brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c"}],
  "topics": [{"name": "orders", "partitions": 6, "replication_factor": 1,
              "assignment": [[1], [2], [3], [1], [2], [3]], "initial_size_bytes": 2147483648,
              "traffic": {"profile": "constant", "bytes_in_per_s": 1048576, "record_bytes": 1024, "fanout": 1}}]
})";

/// A realtime simulation of the scenario above with its HTTP API, and where it listens.
struct Sim {
    std::unique_ptr<BallastProcess> process;
    std::string url;   // http://127.0.0.1:PORT
    std::string journal;
};

inline Sim start_sim(const TempDir& dir, const std::vector<std::string>& settings,
              const std::string& listen = "127.0.0.1:0") {
    const std::string scenario = dir / "scenario.json";
    std::ofstream(scenario) << scenario_json;
    Sim sim;
    sim.journal = dir / "journal";
    std::vector<std::string> args{"--set", "ballast.http.listen=" + listen};
    for (const std::string& s : settings) {
        args.push_back("--set");
        args.push_back(s);
    }
    for (const char* a : {"sim", "--realtime", "--quiet", "--until", "10m", "--scenario"}) args.push_back(a);
    args.push_back(scenario);
    args.push_back("--journal");
    args.push_back(sim.journal);
    sim.process = std::make_unique<BallastProcess>(args, dir / "sim.log");
    EXPECT_TRUE(sim.process->wait_for_log("HTTP API on http://", 20'000)) << sim.process->log();
    const std::string log = sim.process->log();
    const size_t at = log.find("HTTP API on ");
    if (at == std::string::npos) return sim;
    const size_t from = at + std::string("HTTP API on ").size();
    sim.url = log.substr(from, log.find(' ', from) - from);
    // A wildcard listener is reached on loopback.
    if (const size_t any = sim.url.find("0.0.0.0"); any != std::string::npos) sim.url.replace(any, 7, "127.0.0.1");
    return sim;
}

struct Reply {
    int status = 0;
    json body;
    httplib::Headers headers;
};

inline Reply call(const std::string& url, const std::string& method, const std::string& path, const std::string& body = "",
           const std::string& token = "") {
    httplib::Client client(url);
    client.set_read_timeout(30, 0);
    if (!token.empty()) client.set_bearer_token_auth(token);
    httplib::Result r = method == "GET"    ? client.Get(path)
                        : method == "POST" ? client.Post(path, body, "application/json")
                        : method == "PUT"  ? client.Put(path, body, "application/json")
                                           : client.Delete(path);
    Reply reply;
    if (!r) {
        ADD_FAILURE() << method << " " << url << path << ": " << httplib::to_string(r.error());
        return reply;
    }
    reply.status = r->status;
    reply.headers = r->headers;
    reply.body = json::parse(r->body, nullptr, false);
    EXPECT_FALSE(reply.body.is_discarded()) << method << " " << path << " answered no JSON: " << r->body;
    return reply;
}

inline std::string header(const httplib::Headers& headers, const std::string& name) {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
}

/// Waits (bounded) until `done` holds.
inline bool eventually(const std::function<bool()>& done, int64_t timeout_ms = 15'000) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
}

}  // namespace ballast::http::api_testing
