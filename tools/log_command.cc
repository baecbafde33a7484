/// `ballast log`: look into a journal and maintain it.
///
///   show    events in a range, optionally of some types, as text or JSON lines
///   tail    the last N events
///   stats   counts, bounds, size, per-type counts (reads and checks every event)
///   export  the journal as a portable file (what does not read is skipped and
///           named, and the command fails); import writes one into an empty journal
///   repair  rebuilds a damaged journal from what reads; --truncate-after SEQ
///           keeps it up to SEQ (the explicit way past a bad record)
///   append  JSON lines (as `show --json` prints them) appended as new events
///
/// Reading commands open the journal read-only, so they work while `ballast
/// run` writes to it, and skip the open-time tail check: every record they
/// read is checked anyway, and a corrupt journal can still be read up to the
/// bad record.

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "events/event.h"
#include "events/event_check.h"
#include "events/event_from_json.h"
#include "store/journal.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/text_format.h"

namespace ballast::tools {

namespace {

using events::Event;
using events::EventType;

struct LogOptions {
    std::string journal;  // --journal; empty: ballast.journal.path
    uint64_t from = 0;
    uint64_t to = UINT64_MAX;
    std::vector<std::string> types;
    bool json = false;
    uint64_t lines = 20;
    std::string file;
    std::optional<uint64_t> truncate_after;
    std::string input = "-";
};

struct Opened {
    events::Config config;
    std::unique_ptr<store::Journal> journal;
};

/// What the open cut or worked around (a torn last write), on stderr.
void print_warnings(const store::Journal& journal) {
    for (const std::string& warning : journal.warnings()) std::fprintf(stderr, "ballast: warning: %s\n", warning.c_str());
}

/// Loads the config, sets up logging, and opens the journal named by
/// --journal or ballast.journal.path.
events::Result<Opened> open_journal(const Context& ctx, const LogOptions& options,
                                    bool read_only) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return config.error();
    setup_logging(*config);
    const std::string path =
        options.journal.empty() ? config->get_string("ballast.journal.path") : options.journal;
    store::JournalOptions journal_options;
    journal_options.sync = config->get_bool("ballast.journal.sync");
    journal_options.read_only = read_only;
    journal_options.create_if_missing = !read_only;
    journal_options.verify_tail = !read_only;
    events::Result<std::unique_ptr<store::Journal>> journal =
        store::Journal::open(path, journal_options);
    if (!journal) return journal.error();
    print_warnings(**journal);
    return Opened{std::move(*config), std::move(*journal)};
}

/// The --type filter; empty means every type.
events::Result<std::set<EventType>> parse_types(const std::vector<std::string>& names) {
    std::set<EventType> types;
    for (const std::string& name : names) {
        std::optional<EventType> type = events::type_from_name(name);
        if (!type) {
            std::string known;
            for (uint8_t i = 0; i < events::event_type_count; i++) {
                known += (i ? ", " : "") + std::string(events::type_name(EventType(i)));
            }
            return events::make_error(events::ErrorCode::invalid_argument,
                                      "--type " + name + ": no such event type (known: " + known +
                                          ")");
        }
        types.insert(*type);
    }
    return types;
}

/// One event for people: seq, time, source, type, then the body's fields.
std::string human_line(const Event& event) {
    nlohmann::ordered_json object = nlohmann::ordered_json::parse(events::to_json(event));
    std::string line;
    char head[160];
    std::snprintf(head, sizeof head, "%8" PRIu64 "  %-24s  %-14s  %-19s", event.seq,
                  driver::format_time_ms(event.time_ms).c_str(), events::source_name(event.source),
                  events::type_name(event.type()));
    line = head;
    for (const auto& [key, value] : object.items()) {
        if (key == "seq" || key == "time_ms" || key == "source" || key == "type") continue;
        line += "  " + key + "=";
        line += value.is_string() ? value.get<std::string>() : value.dump();
    }
    return line;
}

void print_event(const Event& event, bool json) {
    const std::string line = json ? events::to_json(event) : human_line(event);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
}

int run_show(const Context& ctx, const LogOptions& options) {
    events::Result<std::set<EventType>> types = parse_types(options.types);
    if (!types) return report_error(types.error());
    events::Result<Opened> opened = open_journal(ctx, options, /*read_only=*/true);
    if (!opened) return report_error(opened.error());
    events::Status status = opened->journal->scan(
        options.from, options.to, [&](uint64_t, std::span<const uint8_t> bytes) {
            const events::fb::Event& view = events::view(bytes);
            if (!types->empty() && !types->count(events::header(view).type)) return true;
            print_event(events::from_flatbuffer(view), options.json);
            return true;
        });
    std::fflush(stdout);
    if (!status) return report_error(status.error());
    return exit_ok;
}

int run_tail(const Context& ctx, const LogOptions& options) {
    events::Result<std::set<EventType>> types = parse_types(options.types);
    if (!types) return report_error(types.error());
    events::Result<Opened> opened = open_journal(ctx, options, /*read_only=*/true);
    if (!opened) return report_error(opened.error());
    const store::Journal& journal = *opened->journal;
    // Without a filter only the last N records are read; with one, the whole
    // journal is walked keeping the last N matches.
    const uint64_t from = types->empty() && journal.last_seq() > options.lines
                              ? journal.last_seq() - options.lines + 1
                              : journal.first_seq();
    std::deque<Event> last;
    events::Status status =
        journal.scan(from, journal.last_seq(), [&](uint64_t, std::span<const uint8_t> bytes) {
            const events::fb::Event& view = events::view(bytes);
            if (!types->empty() && !types->count(events::header(view).type)) return true;
            last.push_back(events::from_flatbuffer(view));
            if (last.size() > options.lines) last.pop_front();
            return true;
        });
    for (const Event& event : last) print_event(event, options.json);
    std::fflush(stdout);
    if (!status) return report_error(status.error());
    return exit_ok;
}

int run_stats(const Context& ctx, const LogOptions& options) {
    events::Result<Opened> opened = open_journal(ctx, options, /*read_only=*/true);
    if (!opened) return report_error(opened.error());
    const store::Journal& journal = *opened->journal;

    std::map<std::string, uint64_t> by_type;
    std::map<std::string, uint64_t> by_source;
    uint64_t count = 0;
    int64_t first_time_ms = 0;
    int64_t last_time_ms = 0;
    events::Status status = journal.scan(
        journal.first_seq(), journal.last_seq(), [&](uint64_t, std::span<const uint8_t> bytes) {
            const events::Header h = events::header(events::view(bytes));
            if (count == 0) first_time_ms = h.time_ms;
            last_time_ms = h.time_ms;
            count++;
            by_type[events::type_name(h.type)]++;
            by_source[events::source_name(h.source)]++;
            return true;
        });
    if (!status) return report_error(status.error());
    events::Result<std::vector<uint64_t>> snapshots = journal.snapshot_seqs();
    if (!snapshots) return report_error(snapshots.error());
    const uint64_t disk_bytes = journal.disk_size_bytes();

    if (options.json) {
        nlohmann::json out = {
            {"path", journal.path()},
            {"events", count},
            {"first_seq", count ? journal.first_seq() : 0},
            {"last_seq", journal.last_seq()},
            {"first_time_ms", first_time_ms},
            {"last_time_ms", last_time_ms},
            {"snapshots", snapshots->size()},
            {"newest_snapshot_seq", snapshots->empty() ? 0 : snapshots->back()},
            {"disk_bytes", disk_bytes},
            {"by_type", by_type},
            {"by_source", by_source},
        };
        std::printf("%s\n", out.dump().c_str());
        return exit_ok;
    }
    std::printf("journal    %s\n", journal.path().c_str());
    std::printf("events     %" PRIu64 "\n", count);
    if (count) {
        std::printf("first      seq %" PRIu64 " at %s\n", journal.first_seq(),
                    driver::format_time_ms(first_time_ms).c_str());
        std::printf("last       seq %" PRIu64 " at %s\n", journal.last_seq(),
                    driver::format_time_ms(last_time_ms).c_str());
    }
    if (snapshots->empty()) {
        std::printf("snapshots  none\n");
    } else {
        std::printf("snapshots  %zu (newest at seq %" PRIu64 ")\n", snapshots->size(),
                    snapshots->back());
    }
    std::printf("disk       %s\n", driver::format_bytes(disk_bytes).c_str());
    if (!by_type.empty()) std::printf("by type\n");
    for (const auto& [type, n] : by_type) std::printf("  %-22s %" PRIu64 "\n", type.c_str(), n);
    if (!by_source.empty()) std::printf("by source\n");
    for (const auto& [source, n] : by_source) {
        std::printf("  %-22s %" PRIu64 "\n", source.c_str(), n);
    }
    return exit_ok;
}

int run_export(const Context& ctx, const LogOptions& options) {
    events::Result<Opened> opened = open_journal(ctx, options, /*read_only=*/true);
    if (!opened) return report_error(opened.error());
    events::Result<store::TransferReport> report = opened->journal->export_to(options.file);
    if (!report) return report_error(report.error());
    std::printf("exported %" PRIu64 " events (seq %" PRIu64 "..%" PRIu64 ") and %" PRIu64
                " snapshots to %s (%s)\n",
                report->events, report->first_seq, report->last_seq, report->snapshots,
                options.file.c_str(), driver::format_bytes(report->file_bytes).c_str());
    if (report->skipped.empty()) return exit_ok;
    std::fflush(stdout);
    for (const std::string& skipped : report->skipped) {
        std::fprintf(stderr, "ballast: skipped (damaged, not in the file): %s\n", skipped.c_str());
    }
    return report_error("the export of " + opened->journal->path() + " is not whole: " +
                        std::to_string(report->skipped.size()) +
                        " damaged part(s) skipped, named above (an import refuses the gap); "
                        "`ballast log repair` rebuilds the journal from what reads");
}

int run_import(const Context& ctx, const LogOptions& options) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    setup_logging(*config);
    const std::string path =
        options.journal.empty() ? config->get_string("ballast.journal.path") : options.journal;
    store::JournalOptions journal_options;
    journal_options.sync = config->get_bool("ballast.journal.sync");
    events::Result<store::TransferReport> report =
        store::Journal::import_from(options.file, path, journal_options);
    if (!report) return report_error(report.error());
    std::printf("imported %" PRIu64 " events (seq %" PRIu64 "..%" PRIu64 ") and %" PRIu64
                " snapshots into %s\n",
                report->events, report->first_seq, report->last_seq, report->snapshots,
                path.c_str());
    return exit_ok;
}

