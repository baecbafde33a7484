#include "tools/action_format.h"

#include <charconv>
#include <cstdio>

namespace ballast::tools {

std::string mib_per_s(double bytes_per_s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB/s", bytes_per_s / (1024.0 * 1024.0));
    return text;
}

std::string describe_action(const events::Action& a) {
    const std::string name = a.topic + "-" + std::to_string(a.partition);
    std::string line;
    switch (a.kind) {
        case events::ActionKind::move:
            line = "MOVE " + name + " " + std::to_string(a.source_broker) + " -> " +
                   std::to_string(a.destination_broker);
            break;
        case events::ActionKind::swap:
            line = "SWAP " + name + " " + std::to_string(a.source_broker) + " -> " +
                   std::to_string(a.destination_broker) + " with " + a.swap_topic + "-" +
                   std::to_string(a.swap_partition) + " " + std::to_string(a.destination_broker) +
                   " -> " + std::to_string(a.source_broker);
            break;
        case events::ActionKind::leader:
            line = "LEADER " + name + " " + std::to_string(a.source_broker) + " -> " +
                   std::to_string(a.destination_broker);
            break;
    }
    return line + " [" + a.goal + "]";
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

}  // namespace ballast::tools
