/// GET /metrics: Prometheus' text format (tools/metrics/) of what the
/// engine says of itself (`Engine::status`), what the journal holds and what
/// its appends wrote and took (counted and measured in store/, never by an
/// actor), and this instance's role and readiness. Every figure
/// is asked at the scrape; nothing here feeds the engine.

#include <cmath>
#include <memory>

#include "actors/engine.h"
#include "tools/driver/plan_json.h"
#include "tools/http/api_internal.h"
#include "tools/metrics/exposition.h"

namespace ballast::http {

namespace {

using metrics::Exposition;
using metrics::Labels;
using metrics::Type;

void instance_figures(Exposition& e, const Readiness& r) {
    e.declare("ballast_role", Type::gauge,
              "1 for this instance's role: starting, single, leader, standby, simulation, stopping.");
    e.add("ballast_role", {{"role", r.role}}, 1);
    e.declare("ballast_ready", Type::gauge, "1 when it leads, or follows and has caught up (as /readyz).");
    e.add("ballast_ready", {}, r.ready ? 1 : 0);
    if (r.lag_records < 0) return;
    e.declare("ballast_standby_lag_records", Type::gauge, "A standby: records of the leader's log not yet followed.");
    e.add("ballast_standby_lag_records", {}, static_cast<double>(r.lag_records));
    if (r.lag_ms < 0) return;
    e.declare("ballast_standby_lag_seconds", Type::gauge, "A standby: how far behind the leader's newest record it is.");
    e.add("ballast_standby_lag_seconds", {}, static_cast<double>(r.lag_ms) / 1e3);
}

metrics::HistogramData histogram_data(const store::LatencyHistogram::Figures& figures) {
    metrics::HistogramData data;
    data.upper_bounds.assign(store::LatencyHistogram::upper_bounds_s.begin(), store::LatencyHistogram::upper_bounds_s.end());
    data.bucket_counts.assign(figures.bucket_counts.begin(), figures.bucket_counts.end());
    data.count = figures.count;
    data.sum = figures.sum_s;
    return data;
}

void journal_figures(Exposition& e, const store::Journal& journal) {
    e.declare("ballast_journal_size_bytes", Type::gauge, "Bytes the journal's files take on disk.");
    e.add("ballast_journal_size_bytes", {}, static_cast<double>(journal.disk_size_bytes()));
    e.declare("ballast_journal_events", Type::gauge, "Events the journal holds (after retention).");
    e.add("ballast_journal_events", {}, static_cast<double>(journal.event_count()));
    e.declare("ballast_journal_last_seq", Type::gauge, "The newest journaled seq.");
    e.add("ballast_journal_last_seq", {}, static_cast<double>(journal.last_seq()));
    e.declare("ballast_journal_append_duration_seconds", Type::histogram,
              "Wall-clock time of each journal append (one batch, durable per ballast.journal.sync).");
    e.add_histogram("ballast_journal_append_duration_seconds", {}, histogram_data(journal.append_latency()));
    e.declare("ballast_plan_duration_seconds", Type::histogram,
              "Wall-clock time from the append of a round's barrier to the append of its decision "
              "(routing, planning, journaling; rounds that journal a decision).");
    e.add_histogram("ballast_plan_duration_seconds", {}, histogram_data(journal.round_latency()));
}

void tally_figures(Exposition& e, const store::TallyFigures& t) {
    e.declare("ballast_events_total", Type::counter, "Events journaled since this process began, by type and source.");
    for (const auto& [key, n] : t.events) e.add("ballast_events_total", {{"type", key.first}, {"source", key.second}}, n);
    e.declare("ballast_actions_planned_total", Type::counter, "Actions planned since this process began, by kind and goal.");
    for (const auto& [key, n] : t.actions_planned) {
        e.add("ballast_actions_planned_total", {{"kind", key.first}, {"goal", key.second}}, n);
    }
    e.declare("ballast_action_submissions_total", Type::counter, "Actions submitted (each attempt), by kind and goal.");
    for (const auto& [key, n] : t.submissions) {
        e.add("ballast_action_submissions_total", {{"kind", key.first}, {"goal", key.second}}, n);
    }
    e.declare("ballast_actions_ended_total", Type::counter,
              "Action outcomes (completed, failed, timed_out, cancelled), by kind and goal.");
    for (const auto& [key, n] : t.outcomes) {
        const auto& [kind, goal, outcome] = key;
        e.add("ballast_actions_ended_total", {{"kind", kind}, {"goal", goal}, {"outcome", outcome}}, n);
    }
}

/// Each broker's traffic against the mean of the alive brokers with a
/// sample: the band the network distribution goals hold brokers within is
/// that mean times (1 +- the allowed deviation) when capacities are unknown.
void broker_figures(Exposition& e, const actors::EngineStatus& s) {
    e.declare("ballast_brokers", Type::gauge, "Brokers the engine knows, by liveness.");
    for (goals::Liveness l : {goals::Liveness::alive, goals::Liveness::fenced, goals::Liveness::gone}) {
        double n = 0;
        for (const actors::BrokerRecord& b : s.brokers) n += b.liveness == l ? 1 : 0;
        e.add("ballast_brokers", {{"state", driver::liveness_name(l)}}, n);
    }
    double sum_in = 0, sum_out = 0, sampled = 0;
    for (const actors::BrokerRecord& b : s.brokers) {
        if (b.liveness != goals::Liveness::alive || b.metrics_time_ms < 0) continue;
        sum_in += b.sample.bytes_in_per_s;
        sum_out += b.sample.bytes_out_per_s;
        sampled += 1;
    }
    e.declare("ballast_broker_network_in_bytes_per_second", Type::gauge, "A broker's newest inbound traffic sample.");
    e.declare("ballast_broker_network_out_bytes_per_second", Type::gauge, "A broker's newest outbound traffic sample.");
    e.declare("ballast_broker_size_bytes", Type::gauge, "A broker's newest size on disk sample.");
    e.declare("ballast_broker_network_band_deviation_ratio", Type::gauge,
              "An alive broker's traffic over the alive brokers' mean, minus 1, by direction.");
    for (const actors::BrokerRecord& b : s.brokers) {
        if (b.metrics_time_ms < 0) continue;
        const Labels labels = {{"broker", std::to_string(b.id)}, {"rack", b.rack}};
        e.add("ballast_broker_network_in_bytes_per_second", labels, b.sample.bytes_in_per_s);
        e.add("ballast_broker_network_out_bytes_per_second", labels, b.sample.bytes_out_per_s);
        e.add("ballast_broker_size_bytes", labels, static_cast<double>(b.sample.size_bytes));
        if (b.liveness != goals::Liveness::alive) continue;
        const double mean_in = sum_in / sampled, mean_out = sum_out / sampled;
        if (mean_in > 0) {
            e.add("ballast_broker_network_band_deviation_ratio", {{"broker", std::to_string(b.id)}, {"direction", "in"}},
                  b.sample.bytes_in_per_s / mean_in - 1);
        }
        if (mean_out > 0) {
            e.add("ballast_broker_network_band_deviation_ratio", {{"broker", std::to_string(b.id)}, {"direction", "out"}},
                  b.sample.bytes_out_per_s / mean_out - 1);
        }
    }
    e.declare("ballast_network_band_allowed_deviation_ratio", Type::gauge,
              "How far from the mean a broker's traffic may be (the distribution goals' avg.deviation settings).");
    e.add("ballast_network_band_allowed_deviation_ratio", {{"direction", "in"}},
          s.config.get_double("autobalancer.controller.network.in.distribution.detect.avg.deviation"));
    e.add("ballast_network_band_allowed_deviation_ratio", {{"direction", "out"}},
          s.config.get_double("autobalancer.controller.network.out.distribution.detect.avg.deviation"));
}

void engine_figures(Exposition& e, const actors::EngineStatus& s) {
    e.declare("ballast_planning_rounds_total", Type::counter, "Planning rounds journaled over the journal's life.");
    e.add("ballast_planning_rounds_total", {}, static_cast<double>(s.scheduler.round));
    e.declare("ballast_actions_in_flight", Type::gauge, "Actions submitted and not yet ended.");
    e.add("ballast_actions_in_flight", {}, static_cast<double>(s.in_flight.size()));
    e.declare("ballast_paused", Type::gauge, "1 while an operator's pause holds (nothing new planned or executed).");
    e.add("ballast_paused", {}, s.scheduler.paused ? 1 : 0);
    e.declare("ballast_engine_clock_seconds", Type::gauge, "The engine's time: its newest Tick.");
    e.add("ballast_engine_clock_seconds", {}, static_cast<double>(s.router.now_ms) / 1e3);
    e.declare("ballast_partitions", Type::gauge, "Partitions that exist now.");
    e.add("ballast_partitions", {}, static_cast<double>(s.partitions));
    broker_figures(e, s);
}

Response get_metrics(EngineAccess& access, const ApiOptions& options) {
    Response response;
    const events::Status called = access.call(
        [&](actors::Engine* engine, int64_t) {
            Exposition e;
            instance_figures(e, access.readiness());
            if (engine != nullptr) {
                events::Result<actors::EngineStatusPtr> status = engine->status();
                if (!status) {
                    response = engine_error(status.error());
                    return;
                }
                engine_figures(e, **status);
                if (const store::Journal* journal = engine->journal()) {
                    journal_figures(e, *journal);
                    tally_figures(e, journal->append_tally());
                }
            }
            response.status = 200;
            response.body = e.text();
            response.content_type = metrics::content_type;
        },
        options.engine_timeout_ms);
    if (!called) return error_response(503, called.error().message);
    return response;
}

}  // namespace

void add_metrics_routes(Router& router, EngineAccess& access, const ApiOptions& options) {
    router.add("GET", "/metrics", Access::read,
               [&access, options](const Request&) { return get_metrics(access, options); });
}

}  // namespace ballast::http
