/// Snapshot layout (version 4), all integers little-endian:
///
///   "BLSNAP" u32 version u64 seq
///   router memory, config text, topics, partition records, broker records,
///   executor view (each action as a one-action ActionsPlanned event, so it is
///   encoded and verified by events/; then, from version 2, the move backoff
///   per partition slot), scheduler memory, then "END!". Version 1 snapshots
///   read with no backoff; versions before 3 with empty load windows (a
///   partition record's window: a mask of the slices in use, the slice width,
///   the newest slice, then each slice in use); before 4 with brokers never
///   fenced (a broker record ends with its last fence times from 4).
///
/// Strings and vectors carry a u32 count first. Every count is checked
/// against the bytes left before anything is allocated.

#include "actors/engine_snapshot.h"

#include <cstring>

namespace ballast::actors {

namespace {

constexpr char magic[6] = {'B', 'L', 'S', 'N', 'A', 'P'};
constexpr char trailer[4] = {'E', 'N', 'D', '!'};
constexpr uint32_t version = 4;
constexpr uint32_t version_oldest_read = 1;

/// Collects the encoded bytes: all of them (take), or, with a sink, hands
/// them over whenever `flush_bytes` have gathered.
class Writer {
public:
    Writer() = default;
    Writer(const SnapshotSink& sink, size_t flush_bytes) : _sink(&sink), _flush_bytes(flush_bytes) {}

    template <class T>
    void raw(T value) {
        static_assert(std::is_trivially_copyable_v<T>);
        char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof(T));  // x86-64 and ARM64 are little-endian
        _out.append(bytes, sizeof(T));
    }
    void str(const std::string& s) {
        raw<uint32_t>(static_cast<uint32_t>(s.size()));
        _out += s;
    }
    void bytes(const void* data, size_t size) { _out.append(static_cast<const char*>(data), size); }
    /// Room for `size` bytes, unless they go to a sink in pieces.
    void reserve(size_t size) {
        if (!_sink) _out.reserve(size);
    }
    std::string take() { return std::move(_out); }

    void maybe_flush() {
        if (_sink && _out.size() >= _flush_bytes) flush();
    }
    /// The rest to the sink; the first error the sink gave, if any.
    events::Status finish() {
        if (_sink) flush();
        return _status;
    }

private:
    void flush() {
        if (_status.ok() && !_out.empty()) _status = (*_sink)(_out);
        _out.clear();
    }

    std::string _out;
    const SnapshotSink* _sink = nullptr;
    size_t _flush_bytes = 0;
    events::Status _status;
};

class Reader {
public:
    explicit Reader(std::string_view in) : _in(in) {}

