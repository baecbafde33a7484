#include "adapters/sim/random_scenario.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace ballast::sim {

namespace {

class Draw {
public:
    explicit Draw(uint64_t seed) : _random(seed) {}
    int64_t between(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(_random); }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(_random); }
    double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
    bool chance(double p) { return uniform(0, 1) < p; }

private:
    std::mt19937_64 _random;
};

constexpr double mib = 1 << 20;

std::string whole(double value) { return std::to_string(static_cast<int64_t>(std::llround(value))); }

/// Broker capacities in about a third of the seeds, tight enough to matter:
/// each limit (capacity x the 0.8 threshold) is 1.2-1.8 x the mean broker's
/// load at the traffic's peak (steps and ramps at their higher rate, shifts
/// weighed by the share of a topic one broker leads), so a crowded
/// placement starts over it and a crash presses the survivors against it;
/// one broker may be smaller still. When disk is limited the logs stop
/// growing (retention = initial size): a log that grows through the quiet
/// tail would cross its limit there, and its repair is no failure to settle.
void draw_capacities(Draw& draw, Scenario& s, int32_t brokers) {
    if (!draw.chance(0.35)) return;
    double in_total = 0;
    double out_total = 0;
    double size_total = 0;
    double replicas_total = 0;
    for (const TopicSpec& t : s.topics) {
        double peak = std::max(t.traffic.bytes_in_per_s, t.traffic.to_bytes_in_per_s);
        for (const TimedEvent& e : s.events) {
            if (e.kind == TimedEvent::Kind::scale_traffic && e.select.topic == t.name) {
                peak *= 1 + (e.scale - 1) * std::min(1.0, 2.0 / brokers);
            }
        }
        const double replication = t.replication_factor;
        in_total += peak * replication;
        out_total += peak * (t.traffic.fanout + replication - 1);
        size_total += t.initial_size_bytes * t.partitions * replication;
        replicas_total += t.partitions * replication;
    }
    constexpr double threshold = 0.8;
    // One resource for sure, each other at even odds.
    const int64_t sure = draw.between(0, 3);
    bool limited[4];
    for (int64_t r = 0; r < 4; r++) limited[r] = draw.chance(0.5) || r == sure;
    double capacity[4] = {};
    const double means[4] = {replicas_total / brokers, in_total / brokers, out_total / brokers, size_total / brokers};
    for (int r = 0; r < 4; r++) {
        if (!limited[r]) continue;
        const double limit = means[r] * draw.uniform(1.2, 1.8);
        capacity[r] = r == 0 ? std::ceil(std::max(limit, means[r] + 1)) : limit / threshold;
    }
    s.settings["ballast.capacity.threshold"] = "0.8";
    if (limited[0]) s.settings["ballast.broker.capacity.replicas.max"] = whole(capacity[0]);
    if (limited[1]) s.settings["ballast.broker.capacity.network.in.bytes.per.s"] = whole(capacity[1]);
    if (limited[2]) s.settings["ballast.broker.capacity.network.out.bytes.per.s"] = whole(capacity[2]);
    if (limited[3]) {
        s.settings["ballast.broker.capacity.disk.bytes"] = whole(capacity[3]);
        for (TopicSpec& t : s.topics) t.retention_bytes = t.initial_size_bytes;
    }
    if (draw.chance(0.4)) {
        // A smaller broker: 60-90% of the others' capacities.
        const auto id = static_cast<int32_t>(draw.between(1, brokers));
        const double scale = draw.uniform(0.6, 0.9);
        const char* fields[4] = {"replicas", "in", "out", "disk"};
        std::string element = std::to_string(id);
        for (int r = 0; r < 4; r++) {
            if (limited[r]) element += std::string(":") + fields[r] + "=" + whole(std::max(1.0, capacity[r] * scale));
        }
        s.settings["ballast.broker.capacity.overrides"] = element;
    }
}

}  // namespace

int64_t random_disturbed_until_ms(const Scenario& scenario) {
    return scenario.duration_ms - random_quiet_tail_ms;
}

