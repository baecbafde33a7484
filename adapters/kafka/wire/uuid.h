#pragma once

/// Kafka's Uuid (topic ids, incarnation ids, log directories): two big-endian int64s, the
/// most significant first. All zero: none.

#include <cstdint>

namespace ballast::kafka::wire {

struct Uuid {
    int64_t high = 0;
    int64_t low = 0;
    bool is_zero() const { return high == 0 && low == 0; }
    bool operator==(const Uuid&) const = default;
};

}  // namespace ballast::kafka::wire
