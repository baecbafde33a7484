#include "events/config.h"

/// Every configuration key Ballast knows: name, type, default, bounds and
/// the one-line description `ballast config --defaults` prints. Parsing and
/// the .properties format are in config.cc.

#include <cassert>
#include <limits>

namespace ballast::events {

namespace {

// ------------------------------------------------------------ list element checks

std::string check_capacity_override(std::string_view element) {
    Result<CapacityOverride> parsed = parse_capacity_override(element);
    return parsed ? std::string() : parsed.error().message;
}

std::string check_metrics_source(std::string_view element) {
    for (std::string_view known : {"sampler", "automq", "cruise-control"}) {
        if (element == known) return {};
    }
    return "sampler, automq or cruise-control";
}

std::string check_listen_address(std::string_view text) {
    Result<ListenAddress> parsed = parse_listen_address(text);
    return parsed ? std::string() : parsed.error().message;
}

std::string check_action_kind(std::string_view element) {
    return element == "move" || element == "swap" || element == "leader" ? std::string() : "move, swap or leader";
}

constexpr int64_t int32_max = std::numeric_limits<int32_t>::max();
constexpr int64_t two_pow_62 = int64_t{1} << 62;
constexpr int64_t one_day_ms = 86'400'000;

// ------------------------------------------------------------ the key table

KeySpec boolean_key(std::string_view key, std::string_view default_value,
                    std::string_view description) {
    return KeySpec{.key = key,
                   .type = ValueType::boolean,
                   .default_value = default_value,
                   .description = description};
}

KeySpec int_key(ValueType type, std::string_view key, std::string_view default_value,
                int64_t min, int64_t max, std::string_view description) {
    assert(type == ValueType::int32 || type == ValueType::int64 || type == ValueType::int_list);
    // int32 values and int_list elements are stored as int32: the bounds must fit.
    assert(type == ValueType::int64 || (min >= -int32_max - 1 && max <= int32_max));
    return KeySpec{.key = key,
                   .type = type,
                   .default_value = default_value,
                   .description = description,
                   .min_int = min,
                   .max_int = max};
}

KeySpec float_key(std::string_view key, std::string_view default_value, double min, double max,
                  std::string_view description) {
    return KeySpec{.key = key,
                   .type = ValueType::float64,
                   .default_value = default_value,
                   .description = description,
                   .min_double = min,
                   .max_double = max};
}

KeySpec string_key(std::string_view key, std::string_view default_value, bool allow_empty,
                   std::string_view description) {
    return KeySpec{.key = key,
                   .type = ValueType::string,
                   .default_value = default_value,
                   .description = description,
                   .allow_empty = allow_empty};
}

KeySpec plain_key(ValueType type, std::string_view key, std::string_view default_value,
                  std::string_view description) {
    return KeySpec{.key = key,
                   .type = type,
                   .default_value = default_value,
                   .description = description};
}

KeySpec choice_key(std::string_view key, std::string_view default_value,
                   std::vector<std::string_view> choices, std::string_view description) {
    return KeySpec{.key = key,
                   .type = ValueType::choice,
                   .default_value = default_value,
                   .description = description,
                   .choices = std::move(choices)};
}

/// A Kafka client property as a Ballast setting (`kafka.` + its name): text,
/// checked where it is read (adapters/kafka/client_properties.h, which also
/// reads `--command-config`), never journaled.
KeySpec kafka_key(std::string_view key, std::string_view default_value, std::string_view description,
                  bool secret = false) {
    return KeySpec{.key = key,
                   .type = ValueType::string,
                   .default_value = default_value,
                   .description = description,
                   .secret = secret,
                   .journaled = false,
                   .start_only = true};
}

/// A setting of this process alone, read when it starts (its HTTP API):
/// never journaled.
KeySpec process_key(KeySpec spec) {
    spec.journaled = false;
    spec.start_only = true;
    return spec;
}

/// A journaled key that only the process reads, when it starts (the
/// journal, the adapters' threads and clients): see KeySpec::start_only.
KeySpec at_start(KeySpec spec) {
    spec.start_only = true;
    return spec;
}

std::vector<KeySpec> make_config_keys() {
    using enum ValueType;
    return {
        // AutoMQ-compatible keys.
        boolean_key("autobalancer.controller.enable", "true",
                    "When false Ballast observes and plans but executes nothing."),
        plain_key(goal_list, "autobalancer.controller.goals",
                  "RackAwareGoal,ReplicaCapacityGoal,NetworkInCapacityGoal,NetworkOutCapacityGoal,"
                  "DiskCapacityGoal,NetworkInUsageDistributionGoal,NetworkOutUsageDistributionGoal,"
                  "ReplicaCountDistributionGoal,LeaderCountDistributionGoal,TopicSpreadGoal",
                  "Goals in priority order; a lower goal never undoes a higher one. AutoMQ class "
                  "names (kafka.autobalancer.goals.X) are accepted."),
        int_key(int64, "autobalancer.controller.anomaly.detect.interval.ms", "60000", 1, one_day_ms,
                "How often the cluster model is checked for goal violations."),
        int_key(int64, "autobalancer.controller.execution.interval.ms", "5000", 0, one_day_ms,
                "Pause between two batches of executed actions."),
        int_key(int32, "autobalancer.controller.execution.concurrency", "50", 1, 100'000,
                "Most partition moves in flight across the cluster."),
        int_key(int_list, "autobalancer.controller.exclude.broker.ids", "", 0, int32_max,
                "Brokers that are never chosen as a destination or source of moves."),
        plain_key(string_list, "autobalancer.controller.exclude.topics", "",
                  "Topics whose partitions are never moved."),
        int_key(int64, "autobalancer.controller.metrics.delay.ms", "60000", 0, one_day_ms,
                "Metrics older than this are stale and not used for planning."),
        float_key("autobalancer.controller.network.in.distribution.detect.avg.deviation", "0.1",
                  0, 1, "Inbound traffic is balanced when every broker is within this fraction "
                        "of the mean."),
        float_key("autobalancer.controller.network.out.distribution.detect.avg.deviation", "0.1",
                  0, 1, "Outbound traffic is balanced when every broker is within this fraction "
                        "of the mean."),
        int_key(int64, "autobalancer.controller.network.in.usage.distribution.detect.threshold",
                "1048576", 0, two_pow_62,
                "A broker below this inbound bytes/s is balanced when the mean is below it too."),
        int_key(int64, "autobalancer.controller.network.out.usage.distribution.detect.threshold",
                "1048576", 0, two_pow_62,
                "A broker below this outbound bytes/s is balanced when the mean is below it too."),
        float_key("autobalancer.controller.network.in.trivial.change.ratio", "0.05", 0, 1,
                  "A move shifting less than this fraction of a broker's inbound load is not "
                  "worth making."),
        float_key("autobalancer.controller.network.out.trivial.change.ratio", "0.05", 0, 1,
                  "A move shifting less than this fraction of a broker's outbound load is not "
                  "worth making."),

        // Ballast's own keys.
        at_start(string_key("ballast.journal.path", "ballast-journal", false,
                            "Directory of the event journal and its snapshots.")),
        at_start(boolean_key("ballast.journal.sync", "true",
                             "fsync each group commit; false leaves flushing to the OS (a process crash "
                             "loses nothing; a machine crash loses what the OS had not yet written back, "
                             "at worst every append since the journal's last memtable flush).")),
        int_key(int64, "ballast.journal.retention.ms", "604800000", 0, two_pow_62,
                "Events older than this AND covered by the newest snapshot may be deleted."),
        int_key(int64, "ballast.journal.retention.bytes", "10737418240", 0, two_pow_62,
                "The journal's events and snapshots are kept within this many bytes by deleting "
                "the oldest first, up to a snapshot (it always starts at one). The newest "
                "snapshot and the events after it are always kept, so the journal stays larger "
                "while they alone are. Sizes are RocksDB's estimates; its write-ahead log "
                "and logs come on top. With "
                "ballast.journal.retention.ms, whichever deletes more applies. 0: no size limit."),
        int_key(int64, "ballast.snapshot.interval.events", "100000", 1, two_pow_62,
                "A snapshot of the cluster model is written every this many events."),
        int_key(int64, "ballast.journal.snapshot.spacing.ms", "3600000", 0, two_pow_62,
                "Snapshots older than the newest are thinned to one per this much time (the "
                "journal's first always kept): recovery needs only the newest and a replay the "
                "first; retention cuts at a snapshot, so this is how finely it cuts. 0: keep all."),
        int_key(int64, "ballast.snapshot.interval.samples", "5000000", 1, two_pow_62,
                "A snapshot is also written once this many partition samples have come in since the "
                "last one: a restart replays what came after the newest snapshot, and a metrics "
                "report costs by its samples (1,000 a report is common)."),
        int_key(int64, "ballast.partition.cooldown.ms", "60000", 0, one_day_ms,
                "A partition that just moved is not moved again for this long."),
        KeySpec{.key = "ballast.planner.actions",
                .type = ValueType::string_list,
                .default_value = "move,swap,leader",
                .description = "Kinds of action balancing may use besides moves (always on): swap, leader; AutoMQ's balancer: move only.",
                .element_check = check_action_kind},
        int_key(int32, "ballast.planner.actions.max", "0", 0, 100'000'000,
                "Most actions one planning round proposes (the gate releases fewer); 0: four times "
                "autobalancer.controller.execution.concurrency, at most 100,000."),
        int_key(int64, "ballast.planner.decision.delay.ms", "0", 0, one_day_ms,
                "A round's actions take effect at the first Tick this long after the round "
                "began; until then events flow past the planner. 0: the next Tick."),
        int_key(int64, "ballast.partition.return.block.ms", "300000", 0, one_day_ms,
                "A balancing move never puts a partition back on a broker it left less than this ago."),
        int_key(int64, "ballast.broker.failure.grace.ms", "10000", 0, one_day_ms,
                "A broker must stay fenced this long before its partitions are moved away (raised "
                "for a broker fenced again and again: ballast.broker.flap.*)."),
        int_key(int32, "ballast.broker.flap.fences", "3", 0, 8,
                "A broker fenced this many times within ballast.broker.flap.window.ms is unstable: "
                "it takes no load (no refill, no evacuated replicas, no leadership) until alive for "
                "ballast.broker.stable.ms; each fencing within the window after the first also "
                "doubles its failure grace. 0: no damping."),
        int_key(int64, "ballast.broker.flap.window.ms", "600000", 0, one_day_ms,
                "The window in which a broker's fencings count towards flapping."),
        int_key(int64, "ballast.broker.failure.grace.max.ms", "600000", 0, one_day_ms,
                "The most a flapping broker's failure grace is raised to."),
        int_key(int64, "ballast.broker.stable.ms", "300000", 0, one_day_ms,
                "An unstable (flapping) broker takes load again once it has been alive this long "
                "without a break."),
        int_key(int32, "ballast.broker.max.inflight.moves", "5", 1, 100'000,
                "Most partition moves in flight into or out of one broker."),
        int_key(int64, "ballast.action.timeout.ms", "600000", 1000, one_day_ms,
                "An action not finished after this long is cancelled and reported."),
        int_key(int32, "ballast.action.retries.max", "3", 0, 100,
                "A retriable failure is retried this many times before the action is dropped."),
        int_key(int64, "ballast.action.retry.backoff.ms", "2000", 0, one_day_ms,
                "Wait before the first retry; each further retry waits twice as long."),
        float_key("ballast.broker.capacity.network.in.bytes.per.s", "0", 0, 1e15,
                  "Inbound network capacity of every broker, bytes/s; 0 = unknown (not checked). Known for "
                  "every broker, the distribution goals balance utilization (load / capacity)."),
        float_key("ballast.broker.capacity.network.out.bytes.per.s", "0", 0, 1e15,
                  "Outbound network capacity of every broker, bytes/s; 0 = unknown (not checked). Known for "
                  "every broker, the distribution goals balance utilization (load / capacity)."),
        float_key("ballast.broker.capacity.disk.bytes", "0", 0, 1e18,
                  "Disk capacity of every broker, bytes; 0 = unknown (not checked)."),
        int_key(int32, "ballast.broker.capacity.replicas.max", "0", 0, 10'000'000,
                "Most replicas one broker may hold; 0 = no limit."),
        KeySpec{.key = "ballast.broker.capacity.overrides",
                .type = ValueType::string_list,
                .default_value = "",
                .description = "Per-broker capacities over the defaults above, e.g. "
                               "4:in=104857600:out=209715200:disk=1e12:replicas=4000,5:in=52428800.",
                .element_check = check_capacity_override},
        float_key("ballast.capacity.threshold", "0.8", 0.01, 1,
                  "Capacity goals keep load <= capacity x this."),
        choice_key("ballast.cluster.flavor", "apache", {"apache", "automq"},
                   "apache: a replica is re-created by copying from a live one; automq: shared "
                   "storage, partitions on a dead broker can still move."),
        float_key("ballast.replication.throttle.bytes.per.s", "0", 0, 1e15,
                  "apache: the rate a moved replica copies at, bytes/s: the cluster's reassignment "
                  "throttle (leader/follower.replication.throttled.rate, as kafka-reassign-partitions "
                  "--throttle sets it); 0 = unknown or unthrottled. A partition producing within 10% of "
                  "it, or whose copy would outlast ballast.action.timeout.ms, is not moved (reported "
                  "unfixable when a dead broker or a rack needs it to)."),
        at_start(int_key(int64, "ballast.tick.interval.ms", "1000", 10, 60'000,
                         "`ballast run`: how often the clock thread feeds the engine a Tick (wall-clock "
                         "epoch ms); every time the engine sees comes from these ticks.")),
        at_start(int_key(int64, "ballast.metadata.poll.ms", "1000", 10, one_day_ms,
                         "How often the Kafka adapter polls cluster metadata and reports what changed.")),
        at_start(choice_key("ballast.metadata.source", "auto", {"auto", "kraft", "poll"},
                            "Where `ballast run` learns the cluster's metadata: kraft (KRaft's metadata log, "
                            "fetched from the controllers given by --bootstrap-controller, with the brokers' "
                            "kafka.* security; each event carries its log offset), poll (DescribeCluster, "
                            "ListPartitionReassignments and metadata every ballast.metadata.poll.ms, every "
                            "partition once a ballast.metadata.poll.sweep.ms), "
                            "or auto: kraft when --bootstrap-controller is given, else poll. A controller "
                            "that cannot be read at start falls back to poll with a warning.")),
        at_start(int_key(int64, "ballast.metadata.poll.sweep.ms", "60000", 0, one_day_ms,
                         "Incremental metadata polls: every partition is read again at least once in this "
                         "period, a slice each poll (brokers, reassignments and the topics Ballast is "
                         "moving are read every poll); a change nothing else points to shows within it. "
                         "0: every poll reads the whole cluster's metadata.")),
        at_start(KeySpec{.key = "ballast.metrics.source",
                         .type = ValueType::string_list,
                         .default_value = "sampler",
                         .description = "Where partition and broker metrics come from (several allowed): "
                                        "sampler (agentless: log sizes and end offsets), automq "
                                        "(AutoMQ's metrics topic), cruise-control (Cruise Control's "
                                        "metrics reporter topic).",
                         .element_check = check_metrics_source}),
        at_start(int_key(int64, "ballast.metrics.sample.interval.ms", "10000", 100, one_day_ms,
                         "How often metrics are sampled (sampler) or reported from the metrics topics "
                         "(automq, cruise-control).")),
        at_start(int_key(int64, "ballast.metrics.consumer.interval.ms", "0", 0, one_day_ms,
                         "How often the sampler reads consumer groups' committed offsets to estimate "
                         "each partition's bytes out (ListGroups, FindCoordinator, OffsetFetch); "
                         "0: every sample. Slower saves requests on clusters with many groups.")),
        int_key(int64, "ballast.metrics.window.ms", "300000", 0, one_day_ms,
                "A partition's load is its samples over this window (aggregated by "
                "ballast.metrics.window.aggregate), so a burst does not move partitions and a "
                "quiet minute does not move them back; 0: the newest sample alone."),
        choice_key("ballast.metrics.window.aggregate", "p50", {"p50", "p75", "p90", "p95", "p99", "max", "mean"},
                   "How a window's samples make a partition's load: a percentile of the window's "
                   "eight slices (each the mean of its samples; max is the busiest), or the mean of "
                   "all its samples. The median (p50) ignores a burst or a lull shorter than half the "
                   "window, which a mean only dilutes."),
        at_start(string_key("ballast.metrics.automq.topic", "__auto_balancer_metrics", false,
                            "The topic AutoMQ's metrics reporter writes (metrics source automq).")),
        at_start(string_key("ballast.metrics.cruise.control.topic", "__CruiseControlMetrics", false,
                            "The topic Cruise Control's metrics reporter writes (metrics source "
                            "cruise-control).")),
        at_start(boolean_key("ballast.ha.enable", "false",
                             "`ballast run`: one of several instances (high availability). A Kafka consumer "
                             "group elects the leader, which alone acts and publishes its journal to a Kafka "
                             "topic; the others follow it and take over when it goes.")),
        at_start(string_key("ballast.ha.group.id", "ballast", false,
                            "High availability: the consumer group that elects the leader; every instance "
                            "with the same group id is one Ballast. Two group ids on one cluster elect two "
                            "leaders that both act; a leader that finds another group's warns, naming it.")),
        at_start(string_key("ballast.ha.journal.topic", "", true,
                            "High availability: the topic the leader publishes its journal to (one "
                            "partition); empty: \"<group id>-journal\". Snapshots go to \"<topic>-snapshots\".")),
        at_start(string_key("ballast.ha.instance.id", "", true,
                            "High availability: this instance's name in the group and in the journal; "
                            "empty: host name and process id.")),
        at_start(int_key(int64, "ballast.ha.session.timeout.ms", "6000", 1000, 300'000,
                         "High availability: how long the group waits for a silent leader before it elects "
                         "another (the brokers' group.min.session.timeout.ms is 6000 by default); a leader "
                         "makes no admin call later than this less two heartbeats and a second after its "
                         "last committed publication.")),
        at_start(int_key(int64, "ballast.ha.journal.retention.ms", "604800000", 3'600'000, two_pow_62,
                         "High availability: retention.ms of the journal topic when Ballast creates it (7 days; "
                         "an existing topic keeps its own). Must hold at least the time between two snapshots, "
                         "which the snapshots topic keeps 24 h: an instance that joins late starts from the "
                         "newest snapshot and reads the journal topic from there.")),
        at_start(int_key(int64, "ballast.ha.journal.retention.bytes", "10737418240", 0, two_pow_62,
                         "High availability: retention.bytes of the journal topic when Ballast creates it "
                         "(10 GiB; 0: no size bound, as Kafka's -1; an existing topic keeps its own).")),
        at_start(choice_key("ballast.log.level", "info",
                            {"trace", "debug", "info", "warn", "error", "critical", "off"},
                            "Least severe log level that is written.")),

        // The HTTP API of `ballast run` and `ballast sim --realtime` (tools/http/).
        process_key(KeySpec{.key = "ballast.http.listen",
                            .type = ValueType::string,
                            .default_value = "127.0.0.1:9470",
                            .description = "`ballast run` and `ballast sim --realtime`: the HTTP API's address, "
                                           "HOST:PORT ([::1]:PORT for IPv6; port 0: any free port, logged at "
                                           "start); empty: no HTTP API. Beyond loopback, write verbs need "
                                           "ballast.http.auth.token.",
                            .element_check = check_listen_address}),
        process_key(KeySpec{.key = "ballast.http.auth.token",
                            .type = ValueType::string,
                            .default_value = "",
                            .description = "The bearer token every /v1 request must carry (Authorization: Bearer "
                                           "TOKEN); empty: none, and write verbs are then refused unless the "
                                           "listener is loopback. Never journaled; shown as [hidden].",
                            .secret = true}),
        process_key(string_key("ballast.http.auth.token.file", "", true,
                               "A file whose first line is the bearer token (read at start), instead of "
                               "ballast.http.auth.token.")),

        // How Ballast connects to Kafka: Kafka's client properties, prefixed.
        // One given here wins over the same property in --command-config.
        kafka_key("kafka.security.protocol", "PLAINTEXT",
                  "security.protocol of every connection to the cluster: PLAINTEXT, SSL, SASL_PLAINTEXT or "
                  "SASL_SSL. Like every kafka.* key: Kafka's client property of that name, never journaled, "
                  "and it wins over the same property in `run --command-config FILE`."),
        kafka_key("kafka.sasl.mechanism", "",
                  "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; the SASL protocols need one (Kafka's default, "
                  "GSSAPI, is not supported)."),
        kafka_key("kafka.sasl.jaas.config", "",
                  "The SASL login: org.apache.kafka.common.security.plain.PlainLoginModule (or "
                  "org.apache.kafka.common.security.scram.ScramLoginModule) required username=\"...\" "
                  "password=\"...\"; Shown as [hidden].",
                  true),
        kafka_key("kafka.ssl.truststore.location", "",
                  "The CA certificates that may sign the brokers' certificates; empty: the system's."),
        kafka_key("kafka.ssl.truststore.type", "",
                  "PEM or PKCS12; needed with a location (Kafka's default, JKS, is not read: convert it with "
                  "keytool -importkeystore -deststoretype PKCS12)."),
        kafka_key("kafka.ssl.truststore.password", "", "The PKCS12 trust store's password. Shown as [hidden].", true),
        kafka_key("kafka.ssl.keystore.location", "",
                  "Ballast's own certificate and key, for brokers that require client certificates "
                  "(ssl.client.auth=required); empty: none."),
        kafka_key("kafka.ssl.keystore.type", "",
                  "PEM (the private key and the certificate chain in one file) or PKCS12; needed with a "
                  "location."),
        kafka_key("kafka.ssl.keystore.password", "", "The PKCS12 key store's password. Shown as [hidden].", true),
        kafka_key("kafka.ssl.key.password", "",
                  "The password of a PEM key store's encrypted private key. Shown as [hidden].", true),
        kafka_key("kafka.ssl.endpoint.identification.algorithm", "https",
                  "https: a broker's certificate must name the host Ballast connects to; empty: it is not "
                  "checked (any certificate the trust store vouches for is accepted)."),
    };
}

}  // namespace

const std::vector<KeySpec>& config_keys() {
    static const std::vector<KeySpec> keys = make_config_keys();
    return keys;
}

const KeySpec* find_key(std::string_view key) {
    // A linear scan: there are a couple dozen keys and lookups happen at startup.
    for (const KeySpec& spec : config_keys()) {
        if (spec.key == key) return &spec;
    }
    return nullptr;
}

}  // namespace ballast::events
