#include "goals/copy_estimate.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace ballast::goals {

namespace {

constexpr double mib = 1024.0 * 1024.0;

/// Two significant digits: "60", "410", "1.5", "0.52". Coarse on purpose (see copy_refusal).
std::string rounded(double value) {
    char text[32];
    if (value >= 10) {
        const double scale = std::pow(10.0, std::floor(std::log10(value)) - 1);
        std::snprintf(text, sizeof text, "%.0f", std::round(value / scale) * scale);
    } else {
        std::snprintf(text, sizeof text, value >= 1 ? "%.1f" : "%.2f", value);
    }
    return text;
}

std::string mib_per_s(double bytes_per_s) { return rounded(bytes_per_s / mib) + " MiB/s"; }

std::string size_text(double bytes) {
    return bytes >= 1024 * mib ? rounded(bytes / (1024 * mib)) + " GiB" : rounded(bytes / mib) + " MiB";
}

}  // namespace

CopyEstimate estimate_copy(const Partition& partition, const PlannerConfig& config) {
    const double throttle = config.replication_throttle_bytes_per_s;
    if (config.flavor != Flavor::apache || !(throttle > 0)) return {};
    const double gain_bytes_per_s = throttle - produce_headroom * partition.load.bytes_in_per_s;
    if (!(gain_bytes_per_s > 0)) return {CopyVerdict::never_catches_up, 0};
    const double expected_ms = 1000 * partition.load.size_bytes / gain_bytes_per_s;
    assert(std::isfinite(expected_ms) && expected_ms >= 0);
    if (config.copy_time_max_ms > 0 && expected_ms > static_cast<double>(config.copy_time_max_ms)) {
        return {CopyVerdict::too_slow, expected_ms};
    }
    return {CopyVerdict::fits, expected_ms};
}

std::string copy_refusal(const Partition& partition, const PlannerConfig& config, const CopyEstimate& estimate) {
    assert(estimate.verdict != CopyVerdict::fits);
    const double in = partition.load.bytes_in_per_s;
    const double throttle = config.replication_throttle_bytes_per_s;
    const std::string throttle_text =
        mib_per_s(throttle) + " replication throttle (ballast.replication.throttle.bytes.per.s)";
    if (estimate.verdict == CopyVerdict::never_catches_up) {
        if (in >= throttle) {
            return "produces " + mib_per_s(in) + ", at or above the " + throttle_text +
                   ": a new replica never catches up, so Kafka never finishes a move of it";
        }
        return "produces " + mib_per_s(in) + ", within " + rounded(100 * (produce_headroom - 1)) + "% of the " +
               throttle_text + ": a new replica would barely catch up, if at all, so a move of it is not tried";
    }
    return "a copy of " + size_text(partition.load.size_bytes) + " at the " + throttle_text + ", while it produces " +
           mib_per_s(in) + ", takes about " + rounded(estimate.expected_ms / 1000) +
           " s, longer than ballast.action.timeout.ms (" + rounded(static_cast<double>(config.copy_time_max_ms) / 1000) +
           " s)";
}

}  // namespace ballast::goals
