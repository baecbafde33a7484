#pragma once

/// The p-quantile of measured values (nearest rank, 0 when there are none),
/// for the figures `ballast storm` and the benchmarks report.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ballast::driver {

inline double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t index = std::min(values.size() - 1, static_cast<size_t>(p * static_cast<double>(values.size())));
    return values[index];
}

}  // namespace ballast::driver
