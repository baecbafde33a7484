#pragma once

/// A point in time on the monotonic clock by which a call must finish. Every
/// wait of the wire client (connect, TLS handshake, SASL, a response) is
/// bounded by one.

#include <chrono>
#include <cstdint>

namespace ballast::kafka::wire {

class Deadline {
public:
    using Clock = std::chrono::steady_clock;

    static Deadline after_ms(int64_t timeout_ms) {
        return Deadline(Clock::now() + std::chrono::milliseconds(timeout_ms));
    }
    explicit Deadline(Clock::time_point at) : _at(at) {}

    /// Milliseconds left, 0 once passed (rounded up, so that a wait for the
    /// last fraction of a millisecond does not spin).
    int64_t remaining_ms() const {
        auto left = _at - Clock::now();
        if (left <= Clock::duration::zero()) return 0;
        return std::chrono::ceil<std::chrono::milliseconds>(left).count();
    }
    bool expired() const { return Clock::now() >= _at; }
    Clock::time_point at() const { return _at; }

private:
    Clock::time_point _at;
};

}  // namespace ballast::kafka::wire