    template <class T>
    bool raw(T* value) {
        if (_in.size() - _offset < sizeof(T)) return fail("value");
        std::memcpy(value, _in.data() + _offset, sizeof(T));
        _offset += sizeof(T);
        return true;
    }
    bool str(std::string* s) {
        uint32_t size = 0;
        if (!raw(&size) || _in.size() - _offset < size) return fail("string");
        s->assign(_in.data() + _offset, size);
        _offset += size;
        return true;
    }
    /// A count of items of at least `item_size` bytes each.
    bool count(uint32_t* n, size_t item_size) {
        if (!raw(n) || static_cast<uint64_t>(*n) * item_size > _in.size() - _offset) {
            return fail("count");
        }
        return true;
    }
    bool expect(const char* text, size_t size) {
        if (_in.size() - _offset < size || std::memcmp(_in.data() + _offset, text, size) != 0) {
            return fail("marker");
        }
        _offset += size;
        return true;
    }
    bool fail(const char* what) {
        if (_error.empty()) _error = std::string(what) + " at offset " + std::to_string(_offset);
        return false;
    }
    const std::string& error() const { return _error; }
    size_t offset() const { return _offset; }
    bool at_end() const { return _offset == _in.size(); }

private:
    std::string_view _in;
    size_t _offset = 0;
    std::string _error;
};

void write_action(Writer& w, const events::Action& action) {
    events::Event wrapper{0, 0, events::Source::engine, events::ActionsPlanned{0, 0, {action}, {}, {}, {}, {}}};
    const std::vector<uint8_t> bytes = events::encode(wrapper);
    w.raw<uint32_t>(static_cast<uint32_t>(bytes.size()));
    w.bytes(bytes.data(), bytes.size());
}

bool read_action(Reader& r, std::string_view in, events::Action* action, std::string* error) {
    uint32_t size = 0;
    if (!r.count(&size, 1)) return false;
    // Copy into 8-byte aligned memory for the verifier.
    std::vector<uint64_t> aligned((size + 7) / 8);
    if (size > 0) std::memcpy(aligned.data(), in.data() + r.offset(), size);  // data() is null when empty
    for (uint32_t i = 0; i < size; i++) {
        char skip;
        r.raw(&skip);
    }
    events::Result<events::Event> event =
        events::decode({reinterpret_cast<const uint8_t*>(aligned.data()), size});
    const auto* planned = event ? std::get_if<events::ActionsPlanned>(&event->body) : nullptr;
    if (!planned || planned->actions.size() != 1) {
        *error = "in-flight action: " + (event ? std::string("not one action") : event.error().message);
        return false;
    }
    *action = planned->actions.front();
    return true;
}

void write_partition(Writer& w, const PartitionRecord& p) {
    // Field by field: a struct's padding bytes are not part of its value.
    w.raw(p.topic);
    w.raw(p.partition);
    w.raw(p.leader);
    w.raw(p.replica_count);
    w.raw(p.isr_count);
    w.raw<uint8_t>(p.exists);
    for (const int32_t id : p.replicas) w.raw(id);
    for (const int32_t id : p.isr) w.raw(id);
    w.raw(p.reporting_broker);
    w.raw(p.bytes_in_per_s);
    w.raw(p.bytes_out_per_s);
    w.raw(p.messages_in_per_s);
    w.raw(p.size_bytes);
    w.raw(p.metrics_time_ms);
    w.raw(p.last_moved_ms);
    w.raw(p.applied_seq);
    w.raw(p.left_broker);  // version 2
    w.raw(p.left_ms);
    w.raw(p.left_leader);
    w.raw(p.left_leader_ms);
    // version 3: the load window, only the slices in use (none without a window)
    uint8_t used = 0;
    for (uint32_t i = 0; i < LoadWindow::buckets; i++) used |= static_cast<uint8_t>((p.window.count[i] > 0) << i);
    static_assert(LoadWindow::buckets <= 8);
    w.raw(used);
    w.raw(p.window.bucket_ms);
    w.raw(p.window.newest);
    for (uint32_t i = 0; i < LoadWindow::buckets; i++) {
        if (!(used & (1u << i))) continue;
        w.raw(p.window.bucket[i]);
        w.raw(p.window.bytes_in_per_s[i]);
        w.raw(p.window.bytes_out_per_s[i]);
        w.raw(p.window.count[i]);
    }
}

/// The bytes one partition record takes, for bounding counts.
constexpr size_t partition_bytes = 4 * 3 + 3 + 4 * 2 * replicas_max + 4 + 8 * 7;  // version 1

bool read_partition(Reader& r, PartitionRecord* p, uint32_t found_version) {
    uint8_t exists = 0;
    bool ok = r.raw(&p->topic) && r.raw(&p->partition) && r.raw(&p->leader) &&
              r.raw(&p->replica_count) && r.raw(&p->isr_count) && r.raw(&exists);
    for (int32_t& id : p->replicas) ok = ok && r.raw(&id);
    for (int32_t& id : p->isr) ok = ok && r.raw(&id);
    ok = ok && r.raw(&p->reporting_broker) && r.raw(&p->bytes_in_per_s) &&
         r.raw(&p->bytes_out_per_s) && r.raw(&p->messages_in_per_s) && r.raw(&p->size_bytes) &&
         r.raw(&p->metrics_time_ms) && r.raw(&p->last_moved_ms) && r.raw(&p->applied_seq);
    if (found_version >= 2) {
        ok = ok && r.raw(&p->left_broker) && r.raw(&p->left_ms) && r.raw(&p->left_leader) && r.raw(&p->left_leader_ms);
    }
    if (found_version >= 3) {
        uint8_t used = 0;
        ok = ok && r.raw(&used) && r.raw(&p->window.bucket_ms) && r.raw(&p->window.newest) &&
             p->window.newest < LoadWindow::buckets;
        for (uint32_t i = 0; ok && i < LoadWindow::buckets; i++) {
            if (!(used & (1u << i))) continue;
            ok = r.raw(&p->window.bucket[i]) && r.raw(&p->window.bytes_in_per_s[i]) &&
                 r.raw(&p->window.bytes_out_per_s[i]) && r.raw(&p->window.count[i]) && p->window.count[i] > 0;
        }
    }
    p->exists = exists != 0;
    return ok;
}

void write_sample(Writer& w, const events::BrokerSample& s) {
    w.raw(s.broker_id);
    w.raw(s.bytes_in_per_s);
    w.raw(s.bytes_out_per_s);
    w.raw(s.messages_in_per_s);
    w.raw(s.size_bytes);
}

bool read_sample(Reader& r, events::BrokerSample* s) {
    return r.raw(&s->broker_id) && r.raw(&s->bytes_in_per_s) && r.raw(&s->bytes_out_per_s) &&
           r.raw(&s->messages_in_per_s) && r.raw(&s->size_bytes);
}

}  // namespace

