#pragma once

/// Partition samples as the journal keeps them: rounded, and stored in a
/// compact record of their own. Private to store/.
///
/// Why: metrics are most of a journal. At 100,000 partitions sampled every
/// 10 s that is 864 million samples a day; as flatbuffers (40 bytes a
/// sample, more with the vector's framing) a day is tens of GB. Two things
/// make a sample small:
///
/// - Rounding. Every rate and size of a sample is kept to 11 significant
///   bits (a relative error of at most 2^-11, under 0.05%): a broker's load
///   is balanced within bands of several percent, and a sample is noisier
///   than that to begin with. `Journal::append` rounds the samples of each
///   `PartitionMetrics` in place before it writes them, so the event the
///   engine acts on is the event the journal holds, and a replay decides
///   exactly as the live run did. Rounding a rounded value changes nothing,
///   so importing an exported journal keeps it as it was.
/// - A record of about 9 bytes a sample before RocksDB's block compression
///   (7.5 on disk after it, bench/README.md): each value a 16-bit code
///   (exponent and mantissa; the other three as their difference from bytes
///   in's), stored column by column with the high bytes of a column
///   together and then its low bytes (the high bytes of neighbouring
///   partitions are often alike, which the compression finds), each
///   partition id as its difference from the one before, and the report's
///   topic names front-coded.
///
/// A value the codes cannot hold exactly (nonzero and outside [2^-14,
/// 2^49): a rate under about 6e-5 a second, a rate or size of 512 TiB or
/// more) is left as it is, and its report is stored as its flatbuffer, as
/// every other event is.
///
/// The compact record's payload (after the record's CRC32C, like any
/// record):
///
///   u32 0xFFFFFFFF     marker: never a flatbuffer's size prefix (< 2 GiB)
///   u8  format         1
///   varint seq, zigzag time_ms, u8 source, zigzag broker_id, zigzag sample_time_ms
///   varint topic count, then each topic name front-coded: varint bytes
///       shared with the name before, varint length of the rest, the rest
///   varint topic run count, then each run: varint topic index, varint
///       count << 1 | ascending (consecutive samples of one topic, in
///       order; ascending: each partition above the one before)
///   each run's partitions: the first as a varint, each next as a varint of
///       its difference from the one before, less one when the run is
///       ascending, zigzag when not
///   4 columns of codes (bytes in, then bytes out, messages in and size as
///       their code less bytes in's, modulo 2^16), each as n high bytes
///       then n low bytes
///
/// The reader turns the record back into the event's flatbuffer and checks
/// it like any other (journal_record.cc, check_event_record).

#include <cstdint>
#include <span>
#include <string>

#include "events/event.h"
#include "events/result.h"

namespace ballast::store {

/// The rounding: 11 significant bits for a value in [2^-14, 2^49), the
/// value itself otherwise (0, smaller, larger, not finite). -0 becomes 0.
double round_sample_value(double value);
/// The same for a size in whole bytes; a rounded size is still whole.
uint64_t round_sample_size(uint64_t bytes);
/// Rounds every sample of `metrics` in place.
void round_samples(events::PartitionMetrics& metrics);

/// The compact record of `event` into `out` (cleared first); false when the
/// event is not a PartitionMetrics or a value of it has no exact code (the
/// caller then writes its flatbuffer). The event's seq must be assigned.
bool encode_compact_samples(const events::Event& event, std::string* out);

/// The payload to store for an event's verified flatbuffer: its compact
/// record when it has one (in `scratch`), else the flatbuffer itself. For
/// writers that copy checked events (repair, import): values are not
/// rounded here, so an event that was never rounded stays as it is.
std::span<const uint8_t> stored_payload(std::span<const uint8_t> event_bytes, std::string* scratch);

/// Whether a record's payload is a compact samples record (its marker).
bool is_compact_samples(std::span<const uint8_t> payload);

/// The event a compact payload holds. An error names what does not hold
/// (a length past the end, an index out of range, a code no value has,
/// bytes left over); `what` starts it ("journal record seq 42").
events::Status decode_compact_samples(std::span<const uint8_t> payload, const std::string& what,
                                      events::Event* out);

}  // namespace ballast::store