int run_repair(const Context& ctx, const LogOptions& options) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    setup_logging(*config);
    const std::string path =
        options.journal.empty() ? config->get_string("ballast.journal.path") : options.journal;
    events::Result<store::RepairReport> report = store::Journal::repair(path, options.truncate_after);
    if (!report) return report_error(report.error());
    if (report->last_seq >= report->first_seq) {
        std::printf("kept seq %" PRIu64 "..%" PRIu64, report->first_seq, report->last_seq);
    } else {
        std::printf("kept no event");
    }
    std::printf(", %zu snapshot(s); dropped %" PRIu64 " events after seq %" PRIu64 "\n",
                report->snapshots_kept.size(), report->events_dropped, report->last_seq);
    for (const std::string& dropped : report->snapshots_dropped) {
        std::printf("dropped snapshot %s\n", dropped.c_str());
    }
    std::printf("read from %s; every record checked\n", report->source.c_str());
    std::printf("the journal as it was is kept at %s\n", report->damaged_path.c_str());
    // Prove the result: a normal open checks the tail again.
    store::JournalOptions check;
    check.create_if_missing = false;
    events::Result<std::unique_ptr<store::Journal>> reopened = store::Journal::open(path, check);
    if (!reopened) {
        return report_error("the journal still fails recovery: " + reopened.error().to_string());
    }
    std::printf("journal %s now holds seq %" PRIu64 "..%" PRIu64 " and opens cleanly\n",
                path.c_str(), (*reopened)->first_seq(), (*reopened)->last_seq());
    return exit_ok;
}