namespace {

void encode_into(Writer& w, const EngineSnapshot& s) {
    w.bytes(magic, sizeof magic);
    w.raw(version);
    w.raw(s.seq);

    const RouterMemory& m = s.router;
    w.raw(m.now_ms);
    w.raw(m.last_plan_ms);
    w.raw<uint8_t>(m.brokers_changed);
    w.raw(m.replan_at_ms);
    w.raw(m.last_seq);
    w.raw(m.last_snapshot_seq);
    w.raw<uint8_t>(m.more_to_do);
    w.raw<uint8_t>(m.held_last_round);

    w.str(s.config_properties);
    w.raw<uint32_t>(static_cast<uint32_t>(s.topics.size()));
    for (const std::string& topic : s.topics) w.str(topic);

    // Room for the partitions at once (a record encodes in fewer bytes than
    // it takes in memory): at 1M partitions growing the string by doubling
    // would copy and fault in hundreds of MB more while the stream runs.
    w.reserve(s.partitions.size() * sizeof(PartitionRecord) + (1u << 20));
    w.raw<uint32_t>(static_cast<uint32_t>(s.partitions.size()));
    for (const PartitionRecord& p : s.partitions) {
        write_partition(w, p);
        w.maybe_flush();
    }

    w.raw<uint32_t>(static_cast<uint32_t>(s.brokers.size()));
    for (const BrokerRecord& b : s.brokers) {
        w.raw(b.id);
        w.str(b.rack);
        w.raw(static_cast<uint8_t>(b.liveness));
        w.raw(b.liveness_changed_ms);
        w.raw(b.metrics_time_ms);
        w.raw<uint8_t>(b.registered);
        write_sample(w, b.sample);
        w.raw(b.applied_seq);
        for (const int64_t at : b.fenced_ms) w.raw(at);  // version 4
    }

    const ExecutorView& e = s.executor;
    w.raw(e.last_batch_ms);
    w.raw<uint8_t>(e.leading);
    w.raw<uint32_t>(static_cast<uint32_t>(e.inflight.size()));
    for (const TrackedAction& t : e.inflight) {
        write_action(w, t.action);
        w.raw<uint32_t>(static_cast<uint32_t>(t.partition_slots.size()));
        for (const uint32_t slot : t.partition_slots) w.raw(slot);
        w.raw(t.attempt);
        w.raw(t.started_ms);
        w.raw(t.next_retry_ms);
    }
    w.raw<uint32_t>(static_cast<uint32_t>(e.backoff.size()));
    for (const auto& [slot, b] : e.backoff) {
        w.raw(slot);
        w.raw(b.failures);
        w.raw(b.last_failed_ms);
    }

    const SchedulerMemory& sc = s.scheduler;
    w.raw(sc.round);
    w.raw(sc.next_action_id);
    w.raw<uint8_t>(sc.paused);
    w.raw<uint32_t>(static_cast<uint32_t>(sc.operator_excluded_brokers.size()));
    for (const int32_t id : sc.operator_excluded_brokers) w.raw(id);
    w.raw<uint32_t>(static_cast<uint32_t>(sc.operator_excluded_topics.size()));
    for (const std::string& topic : sc.operator_excluded_topics) w.str(topic);
    w.raw<uint32_t>(static_cast<uint32_t>(sc.draining_brokers.size()));
    for (const int32_t id : sc.draining_brokers) w.raw(id);
    w.raw<uint32_t>(static_cast<uint32_t>(sc.unfixable.size()));
    for (const std::string& line : sc.unfixable) w.str(line);
    w.raw<uint32_t>(static_cast<uint32_t>(sc.broker_notes.size()));  // version 4
    for (const std::string& line : sc.broker_notes) w.str(line);

    w.bytes(trailer, sizeof trailer);
}

}  // namespace

