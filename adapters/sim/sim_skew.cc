/// Skewed traffic: the weights that split a topic's traffic over its
/// partitions when the scenario draws them (Zipf, lognormal) instead of
/// listing them.

#include <cmath>
#include <numbers>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/sim/sim_scenario.h"

namespace ballast::sim {

namespace {

/// FNV-1a: a hash of a topic's name that is the same on every platform.
uint64_t name_hash(std::string_view text) {
    uint64_t h = 0xcbf2'9ce4'8422'2325ULL;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x0000'0100'0000'01b3ULL;
    }
    return h;
}

/// Uniform in (0, 1), never 0 (a logarithm follows), from 53 random bits.
double open_unit(std::mt19937_64& random) {
    return (static_cast<double>(random() >> 11) + 0.5) / 9'007'199'254'740'992.0;
}

}  // namespace

std::vector<double> skew_weights(const TrafficSkew& skew, uint64_t seed, std::string_view topic, int32_t partitions) {
    const size_t n = partitions > 0 ? static_cast<size_t>(partitions) : 0;
    std::vector<double> weights(n, 1.0);
    // Its own generator: seeded by the scenario and the topic's name, so a
    // topic's draws depend on nothing else in the scenario; mt19937_64's
    // output is fixed by the standard, and the draws below use no
    // std::*_distribution (whose algorithms differ between libraries).
    std::mt19937_64 random(seed * 0x9e37'79b9'7f4a'7c15ULL ^ name_hash(topic));
    if (skew.kind == TrafficSkew::Kind::zipf) {
        // Ranks 1..n dealt to the partitions by a Fisher-Yates shuffle: the
        // heaviest partition is anywhere, and weighs n^s times the lightest.
        std::vector<size_t> rank(n);
        for (size_t i = 0; i < n; i++) rank[i] = i;
        for (size_t i = n; i > 1; i--) std::swap(rank[i - 1], rank[random() % i]);
        for (size_t i = 0; i < n; i++) weights[i] = 1 / std::pow(static_cast<double>(rank[i] + 1), skew.s);
    } else if (skew.kind == TrafficSkew::Kind::lognormal) {
        // exp(sigma x z), z standard normal by Box-Muller.
        for (size_t i = 0; i < n; i++) {
            const double z = std::sqrt(-2 * std::log(open_unit(random))) * std::cos(2 * std::numbers::pi * open_unit(random));
            weights[i] = std::exp(skew.sigma * z);
        }
    }
    double total = 0;
    for (const double w : weights) total += w;
    for (double& w : weights) w /= total;
    return weights;
}

}  // namespace ballast::sim
