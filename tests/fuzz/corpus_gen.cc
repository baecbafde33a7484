/// Writes the seed corpora of tests/fuzz/corpus/ from the test suites' own
/// samples: every event kind (`event_examples()`), a few deterministic events,
/// a journal run, engine snapshots, the Kafka wire vectors and metadata log that Kafka's own
/// classes wrote, metrics records built by the formats' descriptions, a
/// configuration, and the seed scenarios. Run from the checkout's top level:
///
///   build-fuzz/tests/fuzz/fuzz_corpus_gen tests/fuzz/corpus
///
/// A seed is a valid input: the fuzzer mutates from there, so it reaches past
/// the first length check at once.

#include <bit>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "actors/engine_snapshot.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "events/config.h"
#include "events/event.h"
#include "store/journal_record.h"
#include "store/journal_samples.h"
#include "tests/support/event_gen.h"
#include "tests/support/sample_events.h"

using namespace ballast;
namespace fs = std::filesystem;

namespace {

fs::path out_root;

void write(const std::string& harness, const std::string& name, std::string_view bytes) {
    const fs::path dir = out_root / harness;
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void write(const std::string& harness, const std::string& name, std::span<const uint8_t> bytes) {
    write(harness, name, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "fuzz_corpus_gen: cannot read " << path << " (run from the checkout's top level)\n";
        std::exit(1);
    }
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<events::Event> seed_events() {
    std::vector<events::Event> out = testing::event_examples();
    for (uint64_t seq = 1; seq <= 4; seq++) out.push_back(testing::sample_event_at(seq));
    return out;
}

void events_and_json() {
    const std::vector<events::Event> all = seed_events();
    for (size_t i = 0; i < all.size(); i++) {
        const std::string name = std::to_string(i) + "-" + events::type_name(all[i].type());
        write("event_decode_fuzz", name, events::encode(all[i]));
        write("event_json_fuzz", name + ".json", events::to_json(all[i]));
    }
}

void journal_runs() {
    // A run of four events, and one event under a key from before runs.
    store::RunBuilder run;
    for (uint64_t seq = 1; seq <= 4; seq++) run.add(seq, events::encode(testing::sample_event_at(seq)));
    write("journal_record_fuzz", "run-1-4", std::string(1, '\x01') + run.key() + run.value());
    // The same four with the samples report (seq 3) in its compact record,
    // and a run of one report of many samples over two topics.
    store::RunBuilder compact_run;
    std::string compact;
    for (uint64_t seq = 1; seq <= 4; seq++) {
        const events::Event event = testing::sample_event_at(seq);
        if (store::encode_compact_samples(event, &compact)) {
            compact_run.add(seq, {reinterpret_cast<const uint8_t*>(compact.data()), compact.size()});
        } else {
            compact_run.add(seq, events::encode(event));
        }
    }
    write("journal_record_fuzz", "run-1-4-compact", std::string(1, '\x01') + compact_run.key() + compact_run.value());
    events::Event many = testing::sample_event_at(11);
    auto& metrics = std::get<events::PartitionMetrics>(many.body);
    metrics.topics = {"orders", "payments"};
    metrics.samples.clear();
    for (int32_t i = 0; i < 24; i++) {
        metrics.samples.push_back({static_cast<uint32_t>(i / 12), i % 12 + (i % 12 > 8 ? 3 : 0), 1000.0 * i,
                                   1500.0 * i, 10.0 * i, static_cast<uint64_t>(i) << 20});
    }
    many = store::as_journaled(many);
    store::RunBuilder many_run;
    if (store::encode_compact_samples(many, &compact)) {
        many_run.add(11, {reinterpret_cast<const uint8_t*>(compact.data()), compact.size()});
        write("journal_record_fuzz", "run-11-compact-24", std::string(1, '\x01') + many_run.key() + many_run.value());
        // The bare payload after a key, for the harness's direct look at the decoder.
        write("journal_record_fuzz", "compact-24", std::string(1, '\x01') + many_run.key() + compact);
    }
    std::string record;
    store::encode_record(events::encode(testing::sample_event_at(7)), &record);
    write("journal_record_fuzz", "legacy-7", std::string(1, '\x00') + store::key_string(7) + record);
}

void snapshots() {
    actors::EngineSnapshot empty;
    write("engine_snapshot_fuzz", "empty", actors::encode_snapshot(empty));

    actors::EngineSnapshot s;
    s.seq = 42;
    s.router.now_ms = 123'000;
    s.router.last_seq = 42;
    s.config_properties = "ballast.partition.cooldown.ms=1000\n";
    s.topics = {"orders", "payments"};
    for (uint32_t i = 0; i < 6; i++) {
        actors::PartitionRecord p;
        p.topic = i % 2;
        p.partition = static_cast<int32_t>(i / 2);
        p.exists = true;
        p.leader = static_cast<int32_t>(i % 3) + 1;
        p.replica_count = 2;
        p.replicas[0] = p.leader;
        p.replicas[1] = p.leader % 3 + 1;
        p.bytes_in_per_s = 1000.5 * i;
        p.applied_seq = i;
        s.partitions.push_back(p);
    }
    for (int32_t id = 1; id <= 3; id++) {
        actors::BrokerRecord b;
        b.id = id;
        b.rack = "rack-" + std::to_string(id);
        b.registered = true;
        s.brokers.push_back(b);
    }
    for (const events::Event& e : testing::event_examples()) {
        if (const auto* planned = std::get_if<events::ActionsPlanned>(&e.body); planned && !planned->actions.empty()) {
            actors::TrackedAction tracked;
            tracked.action = planned->actions[0];
            tracked.partition_slots = {0};
            tracked.attempt = 1;
            tracked.started_ms = 120'000;
            s.executor.inflight.push_back(tracked);
        }
    }
    s.executor.backoff[1] = actors::MoveBackoff{2, 100'000};
    s.scheduler.round = 9;
    s.scheduler.next_action_id = 77;
    s.scheduler.operator_excluded_brokers = {3};
    s.scheduler.operator_excluded_topics = {"payments"};
    s.scheduler.draining_brokers = {2};
    s.scheduler.unfixable = {"orders-0: rack"};
    write("engine_snapshot_fuzz", "small", actors::encode_snapshot(s));
}

/// The response vectors of tests/kafka/vectors/kafka_vectors.txt, each behind
/// the byte that picks its API and version in kafka_wire_response_fuzz.
void wire_vectors() {
    std::vector<std::pair<std::string, int16_t>> choices;  // (snake_case name, version)
    for (const kafka::wire::ApiSpec& spec : kafka::wire::implemented_apis()) {
        std::string snake;
        for (const char c : std::string(spec.name)) {
            if (std::isupper(static_cast<unsigned char>(c)) && !snake.empty()) snake += '_';
            snake += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        for (int16_t v = spec.versions.min; v <= spec.versions.max; v++) choices.emplace_back(snake, v);
    }
    std::istringstream lines(read_file("tests/kafka/vectors/kafka_vectors.txt"));
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("response.", 0) != 0) continue;
        const size_t space = line.find(' ');
        const std::string name = line.substr(0, space);
        const std::string hex = line.substr(space + 1);
        const std::string api = name.substr(9, name.find('.', 9) - 9);
        const int16_t version = static_cast<int16_t>(std::stoi(name.substr(name.rfind(".v") + 2)));
        for (size_t i = 0; i < choices.size(); i++) {
            if (choices[i].first != api || choices[i].second != version) continue;
            std::string bytes(1, static_cast<char>(i));
            for (size_t h = 0; h + 1 < hex.size(); h += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(h, 2), nullptr, 16)));
            write("kafka_wire_response_fuzz", name, bytes);
        }
    }
}

/// KRaft's metadata log from kafka_vectors.txt (Kafka's MemoryRecords and record classes
/// wrote them): the batches behind byte 0 (the log decoder), the records behind byte 1.
void metadata_log() {
    std::istringstream lines(read_file("tests/kafka/vectors/kafka_vectors.txt"));
    std::string line;
    std::string log(1, '\0');
    while (std::getline(lines, line)) {
        const bool batch = line.rfind("batch.", 0) == 0;
        if (!batch && line.rfind("metadata.", 0) != 0) continue;
        const size_t space = line.find(' ');
        const std::string name = line.substr(0, space);
        const std::string hex = line.substr(space + 1);
        std::string bytes(1, batch ? '\0' : '\1');
        for (size_t h = 0; h + 1 < hex.size(); h += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(h, 2), nullptr, 16)));
        write("metadata_log_fuzz", name, bytes);
        if (name == "batch.metadata" || name == "batch.control.leader_change") log += bytes.substr(1);
    }
    write("metadata_log_fuzz", "log.metadata_then_control", log);
}

