#pragma once

/// How decisions read for people: one line per action, loads in MiB/s.

#include <string>

#include "events/event.h"

namespace ballast::tools {

/// "MOVE orders-3 3 -> 1 [NetworkInUsageDistributionGoal]", "SWAP orders-3 3 -> 1 with
/// orders-7 1 -> 3 [...]", "LEADER orders-3 3 -> 1 [...]".
std::string describe_action(const events::Action& action);

/// "broker 3: in 40.0 -> 35.0 MiB/s, out 40.0 -> 35.0 MiB/s, replicas 12 -> 11".
std::string describe_load_change(const events::LoadChange& change);

/// Bytes per second as MiB/s with one decimal.
std::string mib_per_s(double bytes_per_s);

/// "orders-3" -> ("orders", 3); the topic may itself contain '-'.
bool parse_topic_partition(const std::string& text, std::string* topic, int32_t* partition);

}  // namespace ballast::tools
