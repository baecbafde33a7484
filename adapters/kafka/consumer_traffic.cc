#include "adapters/kafka/consumer_traffic.h"

namespace ballast::kafka {

void ConsumerTrafficBook::add_group(const std::string& group, int64_t time_ms,
                                    const std::vector<CommittedOffset>& offsets) {
    std::map<PartitionKey, Reading>& before = _groups[group];
    std::map<PartitionKey, Reading> now;
    for (const CommittedOffset& committed : offsets) {
        if (committed.offset < 0) continue;
        const PartitionKey key{committed.topic, committed.partition};
        Reading reading{committed.offset, time_ms, -1};
        auto was = before.find(key);
        if (was != before.end()) {
            const Reading& last = was->second;
            if (time_ms <= last.time_ms) {
                reading = last;  // no time passed on the readings' clock: nothing new to say
            } else if (committed.offset >= last.offset) {
                reading.messages_per_s = static_cast<double>(committed.offset - last.offset) * 1000.0 /
                                         static_cast<double>(time_ms - last.time_ms);
            } else {
                reading.messages_per_s = 0;  // reset backwards: nothing consumed is measurable
            }
        }
        now[key] = reading;
    }
    before = std::move(now);
}

void ConsumerTrafficBook::retain_groups(const std::set<std::string>& listed) {
    for (auto it = _groups.begin(); it != _groups.end();) {
        it = listed.contains(it->first) ? std::next(it) : _groups.erase(it);
    }
}

std::map<ConsumerTrafficBook::PartitionKey, double> ConsumerTrafficBook::messages_out_per_s() const {
    std::map<PartitionKey, double> out;
    for (const auto& [group, readings] : _groups) {
        for (const auto& [key, reading] : readings) {
            if (reading.messages_per_s >= 0) out[key] += reading.messages_per_s;
        }
    }
    return out;
}

}  // namespace ballast::kafka
