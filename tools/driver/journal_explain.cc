#include "tools/driver/journal_explain.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <set>

#include <spdlog/spdlog.h>

#include "tools/driver/text_format.h"

namespace ballast::driver {

namespace {

void appendf(std::string* out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string* out, const char* format, ...) {
    char buffer[512];
    va_list args;
    va_start(args, format);
    const int size = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (size < 0) return;
    if (static_cast<size_t>(size) < sizeof buffer) {
        out->append(buffer, static_cast<size_t>(size));
        return;
    }
    std::string long_line(static_cast<size_t>(size) + 1, '\0');
    va_start(args, format);
    std::vsnprintf(long_line.data(), long_line.size(), format, args);
    va_end(args);
    long_line.pop_back();
    *out += long_line;
}

bool about(const events::Action& a, const std::string& topic, int32_t partition) {
    return (a.topic == topic && a.partition == partition) ||
           (a.kind == events::ActionKind::swap && a.swap_topic == topic && a.swap_partition == partition);
}

/// The text: decisions (in order) merged with the events walked (in seq
/// order) by each decision's barrier. Events and decisions that do not
/// concern the partition print nothing, so giving only those that do
/// prints the same.
class ExplainText {
public:
    ExplainText(const std::vector<events::Event>& plans, std::string topic, int32_t partition, uint64_t from,
                uint64_t to)
        : _plans(plans), _topic(std::move(topic)), _partition(partition) {
        _name = _topic + "-" + std::to_string(_partition);
        appendf(&_out, "%s: every decision about it, seq %" PRIu64 "..%" PRIu64 "\n", _name.c_str(), from, to);
    }

    /// Every decision whose barrier is at or before `seq`.
    void plans_up_to(uint64_t seq) {
        for (; _next_plan < _plans.size() &&
               std::get<events::ActionsPlanned>(_plans[_next_plan].body).barrier_seq <= seq;
             _next_plan++) {
            plan(_plans[_next_plan]);
        }
    }

    void event(uint64_t seq, const events::Event& e) {
        plans_up_to(seq);
        std::string what;
        if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) {
            if (c->topic == _topic && c->partition == _partition) {
                what = "metadata: replicas [";
                for (size_t i = 0; i < c->replicas.size(); i++) {
                    what += (i ? "," : "") + std::to_string(c->replicas[i]);
                }
                what += "] leader " + std::to_string(c->leader);
            }
        } else if (const auto* s = std::get_if<events::ActionSubmitted>(&e.body)) {
            if (_action_ids.count(s->action_id)) {
                what = "action " + std::to_string(s->action_id) + " submitted (attempt " + std::to_string(s->attempt) +
                       ")";
            }
        } else if (const auto* d = std::get_if<events::ActionCompleted>(&e.body)) {
            if (_action_ids.count(d->action_id)) what = "action " + std::to_string(d->action_id) + " completed";
        } else if (const auto* f = std::get_if<events::ActionFailed>(&e.body)) {
            if (_action_ids.count(f->action_id)) {
                what = "action " + std::to_string(f->action_id) + " failed: " + f->error_name + " " + f->message +
                       (f->retriable ? " (retriable)" : "");
            }
        } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
            if (_action_ids.count(t->action_id)) what = "action " + std::to_string(t->action_id) + " timed out";
        } else if (const auto* x = std::get_if<events::ActionCancelled>(&e.body)) {
            if (_action_ids.count(x->action_id)) {
                what = "action " + std::to_string(x->action_id) + " cancelled: " + x->reason;
            }
        }
        if (what.empty()) return;
        appendf(&_out, "  seq %-8" PRIu64 " %-12s %s\n", seq, format_time_ms(e.time_ms).c_str(), what.c_str());
        _lines++;
    }

    std::string finish() {
        plans_up_to(UINT64_MAX);
        if (_lines == 0) appendf(&_out, "  nothing: no event or decision names %s\n", _name.c_str());
        return std::move(_out);
    }

private:
    void plan(const events::Event& e) {
        const auto& p = std::get<events::ActionsPlanned>(e.body);
        const std::string time = format_time_ms(e.time_ms);
        for (const events::Action& a : p.actions) {
            if (!about(a, _topic, _partition)) continue;
            _action_ids.insert(a.action_id);
            appendf(&_out, "  seq %-8" PRIu64 " %-12s round %-4" PRIu64 " %s  (action %" PRIu64 ")\n", p.barrier_seq,
                    time.c_str(), p.round, describe_action(a).c_str(), a.action_id);
            for (const events::LoadChange& c : a.loads) appendf(&_out, "      %s\n", describe_load_change(c).c_str());
            _lines++;
        }
        for (const events::Unfixable& u : p.unfixable) {
            if (u.topic != _topic || u.partition != _partition) continue;
            appendf(&_out, "  seq %-8" PRIu64 " %-12s round %-4" PRIu64 " cannot fix (%s): %s\n", p.barrier_seq,
                    time.c_str(), p.round, u.goal.c_str(), u.reason.c_str());
            _lines++;
        }
        for (const events::HeldAction& h : p.held) {
            if (!about(h.action, _topic, _partition)) continue;
            appendf(&_out, "  seq %-8" PRIu64 " %-12s round %-4" PRIu64 " held back by the gate (%s): %s\n",
                    p.barrier_seq, time.c_str(), p.round, h.reason.c_str(), describe_action(h.action).c_str());
            _lines++;
        }
    }

