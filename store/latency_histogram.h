#pragma once

/// How long the journal's appends take on the wall clock, counted in
/// fixed buckets for the HTTP API's `/metrics`. Measured here, inside the
/// journal's own calls, so that no actor reads a clock: the figure is only
/// counted, never read back by anything that decides. Safe to read from any
/// thread beside the writer (relaxed atomics: a scrape may see an
/// observation's bucket a moment before its sum).

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace ballast::store {

class LatencyHistogram {
public:
    /// Upper bounds in seconds: from a write that is not synced to a stall
    /// of RocksDB's writes (an append), or a round at a million partitions.
    static constexpr std::array<double, 12> upper_bounds_s = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                             0.01,   0.025,   0.05,   0.1,   0.5,    2.5};

    struct Figures {
        std::array<uint64_t, upper_bounds_s.size()> bucket_counts{};  // not cumulative
        uint64_t count = 0;  // those above the last bound too
        double sum_s = 0;
    };

    void observe(std::chrono::nanoseconds elapsed) {
        const double seconds = std::chrono::duration<double>(elapsed).count();
        size_t i = 0;
        while (i < upper_bounds_s.size() && seconds > upper_bounds_s[i]) ++i;
        if (i < upper_bounds_s.size()) _buckets[i].fetch_add(1, std::memory_order_relaxed);
        _sum_ns.fetch_add(static_cast<uint64_t>(elapsed.count()), std::memory_order_relaxed);
        _count.fetch_add(1, std::memory_order_relaxed);
    }

    Figures figures() const {
        Figures f;
        f.count = _count.load(std::memory_order_relaxed);
        uint64_t counted = 0;
        for (size_t i = 0; i < _buckets.size(); ++i) {
            f.bucket_counts[i] = _buckets[i].load(std::memory_order_relaxed);
            counted += f.bucket_counts[i];
        }
        // Read apart from the buckets: never let them hold more than the count.
        if (counted > f.count) f.count = counted;
        f.sum_s = static_cast<double>(_sum_ns.load(std::memory_order_relaxed)) * 1e-9;
        return f;
    }

    /// Observes the time from its making to its end.
    class Timer {
    public:
        explicit Timer(LatencyHistogram& histogram)
            : _histogram(histogram), _started(std::chrono::steady_clock::now()) {}
        ~Timer() { _histogram.observe(std::chrono::steady_clock::now() - _started); }
        std::chrono::steady_clock::time_point started() const { return _started; }
        Timer(const Timer&) = delete;
        Timer& operator=(const Timer&) = delete;

    private:
        LatencyHistogram& _histogram;
        std::chrono::steady_clock::time_point _started;
    };

private:
    std::array<std::atomic<uint64_t>, upper_bounds_s.size()> _buckets{};
    std::atomic<uint64_t> _count{0};
    std::atomic<uint64_t> _sum_ns{0};
};

}  // namespace ballast::store
