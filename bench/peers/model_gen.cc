/// Writes a seeded, skewed cluster in the neutral JSON that
/// `ballast plan --model` and the Cruise Control harness both read
/// (goals/README.md, "A cluster described in JSON").
///
///   model_gen --brokers 100 --partitions 100000 --rf 3 --racks 4 --seed 1 --out m.json
///
/// What makes it skewed, as clusters that need a balancer are:
/// - placement: each broker draws a weight (lognormal, sigma 0.6) and the
///   newest tenth of the brokers (the highest ids) hold nothing, as after an
///   expansion; replicas go to brokers by weight, a partition's replicas in
///   distinct racks while there are racks enough (Kafka's rack-aware
///   placement), distinct brokers always;
/// - traffic: topics of 8-256 partitions, each with its own per-partition
///   rate (lognormal around 16 KiB/s, sigma 1.0), its partitions spread
///   around it (sigma 0.5), 0-3 consumer groups reading (out = in x groups),
///   and a retention of 6 h, 1 d or 3 d that makes the size (in x retention);
/// - capacity: every broker gets `--headroom` times the mean broker load of
///   each resource (2.5 by default: a broker at twice the mean is past the
///   0.8 capacity threshold), or with `--mixed-capacity` every other broker
///   twice the size of another in its rack (the same total).
/// splitmix64 from the seed: the same arguments write the same bytes.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double unit(uint64_t& state) { return (static_cast<double>(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53; }

/// Box-Muller: one standard normal draw.
double normal(uint64_t& state) {
    const double u1 = unit(state);
    const double u2 = unit(state);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double lognormal(uint64_t& state, double median, double sigma) { return median * std::exp(sigma * normal(state)); }

struct Options {
    int32_t brokers = 20;
    uint32_t partitions = 100'000;
    uint32_t rf = 1;
    uint32_t racks = 1;
    uint64_t seed = 1;
    double headroom = 2.5;
    double empty_fraction = 0.1;
    bool mixed_capacity = false;
    std::string out;
};

[[noreturn]] void usage(const char* problem) {
    if (problem) std::fprintf(stderr, "model_gen: %s\n", problem);
    std::fprintf(stderr,
                 "usage: model_gen --brokers N --partitions P [--rf R] [--racks K] [--seed S] [--headroom X]\n"
                 "                 [--empty-fraction F] [--mixed-capacity] [--out FILE]\n");
    std::exit(problem ? 2 : 0);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") usage(nullptr);
        if (arg == "--mixed-capacity") {
            o.mixed_capacity = true;
            continue;
        }
        if (i + 1 >= argc) usage((arg + " needs a value").c_str());
        const char* value = argv[++i];
        char* end = nullptr;
        const double number = std::strtod(value, &end);
        const bool numeric = end != value && *end == '\0' && number >= 0;
        if (arg == "--out") {
            o.out = value;
            continue;
        }
        if (!numeric) usage((arg + ": expected a number >= 0, got '" + value + "'").c_str());
        if (arg == "--brokers") o.brokers = static_cast<int32_t>(number);
        else if (arg == "--partitions") o.partitions = static_cast<uint32_t>(number);
        else if (arg == "--rf") o.rf = static_cast<uint32_t>(number);
        else if (arg == "--racks") o.racks = static_cast<uint32_t>(number);
        else if (arg == "--seed") o.seed = static_cast<uint64_t>(number);
        else if (arg == "--headroom") o.headroom = number;
        else if (arg == "--empty-fraction") o.empty_fraction = number;
        else usage(("unknown option " + arg).c_str());
    }
    if (o.brokers < 1 || o.rf < 1 || o.racks < 1) usage("--brokers, --rf and --racks must be at least 1");
    if (o.empty_fraction >= 1) usage("--empty-fraction must be below 1");
    const int32_t placed = o.brokers - static_cast<int32_t>(o.brokers * o.empty_fraction);
    if (static_cast<int32_t>(o.rf) > placed) usage("--rf is larger than the brokers that hold replicas");
    if (o.headroom <= 1) usage("--headroom must be above 1 (capacity below the mean load puts every broker over it)");
    return o;
}