    const std::vector<events::Event>& _plans;
    std::string _topic;
    int32_t _partition;
    std::string _name;
    std::string _out;
    size_t _next_plan = 0;
    uint64_t _lines = 0;
    std::set<uint64_t> _action_ids;
};

/// Whether an ActionsPlanned names the partition the way the index keys it.
bool names(const events::ActionsPlanned& p, const std::string& topic, int32_t partition) {
    for (const events::Action& a : p.actions) {
        if (about(a, topic, partition)) return true;
    }
    for (const events::HeldAction& h : p.held) {
        if (about(h.action, topic, partition)) return true;
    }
    for (const events::Unfixable& u : p.unfixable) {
        if (u.topic == topic && u.partition == partition) return true;
    }
    return false;
}

bool outcome_type(events::EventType type) {
    return type == events::EventType::action_submitted || type == events::EventType::action_completed ||
           type == events::EventType::action_failed || type == events::EventType::action_timed_out ||
           type == events::EventType::action_cancelled;
}

/// Where a replay of `journal` starts and ends (open_replay_source's
/// bounds, without reading the snapshot).
events::Result<std::pair<uint64_t, uint64_t>> explain_bounds(const store::Journal& journal, uint64_t to) {
    events::Result<std::optional<uint64_t>> snapshot = oldest_replay_snapshot(journal);
    if (!snapshot) return snapshot.error();
    const uint64_t from = *snapshot ? **snapshot + 1 : journal.first_seq();
    return std::pair<uint64_t, uint64_t>{from, std::min(to, journal.last_seq())};
}

/// The answer from a scan of the journal: its recorded decisions, then its
/// events. What the index would give, when the index cannot.
events::Result<Explanation> explain_by_scan(const store::Journal& journal, const ExplainRequest& request,
                                            uint64_t from, uint64_t to) {
    std::vector<events::Event> plans;
    uint64_t read = 0;
    events::Status scanned = journal.scan(from, journal.last_seq(), [&](uint64_t, std::span<const uint8_t> bytes) {
        read++;
        if (events::header(events::view(bytes)).type != events::EventType::actions_planned) return true;
        events::Event e = events::from_flatbuffer(events::view(bytes));
        const uint64_t barrier = std::get<events::ActionsPlanned>(e.body).barrier_seq;
        if (barrier >= from && barrier <= to) plans.push_back(std::move(e));
        return true;
    });
    if (!scanned) return scanned.error();
    ExplainText text(plans, request.topic, request.partition, from, to);
    scanned = journal.scan(from, to, [&](uint64_t seq, std::span<const uint8_t> bytes) {
        const events::EventType type = events::header(events::view(bytes)).type;
        if (type == events::EventType::partition_changed || outcome_type(type)) {
            text.event(seq, events::from_flatbuffer(events::view(bytes)));
        }
        return true;
    });
    if (!scanned) return scanned.error();
    return Explanation{text.finish(), "scan", read};
}

