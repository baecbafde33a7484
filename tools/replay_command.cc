/// `ballast replay`: feed a journal's input events through a fresh engine and
/// compare every ActionsPlanned it makes with the journaled one. With the
/// same configuration they must be identical (the engine is deterministic);
/// with `--set` it shows where a changed configuration decides differently.
/// `--explain TOPIC-PARTITION` prints every decision about one partition,
/// from the journal's partition index (tools/driver/journal_explain.h).

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/journal_explain.h"
#include "tools/driver/journal_replay.h"
#include "tools/driver/text_format.h"

namespace ballast::tools {

namespace {

struct ReplayOptions {
    std::string journal;
    uint64_t to = UINT64_MAX;
    std::vector<std::string> overrides;
    std::string explain;
    bool full_replay = false;
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

std::string summarize(const events::ActionsPlanned& p) {
    std::string out = std::to_string(p.actions.size()) + " action(s)";
    for (const events::Action& a : p.actions) out += "\n      " + driver::describe_action(a);
    for (const events::RejectionCount& r : p.rejections) {
        out += "\n      held: " + r.reason + " x" + std::to_string(r.count);
    }
    return out;
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
    // The index answers unless the decisions are to be made again (--set,
    // or --full-replay to check it against the engine).
    if (!options.explain.empty() && options.overrides.empty() && !options.full_replay) {
        driver::ExplainRequest request;
        request.topic = topic;
        request.partition = partition;
        request.to = options.to;
        events::Result<driver::Explanation> explained = driver::explain_partition(path, request);
        if (!explained) return report_error(explained.error());
        std::fputs(explained->text.c_str(), stdout);
        return exit_ok;
    }
    events::Result<driver::ReplaySource> source = driver::open_replay_source(path, driver::ReplayStart::oldest, options.to);
    if (!source) return report_error(source.error());

    const uint64_t total = source->to >= source->from ? source->to - source->from + 1 : 0;
    std::fprintf(stderr, "replaying %s: seq %" PRIu64 "..%" PRIu64 " (%" PRIu64 " events)%s\n",
                 path.c_str(), source->from, source->to, total,
                 source->start ? (" from the snapshot at seq " + std::to_string(source->start->seq)).c_str()
                               : " from the start");
    ProgressBar bar(total >= 100'000 || isatty(STDERR_FILENO));
    events::Result<std::vector<events::Event>> decided = driver::replay_decisions(
        *source, options.overrides, [&](uint64_t done, uint64_t all) { bar.update(done, all); });
    if (!decided) return report_error(decided.error());
    const std::vector<events::Event>& replayed = *decided;
    if (!options.explain.empty()) {
        events::Result<driver::Explanation> explained = driver::explain_from_replay(*source, replayed, topic, partition);
        if (!explained) return report_error(explained.error());
        std::fputs(explained->text.c_str(), stdout);
        return exit_ok;
    }

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
    replay->add_flag("--full-replay", options->full_replay,
                     "With --explain: decide again through a fresh engine instead of reading the partition index");
    replay->callback([&ctx, options] { ctx.exit_code = run_replay(ctx, *options); });
}

}  // namespace ballast::tools