/// The SCRAM server messages of kafka_vectors.txt (Kafka's formatter wrote
/// them), each behind the byte that picks its reader in scram_message_fuzz,
/// and a little base64.
void scram_messages() {
    std::istringstream lines(read_file("tests/kafka/vectors/kafka_vectors.txt"));
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("scram.", 0) != 0) continue;
        const size_t space = line.find(' ');
        const std::string name = line.substr(0, space);
        const std::string hex = line.substr(space + 1);
        const bool first = name.ends_with(".server_first");
        if (!first && !name.ends_with(".server_final")) continue;
        std::string bytes(1, static_cast<char>(first ? 0 : 1));
        for (size_t h = 0; h + 1 < hex.size(); h += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(h, 2), nullptr, 16)));
        write("scram_message_fuzz", name, bytes);
    }
    write("scram_message_fuzz", "server_final.error", std::string(1, '\x01') + "e=invalid-proof");
    write("scram_message_fuzz", "base64", std::string(1, '\x02') + "Zm9vYmE=");
}

/// Big-endian bytes, as Java's ByteBuffer writes them.
class Bytes {
public:
    Bytes& i8(int8_t v) { return raw(static_cast<uint8_t>(v), 1); }
    Bytes& i32(int32_t v) { return raw(static_cast<uint32_t>(v), 4); }
    Bytes& i64(int64_t v) { return raw(static_cast<uint64_t>(v), 8); }
    Bytes& f64(double v) { return raw(std::bit_cast<uint64_t>(v), 8); }
    Bytes& text(const std::string& s) {
        i32(static_cast<int32_t>(s.size()));
        bytes += s;
        return *this;
    }
    std::string bytes;

private:
    Bytes& raw(uint64_t v, int n) {
        for (int i = n - 1; i >= 0; i--) bytes.push_back(static_cast<char>(v >> (8 * i)));
        return *this;
    }
};

