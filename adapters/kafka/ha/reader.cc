#include "adapters/kafka/ha/reader.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include <spdlog/spdlog.h>

#include "adapters/kafka/ha/rdkafka.h"
#include "adapters/kafka/ha/snapshot_chunk.h"

namespace ballast::kafka::ha {

using events::ErrorCode;
using events::make_error;
using detail::CommittedReader;
using Item = detail::CommittedReader::Item;

namespace {

/// The snapshots topic is read back from its end in windows this many
/// offsets wide at first, four times wider each time.
constexpr int64_t snapshot_window_first = 16;
constexpr int64_t snapshot_window_growth = 4;

/// A reader used for one call stops fetching when the call returns.
class StopAfter {
public:
    explicit StopAfter(CommittedReader& reader) : _reader(reader) {}
    ~StopAfter() { _reader.stop(); }
    StopAfter(const StopAfter&) = delete;
    StopAfter& operator=(const StopAfter&) = delete;

private:
    CommittedReader& _reader;
};

/// A committed message's offset, time and run, moved out of `got`
/// (`Committed` is the reader's private record of one).
template <typename Committed>
Committed take_committed(Item& got) {
    Committed committed;
    committed.offset = got.offset;
    committed.timestamp_ms = got.timestamp_ms;
    committed.run.key = std::move(got.key);
    committed.run.value = std::move(got.value);
    return committed;
}

/// Reads [from, before) of `reader`'s partition (the log's end read back
/// window by window), handing each committed message to `each`. `what`
/// names the reader in the error when neither a message nor the end comes
/// within a call's timeout.
events::Status read_window(CommittedReader& reader, int64_t from, int64_t before, const std::string& what,
                           const std::function<void(Item&)>& each) {
    if (events::Status started = reader.start_at(from); !started) return started;
    for (;;) {
        events::Result<std::optional<Item>> item = reader.next(reader.call_timeout_ms());
        if (!item) return item.error();
        if (!item->has_value()) {
            return make_error(ErrorCode::io_error, what + ": neither a message nor the end of " + reader.where() +
                                                       " came from offset " + std::to_string(from) + " within " +
                                                       std::to_string(reader.call_timeout_ms()) + " ms " +
                                                       reader.brokers());
        }
        Item& got = **item;
        if (got.kind == Item::Kind::end || got.offset >= before) return {};
        each(got);
    }
}

}  // namespace

events::Result<std::unique_ptr<KafkaJournalReader>> KafkaJournalReader::create(KafkaJournalReaderOptions options) {
    if (options.journal_topic.empty() || options.snapshots_topic.empty() || options.reader_group.empty() ||
        options.instance_id.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "the journal's reader needs both topics, a reader group and an instance id");
    }
    if (options.read_runs_max == 0 || options.read_bytes_max == 0) {
        return make_error(ErrorCode::invalid_argument, "the journal's reader: a read's bounds must be positive");
    }
    std::unique_ptr<KafkaJournalReader> reader(new KafkaJournalReader(std::move(options)));
    const KafkaJournalReaderOptions& o = reader->_options;
    const detail::Connection connection{o.bootstrap_servers, o.instance_id, o.call_timeout_ms, o.client_settings};
    // The follower: a standby sees a commit within ~50 ms of it, and
    // fetches ahead up to 32 MiB (runs are up to ~1 MiB).
    CommittedReader::Fetching following;
    following.wait_max_ms = 50;
    // The probes want one message each, soon: small fetches, not held.
    CommittedReader::Fetching probing;
    probing.wait_max_ms = 5;
    probing.partition_bytes_max = 64 << 10;
    probing.queued_kbytes_max = 1 << 10;
    // The snapshots' reader reads windows of 1 MiB parts, then stops.
    CommittedReader::Fetching windows;
    windows.wait_max_ms = 5;
    events::Result<std::unique_ptr<CommittedReader>> follower =
        CommittedReader::create(connection, o.journal_topic, o.reader_group, "the journal's reader", following);
    if (!follower) return follower.error();
    events::Result<std::unique_ptr<CommittedReader>> probe =
        CommittedReader::create(connection, o.journal_topic, o.reader_group, "the journal's search", probing);
    if (!probe) return probe.error();
    events::Result<std::unique_ptr<CommittedReader>> snapshots =
        CommittedReader::create(connection, o.snapshots_topic, o.reader_group, "the snapshots' reader", windows);
    if (!snapshots) return snapshots.error();
    reader->_reader = std::move(*follower);
    reader->_probe = std::move(*probe);
    reader->_snapshots = std::move(*snapshots);
    return reader;
}

