#pragma once

/// The byte stream under a broker connection: the seam where security plugs
/// in. PLAINTEXT is `TcpTransport` (transport_tcp.h). TLS is another
/// Transport (the handshake happens in `open`); SASL is a Transport that
/// wraps an inner one and, in `open`, runs the SaslHandshake and
/// SaslAuthenticate exchange over it before handing the stream to the
/// connection. The connection above never knows which one it has.
///
/// Every call is bounded by a deadline; nothing blocks past it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "events/result.h"

namespace ballast::kafka::wire {

/// A point in time on the monotonic clock by which a call must finish.
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

class Transport {
public:
    virtual ~Transport() = default;

    /// Connects (and for TLS/SASL, authenticates). Errors name the address.
    virtual events::Status open(const std::string& host, int32_t port, Deadline deadline) = 0;
    /// Writes every byte, or fails.
    virtual events::Status write(std::span<const uint8_t> bytes, Deadline deadline) = 0;
    /// Fills `buffer` completely, or fails (a peer that closes mid-way fails).
    virtual events::Status read(std::span<uint8_t> buffer, Deadline deadline) = 0;
    /// Without blocking: has the peer closed the stream (or sent bytes nobody
    /// asked for)? A connection asks before reusing an idle stream, because
    /// brokers close connections idle for connections.max.idle.ms.
    virtual bool broken() = 0;
    virtual void close() = 0;
    virtual bool is_open() const = 0;
    /// "PLAINTEXT 127.0.0.1:9092", for errors.
    virtual std::string describe() const = 0;
};

/// Makes a fresh, unopened transport: a connection calls it to reconnect.
using TransportFactory = std::function<std::unique_ptr<Transport>()>;

}  // namespace ballast::kafka::wire
