#include "goals/goal_search.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "goals/goal.h"

namespace ballast::goals {

// ---------------------------------------------------------------- topic spread

CountBand count_band(int64_t total, uint32_t brokers, double deviation) {
    CountBand band;
    if (brokers == 0) return band;
    band.mean = static_cast<double>(total) / brokers;
    band.lower = count_band_floor(band.mean * (1 - deviation));
    band.upper = count_band_ceil(band.mean * (1 + deviation));
    return band;
}

CountBand topic_band(const PlanningState& state, uint32_t t) {
    CountBand band;
    if (state.eligible_count() == 0) return band;
    const double deviation = state.config().topic_spread_avg_deviation;
    band.mean = static_cast<double>(state.topic_eligible_replicas(t)) / state.eligible_count();
    band.lower = count_band_floor(band.mean * (1 - deviation));
    // At least one above ceil(mean): a topic with fewer replicas than
    // there are brokers may put two on one. Holding such topics to one a
    // broker copies a large share of a big cluster's data for little
    // spread (bench/README.md, the comparison with Cruise Control, whose
    // topic goal is looser still).
    band.upper = std::max(count_band_ceil(band.mean * (1 + deviation)), count_band_ceil(band.mean) + 1);
    return band;
}

bool keeps_topic_spread(const PlanningState& state, uint32_t p, uint32_t s, uint32_t d) {
    return TopicSpreadOfMove(state, p, s).keeps(d);
}

TopicSpreadOfMove::TopicSpreadOfMove(const PlanningState& state, uint32_t p, uint32_t s) : _state(state) {
    if (!state.tracks_topics()) return;
    _topic = state.partition(p).topic;
    _band = topic_band(state, _topic);
    _from_count = state.topic_count_on(_topic, s);
}

bool TopicSpreadOfMove::keeps(uint32_t d) const {
    // Off a broker above the band the source's excess falls by one, and a
    // destination's grows by at most one: no lookup needed.
    if (!_state.tracks_topics() || _from_count > _band.upper) return true;
    const int64_t to = _state.topic_count_on(_topic, d);
    return _band.excess(_from_count - 1) + _band.excess(to + 1) <= _band.excess(_from_count) + _band.excess(to);
}

bool PairRefusals::refused(const GoalContext& context, uint32_t s, uint32_t d, const Load& least) {
    if (_giving.refused(s, least) || _taking.refused(d, least)) return true;
    if (!context.moves_refused(s, d, least)) return false;
    // The guard that refused says whether it refuses by one side alone:
    // asking every guard again per side cost more than the answers saved.
    const Goal* refuser = context.last_move_refuser();
    if (refuser->refuses_giving(context.state(), s, least)) _giving.remember(s, refuser->side_refusal_floor(least));
    if (refuser->refuses_taking(context.state(), d, least)) _taking.remember(d, refuser->side_refusal_floor(least));
    return true;
}

double copy_bytes_max(const GoalContext& context, double mean_replica_bytes) {
    const std::vector<Action>& earlier = context.state().actions();
    const bool copied = std::any_of(earlier.begin(), earlier.end(),
                                    [](const Action& a) { return a.kind != ActionKind::leader; });
    if (!copied) return std::numeric_limits<double>::infinity();
    return deferred_copy_ratio * mean_replica_bytes;
}

}  // namespace ballast::goals