KafkaJournalReader::KafkaJournalReader(KafkaJournalReaderOptions options) : _options(std::move(options)) {}

KafkaJournalReader::~KafkaJournalReader() = default;

events::Status KafkaJournalReader::check_run(const Committed& message) const {
    events::Result<std::pair<uint64_t, uint64_t>> bounds = store::shipped_run_bounds(message.run);
    if (!bounds) {
        return make_error(ErrorCode::corruption, "topic " + _options.journal_topic + " partition 0 offset " +
                                                     std::to_string(message.offset) + ": " + bounds.error().message);
    }
    return {};
}

events::Result<std::optional<KafkaJournalReader::Committed>> KafkaJournalReader::first_committed(int64_t from,
                                                                                                   int64_t before) {
    if (events::Status started = _probe->start_at(from); !started) return started.error();
    events::Result<std::optional<Item>> item = _probe->next(_probe->call_timeout_ms());
    if (!item) return item.error();
    if (!item->has_value()) {
        return make_error(ErrorCode::io_error, "the journal's search: neither a message nor the end of " +
                                                   _probe->where() + " came from offset " + std::to_string(from) +
                                                   " within " + std::to_string(_probe->call_timeout_ms()) + " ms " +
                                                   _probe->brokers());
    }
    Item& got = **item;
    if (got.kind == Item::Kind::end || got.offset >= before) return std::optional<Committed>();
    return std::optional<Committed>(take_committed<Committed>(got));
}

events::Status KafkaJournalReader::seek_after(uint64_t seq) {
    const StopAfter stop(*_probe);
    events::Result<CommittedReader::Bounds> bounds = _probe->bounds();
    if (!bounds) return bounds.error();
    // Every committed run before `low` ends at or before seq; reading from
    // `high` returns first the first committed run that ends after it (or
    // everything committed later). Each probe halves [low, high).
    int64_t low = bounds->log_start;
    int64_t high = bounds->stable_end;
    int probes = 0;
    while (low < high) {
        const int64_t middle = low + (high - low) / 2;
        events::Result<std::optional<Committed>> found = first_committed(middle, high);
        probes++;
        if (!found) return found.error();
        if (!found->has_value()) {
            high = middle;  // nothing committed in [middle, high): reading from middle is reading from high
            continue;
        }
        const Committed& message = **found;
        if (events::Status run = check_run(message); !run) return run;
        const uint64_t last = store::shipped_run_bounds(message.run)->second;
        if (last > seq) {
            high = middle;  // the first committed at or after middle is this one
        } else {
            low = message.offset + 1;
        }
    }
    if (events::Status started = _reader->start_at(high); !started) return started;
    _positioned = true;
    _next = high;
    _end_seen = -1;
    _held.clear();
    spdlog::debug("{}: the journal's reader: after seq {} is offset {} of {} (log {}..{}, {} probes)",
                  _options.instance_id, seq, high, _reader->where(), bounds->log_start, bounds->stable_end, probes);
    return {};
}

events::Result<std::optional<KafkaJournalReader::Committed>> KafkaJournalReader::next_run(int64_t timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        events::Result<std::optional<Item>> item = _reader->next(detail::ms_until(deadline));
        if (!item) return item.error();
        if (!item->has_value()) return std::optional<Committed>();
        Item& got = **item;
        if (got.kind == Item::Kind::end) {
            _end_seen = std::max(_end_seen, got.offset);
            continue;
        }
        return std::optional<Committed>(take_committed<Committed>(got));
    }
}

