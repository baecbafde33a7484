#pragma once

/// Can an apache move of a partition finish? Private to goals/.
///
/// A reassignment adds the new replica, which fetches the partition from
/// the leader at the replication throttle while the producers keep writing;
/// Kafka finishes the reassignment only once the new replica has caught up
/// (joined the ISR). The copy gains on the log at (throttle - produce
/// rate), so it takes
///
///     expected_ms = 1000 x size_bytes / (throttle - produce_headroom x bytes_in)
///
/// and never finishes when the denominator is <= 0. Such a move can only
/// hang until the executor times it out, and while it hangs every plan
/// counts it as done (the scheduler projects moves in flight) and moves
/// other partitions to match, which are undone afterwards: so it is not
/// planned at all. Nor is a move expected to take longer than
/// `PlannerConfig::copy_time_max_ms` (the action timeout).
///
/// Only on the apache flavor with a throttle known
/// (`PlannerConfig::replication_throttle_bytes_per_s` > 0): automq moves
/// copy nothing (shared storage), and without a throttle the rate is the
/// network's, which the capacity goals judge.
///
/// Not modelled: Kafka's throttle is per broker, so moves off one broker at
/// once share it (at most `ballast.broker.max.inflight.moves` of them); the
/// estimate is that of one copy alone. A move that takes longer than
/// estimated times out and is backed off by the scheduler, as before.

#include <cstdint>
#include <string>

#include "goals/cluster_model.h"
#include "goals/planner_types.h"

namespace ballast::goals {

/// Producers are assumed to write this much faster than measured while a
/// copy runs. Why 10%: the measured rate is an average over one metrics
/// interval, and traffic moves (steps, ramps, bursts) while a copy of
/// minutes runs; within 10% of the throttle the copy gains on the log at
/// under a tenth of the throttle, and a burst that size stalls it, so such
/// a move is likelier to hang until it times out than to finish.
inline constexpr double produce_headroom = 1.1;

enum class CopyVerdict : uint8_t {
    fits,              // copies nothing (automq), no throttle known, or expected in time
    never_catches_up,  // bytes_in x produce_headroom >= throttle
    too_slow,          // catches up, but later than copy_time_max_ms
};

struct CopyEstimate {
    CopyVerdict verdict = CopyVerdict::fits;
    /// The expected copy time (fits with a throttle, too_slow); 0 otherwise.
    double expected_ms = 0;
};

/// Pure arithmetic on the partition's last known load; cheap enough to run
/// once per partition per plan.
CopyEstimate estimate_copy(const Partition& partition, const PlannerConfig& config);

/// Why a partition that `estimate` refuses cannot move, for
/// `Unfixable::reason` (the finding names the partition): its produce rate,
/// the throttle and the key that sets it; for too_slow also its size, the
/// expected copy time and the timeout. Numbers are rounded to two significant
/// digits, so the reason (journaled when it changes) does not change with
/// every metrics report. Precondition: estimate.verdict != fits.
std::string copy_refusal(const Partition& partition, const PlannerConfig& config, const CopyEstimate& estimate);

}  // namespace ballast::goals
