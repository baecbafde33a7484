#pragma once

/// The rules a typed event must meet before it is journaled: what `verify`
/// demands of bytes read back (a known source, command and action kinds, a
/// partition sample's topic index inside its report), and what no reader may
/// have to cope with: numbers that are not finite or are negative where only
/// a count or a rate makes sense, broker ids and partitions out of range,
/// empty or overlong names, topic ids that are not 16 bytes. An event that
/// fails is refused before it is written, so one bad input can never make a
/// journal that does not open again.
///
/// Events already in a journal are not held to these rules on the way out:
/// the journal reads what it wrote, and an old journal stays readable.

#include <string>

#include "events/event.h"
#include "events/result.h"

namespace ballast::events {

/// Kafka's longest topic name.
inline constexpr size_t topic_name_bytes_max = 249;

/// Ok, or an `invalid_argument` error naming the event (type and source), the
/// field (with its index inside a list) and the value:
///   "partition_metrics from kafka_metrics: samples[3].topic_index is 7, past its 2 topics"
Status check(const Event& event);

/// `check` for each event of a batch; the error names the event's index
/// ("event 12 of 40: ...").
Status check_batch(std::span<const Event> batch);

}  // namespace ballast::events
