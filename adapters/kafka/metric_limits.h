#pragma once

/// What the metrics sources accept of a reported value before it becomes an
/// event: a size is carried as whole bytes (uint64_t), and a double past what
/// that holds has no conversion (undefined behaviour), so a reporter's size is
/// bounded first.

#include <cmath>

namespace ballast::kafka {

/// 2^53 bytes (8 PiB): every whole number up to it is exact in a double, it is
/// far past any partition's size, and thousands of them still sum inside a
/// uint64_t.
inline constexpr double metric_size_bytes_max = 9007199254740992.0;

/// A size a reporter may send: finite, not negative, at most the bound.
inline bool usable_size_bytes(double value) {
    return std::isfinite(value) && value >= 0 && value <= metric_size_bytes_max;
}

}  // namespace ballast::kafka
