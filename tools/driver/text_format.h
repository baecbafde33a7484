#pragma once

/// How decisions read for people: one line per action, loads in MiB/s, times
/// and sizes.

#include <cstdint>
#include <string>

#include "events/event.h"

namespace ballast::driver {

using events::describe_action;

/// "broker 3: in 40.0 -> 35.0 MiB/s, out 40.0 -> 35.0 MiB/s, replicas 12 -> 11".
std::string describe_load_change(const events::LoadChange& change);

/// Bytes per second as MiB/s with one decimal.
std::string mib_per_s(double bytes_per_s);

/// "orders-3" -> ("orders", 3); the topic may itself contain '-'.
bool parse_topic_partition(const std::string& text, std::string* topic, int32_t* partition);

/// An event time for people: ISO-8601 UTC with milliseconds for real epoch
/// times, "t+12.345s" for the small times of simulated runs that start at 0.
std::string format_time_ms(int64_t time_ms);

/// "1.5 MiB", "312 B".
std::string format_bytes(uint64_t bytes);

}  // namespace ballast::driver
