#pragma once

/// How the adapter's loops wait after a failure and say so: a capped
/// exponential backoff (base, 2 x base, 4 x base, ... up to max) and a log
/// that reports the first failure, a changed one, a reminder once a minute
/// while it lasts, and the recovery, never one line per retry.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

namespace ballast::kafka {

class RetryBackoff {
public:
    /// `what` names the loop in messages ("metadata poll of 127.0.0.1:9092");
    /// failures are logged at `level` (a warning unless the loop's failure
    /// stops what the process is for).
    RetryBackoff(std::string what, int64_t base_ms, int64_t max_ms,
                 spdlog::level::level_enum level = spdlog::level::warn)
        : _what(std::move(what)),
          _base_ms(std::max<int64_t>(base_ms, 1)),
          _max_ms(std::max(max_ms, base_ms)),
          _level(level) {}

    /// Records a failure; returns how long to wait before the next try.
    int64_t failed(const std::string& message) {
        _failures++;
        const int64_t wait_ms = std::min(_max_ms, _base_ms << std::min<uint32_t>(_failures - 1, 20));
        const auto now = std::chrono::steady_clock::now();
        if (message != _last_message || now - _last_logged >= std::chrono::minutes(1)) {
            spdlog::log(_level, "{} failed{}: {}; retrying in {} ms", _what,
                         _failures > 1 ? " (" + std::to_string(_failures) + " times in a row)" : "",
                         message, wait_ms);
            _last_message = message;
            _last_logged = now;
        }
        return wait_ms;
    }
    /// Records a success; the first after failures is logged.
    void succeeded() {
        if (_failures > 0) spdlog::info("{} works again after {} failures", _what, _failures);
        _failures = 0;
        _last_message.clear();
    }
    uint32_t failures() const { return _failures; }

private:
    std::string _what;
    int64_t _base_ms;
    int64_t _max_ms;
    spdlog::level::level_enum _level;
    uint32_t _failures = 0;
    std::string _last_message;
    std::chrono::steady_clock::time_point _last_logged{};
};

}  // namespace ballast::kafka