events::Result<std::vector<store::ShippedRun>> KafkaJournalReader::read(int64_t timeout_ms) {
    if (!_positioned) {
        return make_error(ErrorCode::conflict, "the journal's reader: read before seek_after");
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0));
    std::vector<store::ShippedRun> out;
    size_t bytes = 0;
    while (out.size() < _options.read_runs_max) {
        std::optional<Committed> message;
        if (!_held.empty()) {
            message = std::move(_held.front());
            _held.pop_front();
        } else {
            // Waits for the first run only; then takes what has arrived.
            events::Result<std::optional<Committed>> got = next_run(out.empty() ? detail::ms_until(deadline) : 0);
            if (!got) {
                if (out.empty()) return got.error();
                break;  // the error comes again at the next read
            }
            if (!got->has_value()) break;
            message = std::move(**got);
        }
        if (message->offset < _next) continue;  // returned already
        if (events::Status run = check_run(*message); !run) {
            // Kept, so that every read stops there: skipping it would lose
            // whatever seqs it held.
            _held.push_front(std::move(*message));
            if (out.empty()) return run.error();
            break;
        }
        const size_t size = message->run.key.size() + message->run.value.size();
        if (!out.empty() && bytes + size > _options.read_bytes_max) {
            _held.push_front(std::move(*message));
            break;
        }
        bytes += size;
        _next = message->offset + 1;
        _read_timestamp_ms = message->timestamp_ms;
        out.push_back(std::move(message->run));
    }
    return out;
}

events::Result<bool> KafkaJournalReader::caught_up() {
    if (!_positioned) {
        return make_error(ErrorCode::conflict, "the journal's reader: caught_up before seek_after");
    }
    if (!_held.empty()) return false;
    events::Result<CommittedReader::Bounds> bounds = _reader->bounds();
    if (!bounds) return bounds.error();
    const int64_t stable_end = bounds->stable_end;
    if (stable_end < _next) {
        // Committed offsets never go back: the topic is not the one read.
        return make_error(ErrorCode::conflict,
                          "the journal's reader: " + _reader->where() + " ends at offset " +
                              std::to_string(stable_end) + ", before offset " + std::to_string(_next) +
                              " that this instance has read up to: the topic was deleted and created again, or "
                              "lost committed messages (an unclean leader election). This instance's journal "
                              "holds events the topic does not, and it follows no further. Keep the journal of "
                              "the instance that led last: run it alone until it has published a snapshot "
                              "(its log says so), then start the others with their journals moved aside, so "
                              "that they start from that snapshot");
    }
    if (_next >= stable_end || _end_seen >= stable_end) return true;
    // Between the position and the LSO: committed messages not read yet, or
    // only markers and aborted messages. The fetcher tells which.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(_options.caught_up_wait_ms);
    for (;;) {
        events::Result<std::optional<Item>> item = _reader->next(detail::ms_until(deadline));
        if (!item) return item.error();
        if (!item->has_value()) return false;
        Item& got = **item;
        if (got.kind == Item::Kind::end) {
            _end_seen = std::max(_end_seen, got.offset);
            if (_end_seen >= stable_end) return true;
            continue;
        }
        if (got.offset < _next) continue;
        _held.push_back(take_committed<Committed>(got));
        return false;
    }
}

