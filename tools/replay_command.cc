/// `ballast replay`: feed a journal's input events through a fresh engine and
/// compare every ActionsPlanned it makes with the journaled one. With the
/// same configuration they must be identical (the engine is deterministic);
/// with `--set` it shows where a changed configuration decides differently.
/// `--explain TOPIC-PARTITION` prints every decision about one partition.

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>

#include <CLI/CLI.hpp>

#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/journal_replay.h"
#include "tools/driver/text_format.h"

namespace ballast::tools {

namespace {

struct ReplayOptions {
    std::string journal;
    uint64_t to = UINT64_MAX;
    std::vector<std::string> overrides;
    std::string explain;
};

/// A progress bar on stderr for long logs, redrawn at most every 1%.
class ProgressBar {
public:
    explicit ProgressBar(bool enabled) : _enabled(enabled) {}
    void update(uint64_t done, uint64_t total) {
        if (!_enabled || total == 0) return;
        const int percent = static_cast<int>(done * 100 / total);
        if (percent == _last && done != total) return;
        _last = percent;
        const int width = 40;
        const int filled = percent * width / 100;
        std::fprintf(stderr, "\r[%s%s] %3d%%  %" PRIu64 "/%" PRIu64 " events",
                     std::string(filled, '=').c_str(), std::string(width - filled, ' ').c_str(),
                     percent, done, total);
        if (done == total) std::fputc('\n', stderr);
    }

private:
    bool _enabled;
    int _last = -1;
};

struct Decisions {
    std::mutex mutex;
    std::vector<events::Event> plans;  // ActionsPlanned, in order
};

std::string summarize(const events::ActionsPlanned& p) {
    std::string out = std::to_string(p.actions.size()) + " action(s)";
    for (const events::Action& a : p.actions) out += "\n      " + driver::describe_action(a);
    for (const events::RejectionCount& r : p.rejections) {
        out += "\n      held: " + r.reason + " x" + std::to_string(r.count);
    }
    return out;
}

/// The journal's decisions whose barrier lies in (from - 1, to].
/// Every event and decision about one partition, in order.
int explain(const driver::ReplaySource& source, const std::vector<events::Event>& plans,
            const std::string& topic, int32_t partition) {
    const std::string name = topic + "-" + std::to_string(partition);
    std::printf("%s: every decision about it, seq %" PRIu64 "..%" PRIu64 "\n", name.c_str(),
                source.from, source.to);
    std::set<uint64_t> action_ids;
    auto about = [&](const events::Action& a) {
        return (a.topic == topic && a.partition == partition) ||
               (a.kind == events::ActionKind::swap && a.swap_topic == topic &&
                a.swap_partition == partition);
    };
    // Decisions (replayed) and the journal's own record, merged by seq.
    size_t next_plan = 0;
    uint64_t lines = 0;
    auto print_plans_up_to = [&](uint64_t seq) {
        for (; next_plan < plans.size() &&
               std::get<events::ActionsPlanned>(plans[next_plan].body).barrier_seq <= seq;
             next_plan++) {
            const events::Event& e = plans[next_plan];
            const auto& p = std::get<events::ActionsPlanned>(e.body);
            for (const events::Action& a : p.actions) {
                if (!about(a)) continue;
                action_ids.insert(a.action_id);
                std::printf("  seq %-8" PRIu64 " %-12s round %-4" PRIu64 " %s  (action %" PRIu64 ")\n",
                            p.barrier_seq, driver::format_time_ms(e.time_ms).c_str(), p.round,
                            driver::describe_action(a).c_str(), a.action_id);
                for (const events::LoadChange& c : a.loads) {
                    std::printf("      %s\n", driver::describe_load_change(c).c_str());
                }
                lines++;
            }
            for (const events::Unfixable& u : p.unfixable) {
                if (u.topic != topic || u.partition != partition) continue;
                std::printf("  seq %-8" PRIu64 " %-12s round %-4" PRIu64 " cannot fix (%s): %s\n",
                            p.barrier_seq, driver::format_time_ms(e.time_ms).c_str(), p.round,
                            u.goal.c_str(), u.reason.c_str());
                lines++;
            }
            for (const events::HeldAction& h : p.held) {
                if (!about(h.action)) continue;
                std::printf("  seq %-8" PRIu64 " %-12s round %-4" PRIu64
                            " held back by the gate (%s): %s\n",
                            p.barrier_seq, driver::format_time_ms(e.time_ms).c_str(), p.round,
                            h.reason.c_str(), driver::describe_action(h.action).c_str());
                lines++;
            }
        }
    };
    events::Status status = source.journal->scan(
        source.from, source.to, [&](uint64_t seq, std::span<const uint8_t> bytes) {
            print_plans_up_to(seq);
            const events::Event e = events::from_flatbuffer(events::view(bytes));
            std::string what;
            if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) {
                if (c->topic == topic && c->partition == partition) {
                    what = "metadata: replicas [";
                    for (size_t i = 0; i < c->replicas.size(); i++) {
                        what += (i ? "," : "") + std::to_string(c->replicas[i]);
                    }
                    what += "] leader " + std::to_string(c->leader);
                }
            } else if (const auto* s = std::get_if<events::ActionSubmitted>(&e.body)) {
                if (action_ids.count(s->action_id)) {
                    what = "action " + std::to_string(s->action_id) + " submitted (attempt " +
                           std::to_string(s->attempt) + ")";
                }
            } else if (const auto* d = std::get_if<events::ActionCompleted>(&e.body)) {
                if (action_ids.count(d->action_id)) what = "action " + std::to_string(d->action_id) + " completed";
            } else if (const auto* f = std::get_if<events::ActionFailed>(&e.body)) {
                if (action_ids.count(f->action_id)) {
                    what = "action " + std::to_string(f->action_id) + " failed: " + f->error_name +
                           " " + f->message + (f->retriable ? " (retriable)" : "");
                }
            } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
                if (action_ids.count(t->action_id)) what = "action " + std::to_string(t->action_id) + " timed out";
            } else if (const auto* x = std::get_if<events::ActionCancelled>(&e.body)) {
                if (action_ids.count(x->action_id)) {
                    what = "action " + std::to_string(x->action_id) + " cancelled: " + x->reason;
                }
            }
            if (!what.empty()) {
                std::printf("  seq %-8" PRIu64 " %-12s %s\n", seq, driver::format_time_ms(e.time_ms).c_str(),
                            what.c_str());
                lines++;
            }
            return true;
        });
    print_plans_up_to(UINT64_MAX);
    if (!status) return report_error(status.error());
    if (lines == 0) std::printf("  nothing: no event or decision names %s\n", name.c_str());
    return exit_ok;
}