std::string encode_snapshot(const EngineSnapshot& s) {
    Writer w;
    encode_into(w, s);
    return w.take();
}

events::Status encode_snapshot(const EngineSnapshot& s, const SnapshotSink& sink) {
    Writer w(sink, snapshot_piece_bytes);
    encode_into(w, s);
    return w.finish();
}

events::Result<EngineSnapshot> decode_snapshot(std::string_view bytes) {
    Reader r(bytes);
    EngineSnapshot s;
    auto failed = [&](const std::string& what) {
        return events::make_error(events::ErrorCode::corruption,
                                  "engine snapshot: cannot read " +
                                      (what.empty() ? r.error() : what));
    };
    uint32_t found_version = 0;
    if (!r.expect(magic, sizeof magic)) return failed("its header (not an engine snapshot)");
    if (!r.raw(&found_version)) return failed("");
    if (found_version < version_oldest_read || found_version > version) {
        return events::make_error(events::ErrorCode::unsupported,
                                  "engine snapshot version " + std::to_string(found_version) +
                                      " (this build reads versions " + std::to_string(version_oldest_read) +
                                      " to " + std::to_string(version) + ")");
    }
    uint8_t flag = 0;
    RouterMemory& m = s.router;
    if (!r.raw(&s.seq) || !r.raw(&m.now_ms) || !r.raw(&m.last_plan_ms) || !r.raw(&flag) ||
        !r.raw(&m.replan_at_ms) || !r.raw(&m.last_seq) || !r.raw(&m.last_snapshot_seq)) {
        return failed("");
    }
    m.brokers_changed = flag != 0;
    if (!r.raw(&flag)) return failed("");
    m.more_to_do = flag != 0;
    if (!r.raw(&flag)) return failed("");
    m.held_last_round = flag != 0;
    if (!r.str(&s.config_properties)) return failed("");

    uint32_t n = 0;
    if (!r.count(&n, 4)) return failed("");
    s.topics.resize(n);
    for (std::string& topic : s.topics) {
        if (!r.str(&topic)) return failed("");
    }
    if (!r.count(&n, partition_bytes)) return failed("");
    s.partitions.resize(n);
    for (PartitionRecord& p : s.partitions) {
        if (!read_partition(r, &p, found_version)) return failed("");
        if (p.replica_count > replicas_max || p.isr_count > replicas_max || p.topic >= s.topics.size()) {
            return failed("partition record at offset " + std::to_string(r.offset()) +
                          ": counts or topic out of range");
        }
    }
    if (!r.count(&n, 8)) return failed("");
    s.brokers.resize(n);
    for (BrokerRecord& b : s.brokers) {
        uint8_t liveness = 0;
        uint8_t registered = 0;
        if (!r.raw(&b.id) || !r.str(&b.rack) || !r.raw(&liveness) ||
            !r.raw(&b.liveness_changed_ms) || !r.raw(&b.metrics_time_ms) || !r.raw(&registered) ||
            !read_sample(r, &b.sample) || !r.raw(&b.applied_seq)) {
            return failed("");
        }
        if (found_version >= 4) {
            for (int64_t& at : b.fenced_ms) {
                if (!r.raw(&at)) return failed("");
            }
        }
        if (liveness > static_cast<uint8_t>(goals::Liveness::gone)) return failed("broker liveness");
        b.liveness = static_cast<goals::Liveness>(liveness);
        b.registered = registered != 0;
    }

    ExecutorView& e = s.executor;
    if (!r.raw(&e.last_batch_ms) || !r.raw(&flag) || !r.count(&n, 4)) return failed("");
    e.leading = flag != 0;
    e.inflight.resize(n);
    for (TrackedAction& t : e.inflight) {
        std::string error;
        if (!read_action(r, bytes, &t.action, &error)) return failed(error);
        uint32_t slots = 0;
        if (!r.count(&slots, 4)) return failed("");
        t.partition_slots.resize(slots);
        for (uint32_t& slot : t.partition_slots) {
            if (!r.raw(&slot)) return failed("");
        }
        if (!r.raw(&t.attempt) || !r.raw(&t.started_ms) || !r.raw(&t.next_retry_ms)) return failed("");
    }
    e.now_ms = m.now_ms;  // the same Ticks advance both clocks
    if (found_version >= 2) {
        if (!r.count(&n, 16)) return failed("");
        for (uint32_t i = 0; i < n; i++) {
            uint32_t slot = 0;
            MoveBackoff b;
            if (!r.raw(&slot) || !r.raw(&b.failures) || !r.raw(&b.last_failed_ms)) return failed("");
            e.backoff[slot] = b;
        }
    }

    SchedulerMemory& sc = s.scheduler;
    if (!r.raw(&sc.round) || !r.raw(&sc.next_action_id) || !r.raw(&flag)) return failed("");
    sc.paused = flag != 0;
    int32_t id = 0;
    std::string topic;
    if (!r.count(&n, 4)) return failed("");
    for (uint32_t i = 0; i < n; i++) {
        if (!r.raw(&id)) return failed("");
        sc.operator_excluded_brokers.insert(id);
    }
    if (!r.count(&n, 4)) return failed("");
    for (uint32_t i = 0; i < n; i++) {
        if (!r.str(&topic)) return failed("");
        sc.operator_excluded_topics.insert(topic);
    }
    if (!r.count(&n, 4)) return failed("");
    for (uint32_t i = 0; i < n; i++) {
        if (!r.raw(&id)) return failed("");
        sc.draining_brokers.insert(id);
    }
    if (!r.count(&n, 4)) return failed("");
    sc.unfixable.resize(n);
    for (std::string& line : sc.unfixable) {
        if (!r.str(&line)) return failed("");
    }
    if (found_version >= 4) {
        if (!r.count(&n, 4)) return failed("");
        sc.broker_notes.resize(n);
        for (std::string& line : sc.broker_notes) {
            if (!r.str(&line)) return failed("");
        }
    }
    if (!r.expect(trailer, sizeof trailer) || !r.at_end()) return failed("its end marker");
    return s;
}

}  // namespace ballast::actors