events::Result<Scenario> random_scenario(uint64_t seed) {
    Draw draw(seed);
    Scenario s;
    s.name = "random-" + std::to_string(seed);
    s.seed = seed;
    s.flavor = draw.chance(0.5) ? Flavor::automq : Flavor::apache;
    const auto brokers = static_cast<int32_t>(draw.between(3, 8));
    const auto racks = static_cast<int32_t>(draw.between(1, std::min<int64_t>(3, brokers)));
    for (int32_t b = 1; b <= brokers; b++) s.brokers.push_back({b, "rack-" + std::to_string(b % racks), true, {}});
    const int64_t disturbed_ms = draw.between(180, 400) * 1000;
    s.duration_ms = disturbed_ms + random_quiet_tail_ms;

    // Topics, placed on all brokers or crowded onto a few (an imbalance to fix).
    const auto topics = draw.between(1, 3);
    for (int64_t t = 0; t < topics; t++) {
        TopicSpec topic;
        topic.name = "topic-" + std::to_string(t);
        topic.partitions = static_cast<int32_t>(draw.between(brokers, 6 * brokers));
        topic.replication_factor = static_cast<int32_t>(draw.between(1, std::min<int64_t>(3, brokers - 1)));
        const int32_t hosts = draw.chance(0.4) ? std::max(topic.replication_factor, brokers / 2) : brokers;
        const auto first = static_cast<int32_t>(draw.between(0, brokers - 1));
        for (int32_t p = 0; p < topic.partitions; p++) {
            std::vector<int32_t> replicas;
            for (int32_t r = 0; r < topic.replication_factor; r++) {
                replicas.push_back((first + (p + r) % hosts) % brokers + 1);
            }
            topic.assignment.push_back(replicas);
            topic.partition_weights.push_back(draw.uniform(0.5, 2));
        }
        TrafficProfile& traffic = topic.traffic;
        traffic.bytes_in_per_s = draw.log_uniform(2 * mib, 60 * mib);
        traffic.fanout = draw.uniform(0.5, 3);
        const double kind = draw.uniform(0, 1);
        if (kind < 0.2) {
            traffic.kind = ProfileKind::step;
            traffic.at_ms = draw.between(30, disturbed_ms / 1000) * 1000;
            traffic.to_bytes_in_per_s = traffic.bytes_in_per_s * draw.uniform(0.3, 3);
        } else if (kind < 0.4) {
            traffic.kind = ProfileKind::ramp;
            traffic.at_ms = draw.between(20, disturbed_ms / 2000) * 1000;
            traffic.until_ms = draw.between(traffic.at_ms / 1000 + 10, disturbed_ms / 1000) * 1000;
            traffic.to_bytes_in_per_s = traffic.bytes_in_per_s * draw.uniform(0.3, 3);
        }
        // Sizes that an apache copy at the 50 MiB/s throttle moves within the
        // action timeout: retention caps growth, as it does on a real cluster.
        topic.retention_bytes = draw.log_uniform(64 * mib, 2048 * mib);
        topic.initial_size_bytes = topic.retention_bytes * draw.uniform(0.1, 1);
        s.topics.push_back(topic);
    }

    // The disturbed part: crashes, restarts, flapping, a new broker, traffic shifts.
    const auto at = [&](int64_t lo_s, int64_t hi_s) { return draw.between(lo_s, std::max(lo_s, hi_s)) * 1000; };
    const int64_t crashes = draw.between(0, std::max(1, brokers / 3));
    for (int64_t c = 0; c < crashes; c++) {
        TimedEvent stop;
        stop.kind = TimedEvent::Kind::stop_broker;
        stop.broker_id = static_cast<int32_t>(draw.between(1, brokers));
        stop.at_ms = at(20, disturbed_ms / 1000 - 60);
        s.events.push_back(stop);
        if (draw.chance(0.8)) {
            TimedEvent start = stop;
            start.kind = TimedEvent::Kind::start_broker;
            start.at_ms = std::min(disturbed_ms, stop.at_ms + at(20, 150));
            s.events.push_back(start);
        }
    }
    if (draw.chance(0.3)) {
        // Flapping: down and up a few times, some within the session timeout.
        const auto id = static_cast<int32_t>(draw.between(1, brokers));
        int64_t t = at(20, disturbed_ms / 1000 - 90);
        for (int flap = 0; flap < 3; flap++) {
            TimedEvent e;
            e.at_ms = t;
            e.kind = TimedEvent::Kind::stop_broker;
            e.broker_id = id;
            s.events.push_back(e);
            t += at(3, 15);
            e.at_ms = t;
            e.kind = TimedEvent::Kind::start_broker;
            s.events.push_back(e);
            t += at(5, 20);
        }
    }
    if (draw.chance(0.3)) {
        TimedEvent add;
        add.kind = TimedEvent::Kind::add_broker;
        add.at_ms = at(30, disturbed_ms / 1000);
        add.broker = {brokers + 1, "rack-" + std::to_string((brokers + 1) % racks), true, {}};
        add.broker_id = brokers + 1;
        s.events.push_back(add);
    }
    const int64_t shifts = draw.between(0, 2);
    for (int64_t i = 0; i < shifts; i++) {
        TimedEvent shift;
        shift.kind = TimedEvent::Kind::scale_traffic;
        shift.at_ms = at(20, disturbed_ms / 1000);
        shift.select.topic = s.topics[static_cast<size_t>(draw.between(0, topics - 1))].name;
        shift.select.led_by = static_cast<int32_t>(draw.between(1, brokers));
        shift.scale = draw.uniform(1.5, 3);
        s.events.push_back(shift);
    }
    {
        // A quarter of the seeds: a broker that flaps for minutes, down past
        // its session timeout and grace and back, again and again (what
        // `ballast.broker.flap.*` damps). Drawn apart from the scenario's
        // stream, so the rest of each seed's scenario stays as it was.
        std::mt19937_64 flaps(seed ^ 0xf1a9'0000'0000'0000ULL);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(flaps); };
        if (pick(0, 3) == 0) {
            const auto id = static_cast<int32_t>(pick(1, brokers));
            int64_t t = pick(20, 60) * 1000;
            for (int spell = 0; spell < 6; spell++) {
                const int64_t down_ms = pick(15, 40) * 1000;
                const int64_t up_ms = pick(20, 80) * 1000;
                if (t + down_ms > disturbed_ms) break;
                TimedEvent e;
                e.kind = TimedEvent::Kind::stop_broker;
                e.broker_id = id;
                e.at_ms = t;
                s.events.push_back(e);
                e.kind = TimedEvent::Kind::start_broker;
                e.at_ms = t + down_ms;
                s.events.push_back(e);
                t += down_ms + up_ms;
            }
        }
    }
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const TimedEvent& a, const TimedEvent& b) { return a.at_ms < b.at_ms; });

    // Faults, each present in about half of the seeds.
    Faults& f = s.faults;
    if (draw.chance(0.5)) f.submit_failure_ratio = draw.uniform(0.02, 0.2);
    if (draw.chance(0.3)) f.stuck_ratio = draw.uniform(0.01, 0.05);
    if (draw.chance(0.3)) f.admin_delay_ms = draw.between(1, 2000);
    if (draw.chance(0.5)) f.metrics_loss_ratio = draw.uniform(0.01, 0.1);
    if (draw.chance(0.5)) {
        f.metrics_late_ratio = draw.uniform(0.01, 0.1);
        f.metrics_late_by_ms = draw.between(5, 30) * 1000;
    }
    const int64_t kills = draw.chance(0.5) ? draw.between(1, 2) : 0;
    for (int64_t k = 0; k < kills; k++) f.engine_kills_ms.push_back(at(10, disturbed_ms / 1000));
    std::sort(f.engine_kills_ms.begin(), f.engine_kills_ms.end());
    // A third of the crashing seeds cut the power too, with the journal
    // synced (what the power takes then must be nothing acknowledged). Drawn
    // apart from the scenario's stream, so the rest of each seed's scenario
    // stays as it was.
    if (kills > 0 && std::mt19937_64(seed ^ 0x5eed'c0de'0000'0000ULL)() % 3 == 0) {
        f.engine_kills_cut_power = true;
        s.settings["ballast.journal.sync"] = "true";
    }
    f.until_ms = disturbed_ms;  // the quiet tail is quiet: convergence is judged there

    // Engine settings that make many rounds happen in a short run.
    s.settings["autobalancer.controller.anomaly.detect.interval.ms"] = std::to_string(draw.between(5, 30) * 1000);
    s.settings["autobalancer.controller.execution.interval.ms"] = std::to_string(draw.between(0, 5) * 1000);
    s.settings["ballast.partition.cooldown.ms"] = std::to_string(draw.between(10, 60) * 1000);
    // Long enough for an apache copy of the largest partitions (~2 GB at the
    // 50 MiB/s throttle less what producers add); stuck moves still time out.
    s.settings["ballast.action.timeout.ms"] = s.flavor == Flavor::apache ? "240000" : "60000";
    s.settings["ballast.action.retry.backoff.ms"] = "1000";
    s.settings["ballast.snapshot.interval.events"] = std::to_string(draw.between(50, 2000));
    s.settings["ballast.broker.max.inflight.moves"] = std::to_string(draw.between(1, 5));
    s.settings["autobalancer.controller.execution.concurrency"] = std::to_string(draw.between(2, 20));
    s.settings["autobalancer.controller.metrics.delay.ms"] = "60000";
    s.settings["ballast.log.level"] = "off";
    // Drawn after everything above, so that these draws never shift the
    // ones above: a seed's cluster, traffic and faults are the same with or
    // without capacities.
    draw_capacities(draw, s, brokers);
    // Half the seeds let the stream flow past planning rounds (decisions
    // take effect 1-5 s after their barrier, with outcomes and Ticks passing
    // meanwhile). Drawn after the capacities, for the same reason.
    if (draw.chance(0.5)) s.settings["ballast.planner.decision.delay.ms"] = std::to_string(draw.between(1, 5) * 1000);
    if (events::Status ok = validate(s); !ok) {
        return events::make_error(ok.error().code, "random scenario " + std::to_string(seed) + ": " + ok.error().message);
    }
    return s;
}

}  // namespace ballast::sim
