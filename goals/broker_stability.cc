#include "goals/broker_stability.h"

#include <algorithm>

namespace ballast::goals {

namespace {

std::string seconds(int64_t ms) { return std::to_string((ms + 999) / 1000) + " s"; }

}  // namespace

BrokerStability broker_stability(const Broker& broker, int64_t now_ms, const PlannerConfig& config) {
    BrokerStability out;
    out.grace_ms = config.broker_failure_grace_ms;
    const uint32_t needed = config.broker_flap_fences;  // 0: damping off
    for (const int64_t at : broker.fenced_ms) {
        if (needed > 0 && at >= 0 && at >= now_ms - config.broker_flap_window_ms) out.fences_in_window++;
    }
    // Doubled for each fencing in the window after the first, up to the cap
    // (never below the base).
    const int64_t cap_ms = std::max(config.broker_failure_grace_ms, config.broker_failure_grace_max_ms);
    for (uint32_t i = 1; i < out.fences_in_window && out.grace_ms < cap_ms; i++) {
        out.grace_ms = std::min(cap_ms, out.grace_ms * 2);
    }
    // Flapping: its `needed` most recent fencings fit in one window. Counted
    // back from the newest, not from now: it stays flapping, whatever the
    // clock, until it has been alive long enough.
    const bool flapping = needed > 0 && needed <= broker.fenced_ms.size() && broker.fenced_ms[needed - 1] >= 0 &&
                          broker.fenced_ms[0] - broker.fenced_ms[needed - 1] <= config.broker_flap_window_ms;
    const bool alive = broker.liveness == Liveness::alive;
    const int64_t stable_at_ms = broker.liveness_changed_ms + config.broker_stable_ms;
    out.unstable = flapping && (!alive || now_ms < stable_at_ms);

    // The notes' texts stay the same from round to round while the state
    // holds: a decision is journaled, and a line logged, when one changes.
    if (broker.liveness == Liveness::fenced) {
        const int64_t grace_end_ms = broker.liveness_changed_ms + out.grace_ms;
        if (now_ms >= grace_end_ms) {
            out.note = "fenced past its failure grace (" + seconds(out.grace_ms) + "): its replicas move to other brokers";
        } else if (out.grace_ms > config.broker_failure_grace_ms) {
            out.changes_at_ms = grace_end_ms;
            out.note = "fenced " + std::to_string(out.fences_in_window) + " times in the last " +
                       seconds(config.broker_flap_window_ms) + ": failure grace " + seconds(out.grace_ms) +
                       " instead of " + seconds(config.broker_failure_grace_ms);
        }
    }
    if (out.unstable) {
        if (alive) out.changes_at_ms = std::min(out.changes_at_ms, stable_at_ms);
        const std::string why = "unstable (fenced " + std::to_string(needed) + " times within " +
                                seconds(config.broker_flap_window_ms) + "): takes no load until alive for " +
                                seconds(config.broker_stable_ms);
        out.note = out.note.empty() ? why : out.note + "; " + why;
    }
    return out;
}

}  // namespace ballast::goals
