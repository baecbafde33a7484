#pragma once

/// The `ballast` binary the build made (BALLAST_BIN, set by meson) as a
/// child process, for tests that need it running while they act (`ballast
/// run` against a real cluster, `ballast sim --realtime` and its HTTP API):
/// started with its output in a file, waited for by what it logs, stopped by
/// SIGTERM or killed. And its journal read back as an operator would.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

}  // namespace ballast::testing