events::Result<JournalLag> KafkaJournalReader::lag(uint64_t applied_seq) {
    events::Result<bool> done = caught_up();
    if (!done) return done.error();
    JournalLag lag;
    if (*done) return lag;
    const StopAfter stop(*_probe);
    events::Result<CommittedReader::Bounds> bounds = _probe->bounds();
    if (!bounds) return bounds.error();
    // The newest committed run is the last message before the LSO; commit
    // markers and aborted messages may stand between, so the log's end is
    // read back in windows of 4, 16, 64, ... offsets, never before the
    // reader's position.
    const int64_t floor = std::max(_next, bounds->log_start);
    std::optional<Committed> newest;
    int64_t covered_from = bounds->stable_end;
    int64_t window = 4;
    while (!newest && covered_from > floor) {
        const int64_t from = std::max(floor, covered_from - window);
        events::Status read = read_window(*_probe, from, covered_from, "the journal's lag", [&](Item& got) {
            newest = take_committed<Committed>(got);
        });
        if (!read) return read.error();
        covered_from = from;
        window = std::min<int64_t>(window * 4, int64_t{1} << 60);
    }
    // Only markers and aborted messages past the position: nothing to read.
    if (!newest) return lag;
    if (events::Status run = check_run(*newest); !run) return run.error();
    lag.caught_up = false;
    lag.newest_seq = store::shipped_run_bounds(newest->run)->second;
    lag.records = lag.newest_seq > applied_seq ? lag.newest_seq - applied_seq : 0;
    // A reader that has read nothing yet is behind since the first run it
    // has to read.
    int64_t since_ms = _read_timestamp_ms;
    if (since_ms < 0) {
        events::Result<std::optional<Committed>> first = first_committed(floor, bounds->stable_end);
        if (!first) return first.error();
        since_ms = first->has_value() ? (*first)->timestamp_ms : newest->timestamp_ms;
    }
    lag.ms = newest->timestamp_ms >= 0 && since_ms >= 0 ? std::max<int64_t>(0, newest->timestamp_ms - since_ms) : -1;
    return lag;
}

events::Result<uint64_t> KafkaJournalReader::first_seq() {
    const StopAfter stop(*_probe);
    events::Result<CommittedReader::Bounds> bounds = _probe->bounds();
    if (!bounds) return bounds.error();
    if (bounds->log_start >= bounds->stable_end) return uint64_t{0};
    events::Result<std::optional<Committed>> found = first_committed(bounds->log_start, bounds->stable_end);
    if (!found) return found.error();
    if (!found->has_value()) return uint64_t{0};
    if (events::Status run = check_run(**found); !run) return run.error();
    return store::shipped_run_bounds((*found)->run)->first;
}

events::Result<std::optional<store::Snapshot>> KafkaJournalReader::newest_snapshot() {
    const StopAfter stop(*_snapshots);
    events::Result<CommittedReader::Bounds> bounds = _snapshots->bounds();
    if (!bounds) return bounds.error();
    const int64_t log_start = bounds->log_start;
    SnapshotAssembly assembly;
    int64_t covered_from = bounds->stable_end;  // [covered_from, stable_end) is read
    int64_t window = snapshot_window_first;
    while (covered_from > log_start) {
        const int64_t from = std::max(log_start, covered_from - window);
        events::Status read = read_window(*_snapshots, from, covered_from, "the snapshots' reader", [&](Item& got) {
            events::Result<SnapshotChunk> chunk = decode_snapshot_chunk(got.key, got.value);
            if (!chunk) {
                spdlog::warn("{}: {} offset {}: skipped: {}", _options.instance_id, _snapshots->where(), got.offset,
                             chunk.error().message);
                assembly.add_bad(got.offset);
                return;
            }
            assembly.add(got.offset, std::move(*chunk));
        });
        if (!read) return read.error();
        covered_from = from;
        if (std::optional<store::Snapshot> snapshot = assembly.newest_complete()) {
            spdlog::debug("{}: the newest snapshot on {} is at seq {} ({} bytes; offsets {}..{} read)",
                          _options.instance_id, _snapshots->where(), snapshot->seq, snapshot->bytes.size(),
                          covered_from, bounds->stable_end);
            return std::optional<store::Snapshot>(std::move(*snapshot));
        }
        assembly.drop_unfinishable();
        window = std::min<int64_t>(window * snapshot_window_growth, int64_t{1} << 60);
    }
    return std::optional<store::Snapshot>();
}

}  // namespace ballast::kafka::ha
