#pragma once

/// What the `ballast run` integration tests need around the process under
/// test, all real: the ballast binary as a child process, a librdkafka
/// producer that counts what the cluster acknowledged, a consumer that
/// counts what it received, and the journal read back with
/// `ballast log show --json` as an operator would.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

struct rd_kafka_s;

namespace ballast::testing {

/// `ballast ARGS...` as a child; its stdout and stderr go to `log_path`.
class BallastProcess {
public:
    BallastProcess(const std::vector<std::string>& args, std::string log_path);
    ~BallastProcess();  // SIGKILL if still running
    BallastProcess(const BallastProcess&) = delete;
    BallastProcess& operator=(const BallastProcess&) = delete;

    /// SIGTERM and wait; the exit code (-1: it did not exit within 60 s, or died of a signal).
    int terminate();
    /// SIGKILL and wait: a crash.
    void kill();
    bool running();
    /// The exit code once running() found the process gone on its own (-1: still
    /// running, or it died of a signal).
    int exit_code() const { return _exit_code; }
    /// The child's pid (-1 once it was waited for): for SIGSTOP and SIGCONT.
    pid_t pid() const { return _pid; }
    std::string log() const;
    /// Waits (bounded) until the log contains `text` `count` times.
    bool wait_for_log(const std::string& text, int64_t timeout_ms, size_t count = 1) const;

private:
    pid_t _pid = -1;
    int _exit_code = -1;
    std::string _log_path;
};

/// `ballast log show --json --journal DIR`, one JSON object per event.
std::vector<nlohmann::json> journal_events(const std::string& journal);

/// Produces to every partition of a topic, round robin, at about
/// `records_per_s`, acks=all, idempotent; remembers each acknowledged offset.
class CountingProducer {
public:
    CountingProducer(const std::string& bootstrap, const std::string& topic, int32_t partitions,
                     int records_per_s, int record_bytes);
    ~CountingProducer();
    /// Stops producing and waits (bounded) for every record sent to be answered.
    void stop();
    std::set<std::pair<int32_t, int64_t>> acknowledged() const;
    uint64_t failed() const { return _failed.load(); }

    void on_delivery(int32_t partition, int64_t offset, bool ok);

private:
    void run(int32_t partitions, int records_per_s, int record_bytes);
    rd_kafka_s* _handle = nullptr;
    std::string _topic;
    std::thread _thread;
    std::atomic<bool> _stopping{false};
    mutable std::mutex _mutex;
    std::set<std::pair<int32_t, int64_t>> _acked;
    std::atomic<uint64_t> _failed{0};
};

/// Reads every partition of a topic from the beginning, no group; remembers
/// each offset received.
class CountingConsumer {
public:
    CountingConsumer(const std::string& bootstrap, const std::string& topic, int32_t partitions);
    ~CountingConsumer();
    std::set<std::pair<int32_t, int64_t>> received() const;

private:
    void run();
    rd_kafka_s* _handle = nullptr;
    std::thread _thread;
    std::atomic<bool> _stopping{false};
    mutable std::mutex _mutex;
    std::set<std::pair<int32_t, int64_t>> _received;
};

}  // namespace ballast::testing