/// Reads every line first, so that a bad line appends nothing.
int run_append(const Context& ctx, const LogOptions& options) {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (options.input != "-") {
        file.open(options.input);
        if (!file) return report_error("cannot open " + options.input);
        in = &file;
    }
    std::vector<Event> batch;
    std::string line;
    for (uint64_t line_number = 1; std::getline(*in, line); line_number++) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        events::Result<Event> event = events::event_from_json(line);
        if (!event) {
            return report_error(options.input + ":" + std::to_string(line_number) + ": " +
                                event.error().message + " (nothing was appended)");
        }
        if (events::Status valid = events::check(*event); !valid) {
            return report_error(options.input + ":" + std::to_string(line_number) + ": " +
                                valid.error().message + " (nothing was appended)");
        }
        batch.push_back(std::move(*event));
    }
    events::Result<Opened> opened = open_journal(ctx, options, /*read_only=*/false);
    if (!opened) return report_error(opened.error());
    // Bounded batches: one WriteBatch per 1,000 events.
    constexpr size_t batch_events_max = 1000;
    for (size_t begin = 0; begin < batch.size(); begin += batch_events_max) {
        const size_t n = std::min(batch_events_max, batch.size() - begin);
        events::Result<uint64_t> last =
            opened->journal->append(std::span<Event>(batch.data() + begin, n));
        if (!last) return report_error(last.error());
    }
    std::printf("appended %zu events; the journal now ends at seq %" PRIu64 "\n", batch.size(),
                opened->journal->last_seq());
    return exit_ok;
}

