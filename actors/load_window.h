#pragma once

/// A partition's load over a window of its samples
/// (`ballast.metrics.window.ms`, `ballast.metrics.window.aggregate`), so
/// that one burst does not move a partition and one quiet minute does not
/// move it back.
///
/// The window is cut into `buckets` equal slices of time; a slice keeps the
/// mean of the samples that fell into it and how many did. The window ends at
/// the newest sample, so the load changes only when a sample arrives (the
/// scheduler patches only partitions that changed since the last round) and
/// is the same in a live run, in recovery and in replay. Fixed size whatever
/// the sample rate: a reporter that samples every second and one that samples
/// every minute cost the same bytes per partition (the partition table holds
/// one of these per partition, 1M of them at the largest clusters).
///
/// The aggregate is the mean over the window's samples (each weighted once),
/// or a percentile of the slices' means (nearest rank; p100 is the busiest
/// slice). Rates are kept as float: 24 bits of mantissa is a relative error
/// of 6e-8, far below what any goal's band can see, and it halves the bytes.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace ballast::actors {

struct LoadWindowSettings {
    int64_t window_ms = 0;  // 0: the newest sample alone decides
    int32_t percentile = 0; // 0: mean; 1-100: that percentile of the slices' means
};

struct LoadWindow {
    static constexpr uint32_t buckets = 8;

    std::array<uint32_t, buckets> bucket{};  // slice number (time / bucket_ms), low 32 bits
    std::array<float, buckets> bytes_in_per_s{};
    std::array<float, buckets> bytes_out_per_s{};
    std::array<uint16_t, buckets> count{};   // samples in the slice; 0: unused
    uint32_t bucket_ms = 0;                  // the slice width the slices were cut with
    uint8_t newest = 0;                      // index of the newest slice

    /// The slice width of a window of `window_ms`; 0 for no window.
    static uint32_t bucket_ms_of(int64_t window_ms) {
        if (window_ms <= 0) return 0;
        return static_cast<uint32_t>(std::clamp<int64_t>(window_ms / buckets, 1, INT32_MAX));
    }

    uint32_t used() const {
        uint32_t n = 0;
        for (uint16_t c : count) n += c > 0;
        return n;
    }

    void clear() { *this = LoadWindow{}; }

    /// The partition shard's rule, which the simulator's checks repeat: a
    /// sample at `time_ms` joins the window (slices of `width_ms`; 0: no
    /// window, forgotten) and the load is what the window then makes.
    void take(uint32_t width_ms, int32_t percentile, int64_t time_ms, double in_per_s, double out_per_s,
              double* load_in_per_s, double* load_out_per_s) {
        if (width_ms == 0) {
            if (bucket_ms != 0) clear();
            *load_in_per_s = in_per_s;
            *load_out_per_s = out_per_s;
            return;
        }
        add(time_ms, in_per_s, out_per_s, width_ms);
        aggregate(percentile, load_in_per_s, load_out_per_s);
    }

    /// Adds a sample taken at `time_ms` (never older than the newest added:
    /// the caller drops late samples), cut into slices of `bucket_ms`. A
    /// change of slice width (the window was reconfigured) starts over.
    void add(int64_t time_ms, double in_per_s, double out_per_s, uint32_t width_ms) {
        const auto number = static_cast<uint32_t>(static_cast<uint64_t>(std::max<int64_t>(time_ms, 0)) / width_ms);
        if (width_ms != bucket_ms) {
            clear();
            bucket_ms = width_ms;
        }
        if (count[newest] > 0 && bucket[newest] == number && count[newest] < UINT16_MAX) {
            const float n = static_cast<float>(++count[newest]);
            bytes_in_per_s[newest] += (static_cast<float>(in_per_s) - bytes_in_per_s[newest]) / n;
            bytes_out_per_s[newest] += (static_cast<float>(out_per_s) - bytes_out_per_s[newest]) / n;
            return;
        }
        if (count[newest] > 0) newest = static_cast<uint8_t>((newest + 1) % buckets);
        bucket[newest] = number;
        bytes_in_per_s[newest] = static_cast<float>(in_per_s);
        bytes_out_per_s[newest] = static_cast<float>(out_per_s);
        count[newest] = 1;
    }

    /// The window's load as of its newest slice: slices further back than
    /// the window (`buckets` slices) are left out.
    void aggregate(int32_t percentile, double* in_per_s, double* out_per_s) const {
        std::array<uint32_t, buckets> in_window{};
        uint32_t n = 0;
        for (uint32_t i = 0; i < buckets; i++) {
            // Unsigned difference: the slice numbers' low 32 bits wrap.
            if (count[i] > 0 && bucket[newest] - bucket[i] < buckets) in_window[n++] = i;
        }
        if (n == 0) {
            *in_per_s = 0;
            *out_per_s = 0;
            return;
        }
        if (percentile <= 0) {
            double in = 0, out = 0, samples = 0;
            for (uint32_t k = 0; k < n; k++) {
                const uint32_t i = in_window[k];
                in += static_cast<double>(bytes_in_per_s[i]) * count[i];
                out += static_cast<double>(bytes_out_per_s[i]) * count[i];
                samples += count[i];
            }
            *in_per_s = in / samples;
            *out_per_s = out / samples;
            return;
        }
        *in_per_s = rank(in_window, n, bytes_in_per_s, percentile);
        *out_per_s = rank(in_window, n, bytes_out_per_s, percentile);
    }

private:
    static double rank(const std::array<uint32_t, buckets>& in_window, uint32_t n,
                       const std::array<float, buckets>& values, int32_t percentile) {
        std::array<float, buckets> sorted{};
        for (uint32_t k = 0; k < n; k++) sorted[k] = values[in_window[k]];
        std::sort(sorted.begin(), sorted.begin() + n);
        // Nearest rank: the smallest value with at least p% of the slices at or below it.
        const auto at = static_cast<uint32_t>(std::ceil(static_cast<double>(percentile) * n / 100.0));
        return sorted[std::clamp<uint32_t>(at, 1, n) - 1];
    }
};

}  // namespace ballast::actors