/// The answer from the index; nullopt (and the index marked wrong) when an
/// entry names an event that is not about its key.
events::Result<std::optional<Explanation>> explain_by_index(const store::Journal& journal, const ExplainRequest& request,
                                                            uint64_t from, uint64_t to) {
    const std::string& topic = request.topic;
    const int32_t partition = request.partition;
    // Decisions are journaled after their barrier: look up to the end.
    events::Result<std::vector<uint64_t>> seqs = journal.partition_seqs(topic, partition, from, journal.last_seq());
    if (!seqs) return seqs.error();
    events::Result<std::vector<events::Event>> about_it = journal.read_seqs(*seqs);
    if (!about_it) return about_it.error();
    uint64_t read = about_it->size();
    std::vector<events::Event> plans;
    std::vector<events::Event> walked;
    std::set<uint64_t> action_ids;
    for (events::Event& e : *about_it) {
        if (const auto* p = std::get_if<events::ActionsPlanned>(&e.body)) {
            if (!names(*p, topic, partition)) {
                journal.index_damaged("seq " + std::to_string(e.seq) + " is indexed under " + topic + "-" +
                                      std::to_string(partition) + " but its decision does not name it");
                return std::optional<Explanation>();
            }
            if (p->barrier_seq < from || p->barrier_seq > to) continue;
            for (const events::Action& a : p->actions) {
                if (about(a, topic, partition)) action_ids.insert(a.action_id);
            }
            plans.push_back(std::move(e));
        } else if (const auto* c = std::get_if<events::PartitionChanged>(&e.body);
                   c && c->topic == topic && c->partition == partition) {
            if (e.seq <= to) walked.push_back(std::move(e));
        } else {
            journal.index_damaged("seq " + std::to_string(e.seq) + " is indexed under " + topic + "-" +
                                  std::to_string(partition) + " but is not about it");
            return std::optional<Explanation>();
        }
    }
    std::vector<uint64_t> outcome_seqs;
    for (const uint64_t id : action_ids) {
        events::Result<std::vector<uint64_t>> of_action = journal.action_seqs(id, from, to);
        if (!of_action) return of_action.error();
        outcome_seqs.insert(outcome_seqs.end(), of_action->begin(), of_action->end());
    }
    std::sort(outcome_seqs.begin(), outcome_seqs.end());
    outcome_seqs.erase(std::unique(outcome_seqs.begin(), outcome_seqs.end()), outcome_seqs.end());
    events::Result<std::vector<events::Event>> outcomes = journal.read_seqs(outcome_seqs);
    if (!outcomes) return outcomes.error();
    read += outcomes->size();
    for (events::Event& e : *outcomes) {
        const std::optional<uint64_t> id = events::outcome_action_id(e);
        if (!id || !action_ids.count(*id)) {
            journal.index_damaged("seq " + std::to_string(e.seq) + " is indexed as an outcome of an action it is not about");
            return std::optional<Explanation>();
        }
        walked.push_back(std::move(e));
    }
    std::sort(walked.begin(), walked.end(), [](const events::Event& a, const events::Event& b) { return a.seq < b.seq; });
    ExplainText text(plans, topic, partition, from, to);
    for (const events::Event& e : walked) text.event(e.seq, e);
    return std::optional<Explanation>(Explanation{text.finish(), "partition index: " + std::to_string(read) + " events read", read});
}

}  // namespace

events::Result<Explanation> explain_partition(const store::Journal& journal, const ExplainRequest& request) {
    if (request.path != ExplainPath::index) {
        return events::make_error(events::ErrorCode::invalid_argument,
                                  "explain on an open journal reads its index; a full replay opens the journal itself");
    }
    events::Result<std::pair<uint64_t, uint64_t>> bounds = explain_bounds(journal, request.to);
    if (!bounds) return bounds.error();
    const auto [from, to] = *bounds;
    std::string why;
    if (events::Status ready = journal.index_status(); ready) {
        events::Result<std::optional<Explanation>> indexed = explain_by_index(journal, request, from, to);
        if (indexed && indexed->has_value()) return std::move(**indexed);
        why = indexed ? journal.index_status().error().message : indexed.error().message;
    } else {
        why = ready.error().message;
    }
    spdlog::warn("explain {}-{}: {}; scanning the journal's events and recorded decisions instead", request.topic,
                 request.partition, why);
    events::Result<Explanation> scanned = explain_by_scan(journal, request, from, to);
    if (scanned) scanned->how = "scan: " + why;
    return scanned;
}

events::Result<Explanation> explain_from_replay(const ReplaySource& source, const std::vector<events::Event>& plans,
                                                const std::string& topic, int32_t partition) {
    ExplainText text(plans, topic, partition, source.from, source.to);
    uint64_t read = 0;
    events::Status status = source.journal->scan(source.from, source.to, [&](uint64_t seq, std::span<const uint8_t> bytes) {
        read++;
        text.event(seq, events::from_flatbuffer(events::view(bytes)));
        return true;
    });
    if (!status) return status.error();
    return Explanation{text.finish(), "full replay: " + std::to_string(read) + " events", read};
}

events::Result<Explanation> explain_partition(const std::string& path, const ExplainRequest& request,
                                              const std::function<void(uint64_t, uint64_t)>& progress) {
    if (request.path == ExplainPath::index && request.overrides.empty()) {
        store::JournalOptions options;
        options.read_only = true;
        options.verify_tail = false;  // every record used is checked as it is read
        events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, options);
        if (!journal) return journal.error();
        return explain_partition(**journal, request);
    }
    events::Result<ReplaySource> source = open_replay_source(path, ReplayStart::oldest, request.to);
    if (!source) return source.error();
    events::Result<std::vector<events::Event>> plans = replay_decisions(*source, request.overrides, progress);
    if (!plans) return plans.error();
    return explain_from_replay(*source, *plans, request.topic, request.partition);
}

}  // namespace ballast::driver