void add_journal_option(CLI::App* command, LogOptions& options) {
    command->add_option("--journal", options.journal,
                        "Journal directory (default: ballast.journal.path)");
}

void add_filter_options(CLI::App* command, LogOptions& options) {
    command->add_option("--type", options.types,
                        "Only events of this type, e.g. broker_fenced (repeatable)");
    command->add_flag("--json", options.json, "One JSON object per line");
}

}  // namespace

void register_log_command(CLI::App& app, Context& ctx) {
    CLI::App* log = app.add_subcommand("log", "Inspect and maintain the event journal");
    // Zero or one, so that an unknown word gets CLI11's "not expected" error;
    // none at all prints the list.
    log->require_subcommand(0, 1);
    log->callback([&ctx, log] {
        if (log->get_subcommands().empty()) {
            std::fputs(log->help().c_str(), stderr);
            ctx.exit_code = exit_error;
        }
    });

    auto add = [&](const char* name, const char* description, auto run) {
        auto options = std::make_shared<LogOptions>();
        CLI::App* command = log->add_subcommand(name, description);
        add_journal_option(command, *options);
        command->callback([&ctx, options, run] { ctx.exit_code = run(ctx, *options); });
        return std::pair{command, options};
    };

    auto [show, show_options] = add("show", "Print events, oldest first", run_show);
    show->add_option("--from", show_options->from, "First sequence number (default: the first)");
    show->add_option("--to", show_options->to, "Last sequence number (default: the last)");
    add_filter_options(show, *show_options);

    auto [tail, tail_options] = add("tail", "Print the last events", run_tail);
    tail->add_option("-n,--lines", tail_options->lines, "How many (default 20)")
        ->check(CLI::PositiveNumber);
    add_filter_options(tail, *tail_options);

    auto [stats, stats_options] =
        add("stats", "Counts, bounds, size and per-type counts; checks every event", run_stats);
    stats->add_flag("--json", stats_options->json, "One JSON object");

    auto [exp, exp_options] = add("export", "Write the journal to a portable file", run_export);
    exp->add_option("FILE", exp_options->file, "The file to write")->required();

    auto [imp, imp_options] =
        add("import", "Load a file written by `log export` into an empty journal", run_import);
    imp->add_option("FILE", imp_options->file, "The file to read")->required()->check(
        CLI::ExistingFile);

    auto [repair, repair_options] =
        add("repair",
            "Rebuild a damaged journal from what reads (every record checked; the old one is kept "
            "beside it as <journal>.damaged-<time>); refuses, naming the damage, when it would drop an "
            "event you did not name",
            run_repair);
    repair->add_option("--truncate-after", repair_options->truncate_after,
                       "Keep events up to and including this sequence number, and drop the rest "
                       "(the way past a bad record; the error that names one says which SEQ)");

    auto [append, append_options] =
        add("append", "Append events given as JSON lines (as `log show --json` prints them)",
            run_append);
    append->add_option("--input", append_options->input, "File of JSON lines (default: stdin)");
}

}  // namespace ballast::tools