void metrics() {
    Bytes partition;
    partition.i8(0).i8(0).i64(1'700'000'000'123).i32(3).text("rack-3").text("orders").i32(7);
    partition.i32(3).i8(0).f64(1024.5).i8(1).f64(2048).i8(2).f64(1e9);
    write("automq_metric_fuzz", "partition", partition.bytes);
    Bytes broker;
    broker.i8(1).i8(0).i64(5).i32(2).i32(0).i32(2).i8(6).f64(2).i8(3).f64(1.25);
    write("automq_metric_fuzz", "broker", broker.bytes);

    Bytes all_bytes_in;  // broker scope: class 0, version 0, ALL_TOPIC_BYTES_IN
    all_bytes_in.i8(0).i8(0).i8(0).i64(1'700'000'000'000).i32(1).f64(5e6);
    write("cruise_control_metric_fuzz", "broker-bytes-in", all_bytes_in.bytes);
    Bytes topic_bytes_in;  // topic scope: TOPIC_BYTES_IN
    topic_bytes_in.i8(1).i8(0).i8(2).i64(1'700'000'000'000).i32(1).text("orders").f64(2.5e6);
    write("cruise_control_metric_fuzz", "topic-bytes-in", topic_bytes_in.bytes);
    Bytes partition_size;  // partition scope: PARTITION_SIZE
    partition_size.i8(2).i8(0).i8(4).i64(1'700'000'000'000).i32(1).text("orders").i32(0).f64(1e9);
    write("cruise_control_metric_fuzz", "partition-size", partition_size.bytes);
}

void configs() {
    write("config_properties_fuzz", "defaults.properties", events::Config::defaults().to_properties_text());
    write("config_properties_fuzz", "some.properties",
          "# AutoMQ's names and Ballast's own\n"
          "autobalancer.controller.goals=ReplicaDistributionGoal,NetworkInUsageDistributionGoal\n"
          "autobalancer.controller.exclude.broker.ids = 1, 2\n"
          "ballast.journal.sync=false\n"
          "ballast.broker.capacity.overrides=1:in=1000000:out=2000000,2:replicas=100\n"
          "ballast.metrics.source : sampler,cruise-control\n");
    write("config_properties_fuzz", "continued.properties",
          "! a comment\nballast.journal.path=/var/lib/\\\n  ballast\nballast.cluster.flavor=automq\n");
}

void scenarios() {
    for (const char* name : {"node-change", "traffic-skew"}) {
        const fs::path base = fs::path("adapters/sim/scenarios") / name;
        write("scenario_json_fuzz", std::string(name) + ".json", read_file(base.string() + ".json"));
        write("scenario_toml_fuzz", std::string(name) + ".toml", read_file(base.string() + ".toml"));
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: fuzz_corpus_gen OUT_DIR (run from the checkout's top level)\n";
        return 2;
    }
    out_root = argv[1];
    events_and_json();
    journal_runs();
    snapshots();
    wire_vectors();
    scram_messages();
    metadata_log();
    metrics();
    configs();
    scenarios();
    return 0;
}