int run_replay(const Context& ctx, const ReplayOptions& options) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    setup_logging(*config);
    std::string topic;
    int32_t partition = -1;
    if (!options.explain.empty() && !driver::parse_topic_partition(options.explain, &topic, &partition)) {
        return report_error("--explain " + options.explain + ": expected TOPIC-PARTITION, e.g. orders-3");
    }
    const std::string path =
        options.journal.empty() ? config->get_string("ballast.journal.path") : options.journal;
    events::Result<driver::ReplaySource> source = driver::open_replay_source(path, driver::ReplayStart::oldest, options.to);
    if (!source) return report_error(source.error());

    auto decisions = std::make_shared<Decisions>();
    actors::EngineOptions engine_options;
    engine_options.overrides = options.overrides;
    engine_options.replay_from = source->start ? &*source->start : nullptr;
    engine_options.on_decision = [decisions](const events::Event& e) {
        if (!std::holds_alternative<events::ActionsPlanned>(e.body)) return;
        std::lock_guard<std::mutex> lock(decisions->mutex);
        decisions->plans.push_back(e);
    };
    events::Result<std::unique_ptr<actors::Engine>> engine = actors::Engine::start(engine_options);
    if (!engine) return report_error(engine.error());

    const uint64_t total = source->to >= source->from ? source->to - source->from + 1 : 0;
    std::fprintf(stderr, "replaying %s: seq %" PRIu64 "..%" PRIu64 " (%" PRIu64 " events)%s\n",
                 path.c_str(), source->from, source->to, total,
                 source->start ? (" from the snapshot at seq " + std::to_string(source->start->seq)).c_str()
                               : " from the start");
    ProgressBar bar(total >= 100'000 || isatty(STDERR_FILENO));
    if (events::Status fed = driver::feed_journal(**engine, *source,
                                          [&](uint64_t done, uint64_t all) { bar.update(done, all); });
        !fed) {
        return report_error(fed.error());
    }
    (*engine)->stop();
    const std::vector<events::Event>& replayed = decisions->plans;
    if (!options.explain.empty()) return explain(*source, replayed, topic, partition);

    events::Result<std::vector<events::Event>> journaled = driver::journaled_plans(*source);
    if (!journaled) return report_error(journaled.error());
    size_t same = 0;
    std::vector<size_t> differ;
    const size_t common = std::min(journaled->size(), replayed.size());
    for (size_t i = 0; i < common; i++) {
        const auto& a = std::get<events::ActionsPlanned>((*journaled)[i].body);
        const auto& b = std::get<events::ActionsPlanned>(replayed[i].body);
        if (a == b && (*journaled)[i].time_ms == replayed[i].time_ms) same++;
        else differ.push_back(i);
    }
    if (differ.empty() && journaled->size() == replayed.size()) {
        std::printf("%zu decision(s) replayed; all %zu identical to the journal\n", replayed.size(),
                    same);
        return exit_ok;
    }
    std::printf("%zu decision(s) in the journal, %zu replayed, %zu identical, %zu differ%s\n",
                journaled->size(), replayed.size(), same, differ.size(),
                options.overrides.empty() ? "" : " (with the --set changes)");
    const size_t shown_max = 5;
    for (size_t k = 0; k < differ.size() && k < shown_max; k++) {
        const size_t i = differ[k];
        const auto& a = std::get<events::ActionsPlanned>((*journaled)[i].body);
        const auto& b = std::get<events::ActionsPlanned>(replayed[i].body);
        std::printf("  decision %zu (barrier seq %" PRIu64 " / %" PRIu64 "):\n    journal: %s\n    replay:  %s\n",
                    i + 1, a.barrier_seq, b.barrier_seq, summarize(a).c_str(), summarize(b).c_str());
    }
    for (size_t i = common; i < journaled->size() && i < common + shown_max; i++) {
        std::printf("  only in the journal (barrier seq %" PRIu64 "): %s\n",
                    std::get<events::ActionsPlanned>((*journaled)[i].body).barrier_seq,
                    summarize(std::get<events::ActionsPlanned>((*journaled)[i].body)).c_str());
    }
    for (size_t i = common; i < replayed.size() && i < common + shown_max; i++) {
        std::printf("  only in the replay (barrier seq %" PRIu64 "): %s\n",
                    std::get<events::ActionsPlanned>(replayed[i].body).barrier_seq,
                    summarize(std::get<events::ActionsPlanned>(replayed[i].body)).c_str());
    }
    // Same configuration and a different decision: determinism is broken.
    return options.overrides.empty() ? 2 : exit_ok;
}

}  // namespace

void register_replay_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<ReplayOptions>();
    CLI::App* replay = app.add_subcommand(
        "replay", "Feed a journal through a fresh engine and compare its decisions");
    replay->add_option("--journal", options->journal, "Journal directory (default: ballast.journal.path)");
    replay->add_option("--to", options->to, "Stop after this sequence number");
    replay->add_option("--set", options->overrides,
                       "Decide with this setting changed, key=value (repeatable)");
    replay->add_option("--explain", options->explain,
                       "Print every decision about one partition, e.g. orders-3");
    replay->callback([&ctx, options] { ctx.exit_code = run_replay(ctx, *options); });
}

}  // namespace ballast::tools
