// What a secured connection costs, behind bench/handshake.sh: connections per
// second to one broker, each opened as the wire client opens it (TCP, then
// the TLS handshake, ApiVersions, then SaslHandshake and SaslAuthenticate)
// and closed, one after the other on one thread, for DURATION s per mode.
// The settings come as `ballast run` takes them (--command-config, --set
// kafka.*=...), so a mode is the same client Ballast would be. Per mode one
// JSON line: connections a second, the time to open one (p50, p99), and this
// process's CPU time per connection (the client's share: TLS and SCRAM's
// PBKDF2), with the machine and the CPU time the hypervisor took.
//
// Usage: handshake_bench --bootstrap HOST:PORT --mode NAME [--command-config FILE]
//        [--set kafka.KEY=VALUE]... [--duration S] [--warmup S]
// --bootstrap names one broker (the first of a list is used): every connection goes there.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/kafka/client_properties.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "tools/driver/machine.h"
#include "tools/driver/percentile.h"

using namespace ballast;

namespace {

struct Options {
    std::string bootstrap;
    std::string mode;
    std::string command_config;
    std::vector<std::string> settings;
    double duration_s = 10;
    /// Connections first made and not counted: a broker just started runs its
    /// TLS and SASL code interpreted until the JIT has compiled it.
    double warmup_s = 5;
};

int usage(const char* why) {
    std::fprintf(stderr, "handshake_bench: %s\nusage: handshake_bench --bootstrap HOST:PORT --mode NAME "
                         "[--command-config FILE] [--set kafka.KEY=VALUE]... [--duration S] [--warmup S]\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) return usage(("missing the value of " + arg).c_str());
        const std::string value = argv[++i];
        if (arg == "--bootstrap") o.bootstrap = value;
        else if (arg == "--mode") o.mode = value;
        else if (arg == "--command-config") o.command_config = value;
        else if (arg == "--set") o.settings.push_back(value);
        else if (arg == "--duration") o.duration_s = std::stod(value);
        else if (arg == "--warmup") o.warmup_s = std::stod(value);
        else return usage(("unknown option " + arg).c_str());
    }
    if (o.bootstrap.empty() || o.mode.empty()) return usage("--bootstrap and --mode are needed");

    events::Config config = events::Config::defaults();
    for (const std::string& s : o.settings) {
        if (events::Status set = config.apply_override(s); !set) return usage(set.error().message.c_str());
    }
    events::Result<kafka::ClientConfig> client = kafka::read_client_config(config, o.command_config);
    if (!client) return usage(client.error().message.c_str());
    events::Result<std::vector<kafka::wire::BrokerAddress>> servers = kafka::wire::parse_bootstrap_servers(o.bootstrap);
    if (!servers) return usage(servers.error().message.c_str());
    kafka::wire::ConnectionOptions connection;
    connection.client_id = "ballast-handshake-bench";
    connection.security = client->security;
    // One transport factory for every connection, as one AdminClient shares it:
    // the trust store loads once, not per handshake.
    connection.transport = kafka::wire::transport_factory(connection.security);
    const kafka::wire::BrokerAddress broker = servers->front();

    std::vector<double> open_ms;
    std::string failure;
    const auto warm = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.warmup_s);
    while (std::chrono::steady_clock::now() < warm) {
        kafka::wire::BrokerConnection c(broker.host, broker.port, connection);
        if (events::Status opened = c.ensure_open(kafka::wire::Deadline::after_ms(10'000)); !opened) {
            std::fprintf(stderr, "handshake_bench: %s: %s\n", o.mode.c_str(), opened.error().to_string().c_str());
            return 1;
        }
    }
    const driver::CpuTimes machine_before = driver::cpu_times();
    const double cpu_before = driver::process_cpu_s();
    const auto started = std::chrono::steady_clock::now();
    const auto until = started + std::chrono::duration<double>(o.duration_s);
    while (std::chrono::steady_clock::now() < until) {
        kafka::wire::BrokerConnection c(broker.host, broker.port, connection);
        const auto t0 = std::chrono::steady_clock::now();
        events::Status opened = c.ensure_open(kafka::wire::Deadline::after_ms(10'000));
        const auto t1 = std::chrono::steady_clock::now();
        if (!opened) {
            failure = opened.error().to_string();
            break;
        }
        open_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        c.close();
    }
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double cpu_s = driver::process_cpu_s() - cpu_before;
    const driver::CpuTimes machine_after = driver::cpu_times();
    if (!failure.empty()) {
        std::fprintf(stderr, "handshake_bench: %s: %s\n", o.mode.c_str(), failure.c_str());
        return 1;
    }
    const double n = static_cast<double>(open_ms.size());
    nlohmann::json line{
        {"mode", o.mode},
        {"security", connection.security.redacted()},
        {"connections", open_ms.size()},
        {"seconds", elapsed_s},
        {"connections_per_s", n / elapsed_s},
        {"open_ms_p50", driver::percentile(open_ms, 0.50)},
        {"open_ms_p99", driver::percentile(open_ms, 0.99)},
        {"client_cpu_ms_per_connection", n > 0 ? 1000 * cpu_s / n : 0},
        {"cpu", driver::cpu_model()},
        {"steal_percent", driver::steal_percent(machine_before, machine_after)},
    };
    std::printf("%s\n", line.dump().c_str());
    return 0;
}
