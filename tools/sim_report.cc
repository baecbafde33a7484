#include "tools/sim_report.h"

#include <algorithm>
#include <cinttypes>

#include "tools/driver/text_format.h"

namespace ballast::tools {

namespace {

std::string join_ids(const std::vector<int32_t>& ids) {
    std::string out;
    for (size_t i = 0; i < ids.size(); i++) out += (i ? "," : "") + std::to_string(ids[i]);
    return out.empty() ? "none" : out;
}

}  // namespace

void TimelinePrinter::step(const driver::SimStep& step) {
    _loads = step.cluster.broker_loads();
    const auto line = [&](int64_t time_ms, const std::string& text) {
        if (_out) std::fprintf(_out, "%-12s %s\n", driver::format_time_ms(time_ms).c_str(), text.c_str());
    };
    uint64_t completed_here = 0;
    for (const events::Event& e : step.fed) {
        if (const auto* f = std::get_if<events::BrokerFenced>(&e.body)) {
            line(e.time_ms, "broker " + std::to_string(f->broker_id) + " fenced (stopped " +
                                "and missed its session timeout)");
        } else if (const auto* u = std::get_if<events::BrokerUnfenced>(&e.body)) {
            line(e.time_ms, "broker " + std::to_string(u->broker_id) + " unfenced (back)");
        } else if (const auto* r = std::get_if<events::BrokerRegistered>(&e.body)) {
            if (e.time_ms > 0) line(e.time_ms, "broker " + std::to_string(r->broker_id) + " registered");
        } else if (const auto* g = std::get_if<events::BrokerUnregistered>(&e.body)) {
            line(e.time_ms, "broker " + std::to_string(g->broker_id) + " unregistered");
        } else if (const auto* c = std::get_if<events::OperatorCommand>(&e.body)) {
            line(e.time_ms, std::string("operator: ") + events::command_kind_name(c->command) + " " +
                                join_ids(c->broker_ids));
        } else if (std::holds_alternative<events::ActionCompleted>(e.body)) {
            completed_here++;
            _last_completion_ms = e.time_ms;
        } else if (const auto* x = std::get_if<events::ActionFailed>(&e.body)) {
            _actions_failed++;
            line(e.time_ms, "action " + std::to_string(x->action_id) + " failed: " + x->error_name + " " +
                                x->message + (x->retriable ? " (retriable)" : ""));
        }
    }
    _moves_completed += completed_here;
    if (completed_here > 0) line(step.now_ms, std::to_string(completed_here) + " action(s) completed");
    for (const events::Event& e : step.decided) {
        if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
            if (plan->actions.empty()) continue;
            if (_first_action_ms < 0) _first_action_ms = e.time_ms;
            line(e.time_ms, "round " + std::to_string(plan->round) + ": " + std::to_string(plan->actions.size()) +
                                " action(s)" + (plan->held.empty() ? "" : ", " + std::to_string(plan->held.size()) +
                                                                            " held back by the gate"));
            for (size_t i = 0; _out && i < plan->actions.size() && i < _actions_listed_max; i++) {
                std::fprintf(_out, "%-12s   %s\n", "", driver::describe_action(plan->actions[i]).c_str());
            }
            if (_out && plan->actions.size() > _actions_listed_max) {
                std::fprintf(_out, "%-12s   ... and %zu more\n", "", plan->actions.size() - _actions_listed_max);
            }
        } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
            line(e.time_ms, "action " + std::to_string(t->action_id) + " timed out after " +
                                std::to_string(t->timeout_ms / 1000) + " s; cancelled");
        }
    }
}

std::string format_broker_loads(const std::vector<sim::BrokerLoad>& loads) {
    std::string out;
    char row[160];
    std::snprintf(row, sizeof row, "  %-7s %-13s %12s %12s %9s %8s\n", "broker", "state", "in MiB/s",
                  "out MiB/s", "replicas", "leaders");
    out += row;
    for (const sim::BrokerLoad& l : loads) {
        if (l.state == sim::BrokerState::defined) continue;
        std::snprintf(row, sizeof row, "  %-7d %-13s %12.1f %12.1f %9d %8d\n", l.id,
                      sim::broker_state_name(l.state), l.bytes_in_per_s / (1 << 20),
                      l.bytes_out_per_s / (1 << 20), l.replicas, l.leaders);
        out += row;
    }
    return out;
}

double load_spread(const std::vector<sim::BrokerLoad>& loads, bool out) {
    double total = 0;
    double most = 0;
    int running = 0;
    for (const sim::BrokerLoad& l : loads) {
        if (l.state != sim::BrokerState::running) continue;
        const double v = out ? l.bytes_out_per_s : l.bytes_in_per_s;
        total += v;
        most = std::max(most, v);
        running++;
    }
    if (running == 0 || total <= 0) return 0;
    return most / (total / running);
}

std::string describe_topic(const sim::SimCluster& cluster, const std::string& topic) {
    std::string out;
    for (const sim::SimTopic& t : cluster.topics()) {
        if (t.name != topic || t.deleted) continue;
        for (uint32_t index : t.partitions) {
            const sim::SimPartition& p = cluster.partitions()[index];
            out += "Topic: " + t.name + "\tPartition: " + std::to_string(p.partition) +
                   "\tLeader: " + (p.leader < 0 ? std::string("none") : std::to_string(p.leader)) +
                   "\tReplicas: " + join_ids(p.replicas) + "\tIsr: " + join_ids(p.isr) + "\n";
        }
    }
    return out;
}

std::string format_summary(const driver::SimRunSummary& summary, const TimelinePrinter& timeline) {
    std::string out;
    char text[256];
    std::snprintf(text, sizeof text,
                  "summary: %s simulated, %" PRIu64 " events, %" PRIu64 " rounds, %" PRIu64
                  " actions released, %" PRIu64 " completed, %" PRIu64 " failed, %" PRIu64
                  " partitions moved\n",
                  driver::format_time_ms(summary.simulated_ms).c_str(), summary.events_fed, summary.rounds,
                  summary.actions_accepted, summary.cluster.completed, summary.cluster.failed,
                  summary.cluster.partitions_moved);
    out += text;
    if (summary.engine_restarts > 0) {
        out += "engine restarts (recovered from the journal): " + std::to_string(summary.engine_restarts) + "\n";
    }
    if (timeline.last_completion_ms() >= 0) {
        out += "first action at " + driver::format_time_ms(timeline.first_action_ms()) + ", last completed at " +
               driver::format_time_ms(timeline.last_completion_ms()) + "\n";
    }
    out += "final broker loads:\n" + format_broker_loads(timeline.final_loads());
    std::snprintf(text, sizeof text, "final spread of load (max/mean): in %.2f, out %.2f\n",
                  load_spread(timeline.final_loads(), false), load_spread(timeline.final_loads(), true));
    out += text;
    return out;
}

}  // namespace ballast::tools
