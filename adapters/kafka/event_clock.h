#pragma once

/// The time the engine sees, for everything a live run feeds it: the clock
/// thread's Ticks and every event the adapter stamps (time_ms, a sample's
/// sample_time_ms). One clock for all of them, so that a broker fenced "at"
/// a time and the Tick that ends its grace are on the same scale.
///
/// The live clock is the wall clock in epoch milliseconds, never running
/// backwards (a step back of the system clock holds it until the wall clock
/// catches up): the engine takes the newest Tick as now and must never see
/// an event from its future turn into its past. Tests give a fake.
///
/// The adapter's own cadence (poll every N ms, call timeouts) uses
/// steady_clock instead: that time never reaches the engine.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace ballast::kafka {

/// Epoch milliseconds; thread-safe.
using EventClock = std::function<int64_t()>;

/// The wall clock, monotonic. Share one instance between every caller.
class WallClock {
public:
    int64_t now_ms() {
        const int64_t wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
        int64_t last = _last_ms.load();
        while (wall_ms > last && !_last_ms.compare_exchange_weak(last, wall_ms)) {
        }
        return std::max(wall_ms, last);
    }
    EventClock clock() {
        return [this] { return now_ms(); };
    }

private:
    std::atomic<int64_t> _last_ms{0};
};

}  // namespace ballast::kafka
