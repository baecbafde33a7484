#include "tools/driver/text_format.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <ctime>

namespace ballast::driver {

std::string mib_per_s(double bytes_per_s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB/s", bytes_per_s / (1024.0 * 1024.0));
    return text;
}

std::string describe_load_change(const events::LoadChange& c) {
    return "broker " + std::to_string(c.broker_id) + ": in " + mib_per_s(c.before.bytes_in_per_s) +
           " -> " + mib_per_s(c.after.bytes_in_per_s) + ", out " +
           mib_per_s(c.before.bytes_out_per_s) + " -> " + mib_per_s(c.after.bytes_out_per_s) +
           ", replicas " + std::to_string(c.before.replica_count) + " -> " +
           std::to_string(c.after.replica_count);
}

bool parse_topic_partition(const std::string& text, std::string* topic, int32_t* partition) {
    const size_t dash = text.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == text.size()) return false;
    const char* begin = text.data() + dash + 1;
    const char* end = text.data() + text.size();
    const auto result = std::from_chars(begin, end, *partition);
    if (result.ec != std::errc() || result.ptr != end || *partition < 0) return false;
    *topic = text.substr(0, dash);
    return true;
}

std::string format_time_ms(int64_t time_ms) {
    // Times before 2000-01-01 are simulated clocks that start near zero.
    constexpr int64_t year_2000_ms = 946'684'800'000;
    char text[64];
    if (time_ms < year_2000_ms) {
        std::snprintf(text, sizeof text, "t+%" PRId64 ".%03" PRId64 "s", time_ms / 1000,
                      (time_ms < 0 ? -time_ms : time_ms) % 1000);
        return text;
    }
    const std::time_t seconds = static_cast<std::time_t>(time_ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(time_ms % 1000));
    return text;
}

std::string format_bytes(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        unit++;
    }
    char text[32];
    if (unit == 0) {
        std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
    } else {
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    }
    return text;
}

}  // namespace ballast::driver