struct Partition {
    uint32_t topic, index;
    std::vector<int32_t> replicas;
    double in, out, size;
};

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    uint64_t rng = o.seed * 0x2545f4914f6cdd1dull + 1;

    const int32_t placed = o.brokers - static_cast<int32_t>(o.brokers * o.empty_fraction);
    std::vector<double> weight(static_cast<size_t>(o.brokers), 0);
    for (int32_t b = 0; b < placed; b++) weight[static_cast<size_t>(b)] = lognormal(rng, 1.0, 0.6);
    std::vector<double> cumulative(weight.size());
    std::partial_sum(weight.begin(), weight.end(), cumulative.begin());
    auto rack_of = [&](int32_t b) { return static_cast<uint32_t>(b) % o.racks; };
    auto draw_broker = [&] {
        const double at = unit(rng) * cumulative.back();
        return static_cast<int32_t>(std::upper_bound(cumulative.begin(), cumulative.end(), at) - cumulative.begin());
    };

    static constexpr uint32_t topic_sizes[] = {8, 16, 32, 64, 128, 256};
    static constexpr double retention_s[] = {6 * 3600.0, 86400.0, 3 * 86400.0};
    std::vector<Partition> partitions;
    partitions.reserve(o.partitions);
    uint32_t topic = 0;
    while (partitions.size() < o.partitions) {
        const uint32_t size = std::min<uint32_t>(topic_sizes[splitmix64(rng) % 6], o.partitions - static_cast<uint32_t>(partitions.size()));
        const double topic_in = lognormal(rng, 16 * 1024.0, 1.0);
        const double groups = static_cast<double>(splitmix64(rng) % 4);
        const double retention = retention_s[splitmix64(rng) % 3];
        for (uint32_t i = 0; i < size; i++) {
            Partition p{topic, i, {}, 0, 0, 0};
            const bool racks_enough = o.racks >= o.rf;
            auto fits = [&](int32_t c, bool rack_strict) {
                if (std::find(p.replicas.begin(), p.replicas.end(), c) != p.replicas.end()) return false;
                return !rack_strict || std::none_of(p.replicas.begin(), p.replicas.end(),
                                                    [&](int32_t r) { return rack_of(r) == rack_of(c); });
            };
            while (p.replicas.size() < o.rf) {
                int32_t b = draw_broker();
                for (int attempt = 0; attempt < 64 && !fits(b, racks_enough); attempt++) b = draw_broker();
                // Heavily weighted brokers can crowd the draws out: the next
                // placed broker in id order that fits, in another rack if any.
                for (int strict = racks_enough ? 1 : 0; strict >= 0 && !fits(b, racks_enough); strict--) {
                    for (int32_t step = 1; step <= placed; step++) {
                        const int32_t c = (b + step) % placed;
                        if (fits(c, strict == 1)) {
                            b = c;
                            break;
                        }
                    }
                    if (fits(b, strict == 1)) break;
                }
                p.replicas.push_back(b);
            }
            p.in = std::round(lognormal(rng, topic_in, 0.5));
            p.out = std::round(p.in * groups);
            p.size = std::round(p.in * retention * lognormal(rng, 1.0, 0.3));
            partitions.push_back(std::move(p));
        }
        topic++;
    }

    // Mean broker load of each resource, as replica_load() counts it: every
    // replica takes in and holds the size; the leader sends out plus one
    // copy of in per follower.
    double in_total = 0, out_total = 0, disk_total = 0;
    for (const Partition& p : partitions) {
        in_total += p.in * o.rf;
        out_total += p.out + p.in * (o.rf - 1);
        disk_total += p.size * o.rf;
    }
    const double n = o.brokers;
    std::FILE* f = o.out.empty() ? stdout : std::fopen(o.out.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "model_gen: %s: %s\n", o.out.c_str(), std::strerror(errno));
        return 1;
    }
    std::fprintf(f, "{\"brokers\": [\n");
    for (int32_t b = 0; b < o.brokers; b++) {
        // Mixed: sizes 2/3 and 4/3 of the mean (the same total), alternating
        // by rows of racks so every rack has both: sizes aligned with racks
        // would ask RF3 over 4 racks for the impossible.
        const double scale = o.mixed_capacity ? ((b / static_cast<int32_t>(o.racks)) % 2 ? 4.0 / 3 : 2.0 / 3) : 1.0;
        std::fprintf(f,
                     "  {\"id\": %d, \"rack\": \"rack-%u\", \"capacity\": {\"network_in_bytes_per_s\": %.0f, "
                     "\"network_out_bytes_per_s\": %.0f, \"disk_bytes\": %.0f}}%s\n",
                     b, rack_of(b), std::ceil(in_total / n * o.headroom * scale),
                     std::ceil(std::max(out_total, 1.0) / n * o.headroom * scale), std::ceil(disk_total / n * o.headroom * scale),
                     b + 1 < o.brokers ? "," : "");
    }
    std::fprintf(f, "],\n\"partitions\": [\n");
    for (size_t i = 0; i < partitions.size(); i++) {
        const Partition& p = partitions[i];
        std::string replicas;
        for (int32_t r : p.replicas) replicas += (replicas.empty() ? "" : ", ") + std::to_string(r);
        std::fprintf(f,
                     "  {\"topic\": \"t%u\", \"partition\": %u, \"replicas\": [%s], \"bytes_in_per_s\": %.0f, "
                     "\"bytes_out_per_s\": %.0f, \"size_bytes\": %.0f}%s\n",
                     p.topic, p.index, replicas.c_str(), p.in, p.out, p.size, i + 1 < partitions.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    if (f != stdout && std::fclose(f) != 0) {
        std::fprintf(stderr, "model_gen: %s: %s\n", o.out.c_str(), std::strerror(errno));
        return 1;
    }
    return 0;
}
