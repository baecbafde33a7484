// Plans a cluster described in Ballast's neutral JSON (goals/README.md, "A cluster described
// in JSON") with LinkedIn Cruise Control's optimizer, used as a library: the side-by-side
// benchmark's peer (bench/peers/README.md). Our code; Cruise Control's classes come from
// $CRUISE_CONTROL_CLASSPATH (bench/peers/build-cruise-control). Run through
// bench/peers/cruise-control-plan, which compiles this file.
//
//   cruise-control-plan --model M.json [--goals A,B,...] [--assignment-out FILE] [--json]
//                       [--balance-threshold X] [--no-fast-mode] [--set CC_KEY=VALUE ...]
//
// Exit status: 0 planned (goals that failed are reported, not fatal), 2 bad arguments or input,
// 1 anything unexpected.

package ballast.peers;

import ballast.peers.ModelFile.BrokerSpec;
import ballast.peers.ModelFile.InputError;
import ballast.peers.ModelFile.Model;
import ballast.peers.ModelFile.PartitionSpec;
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.linkedin.cruisecontrol.monitor.sampling.aggregator.AggregatedMetricValues;
import com.linkedin.cruisecontrol.monitor.sampling.aggregator.MetricValues;
import com.linkedin.kafka.cruisecontrol.analyzer.AnalyzerUtils;
import com.linkedin.kafka.cruisecontrol.analyzer.BalancingConstraint;
import com.linkedin.kafka.cruisecontrol.analyzer.OptimizationOptions;
import com.linkedin.kafka.cruisecontrol.analyzer.goals.Goal;
import com.linkedin.kafka.cruisecontrol.common.Resource;
import com.linkedin.kafka.cruisecontrol.config.BrokerCapacityInfo;
import com.linkedin.kafka.cruisecontrol.config.KafkaCruiseControlConfig;
import com.linkedin.kafka.cruisecontrol.exception.KafkaCruiseControlException;
import com.linkedin.kafka.cruisecontrol.exception.OptimizationFailureException;
import com.linkedin.kafka.cruisecontrol.executor.ExecutionProposal;
import com.linkedin.kafka.cruisecontrol.model.Broker;
import com.linkedin.kafka.cruisecontrol.model.ClusterModel;
import com.linkedin.kafka.cruisecontrol.model.ReplicaPlacementInfo;
import com.linkedin.kafka.cruisecontrol.monitor.ModelGeneration;
import com.linkedin.kafka.cruisecontrol.monitor.metricdefinition.KafkaMetricDef;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

public final class CruiseControlPlan {
  // The goals matching Ballast's set, in Cruise Control's own default priority order (its
  // default.goals: replica counts before network usage; Ballast ranks network usage first).
  static final List<String> DEFAULT_GOALS = List.of(
      "RackAwareGoal", "ReplicaCapacityGoal", "DiskCapacityGoal", "NetworkInboundCapacityGoal",
      "NetworkOutboundCapacityGoal", "ReplicaDistributionGoal", "NetworkInboundUsageDistributionGoal",
      "NetworkOutboundUsageDistributionGoal", "LeaderReplicaDistributionGoal", "TopicReplicaDistributionGoal");
  static final String GOALS_PACKAGE = "com.linkedin.kafka.cruisecontrol.analyzer.goals.";

  // Cruise Control's units: network in KB/s and disk in MB, binary (its metrics sampler divides
  // Kafka's byte rates by 1024 and sizes by 1024 * 1024). Ballast's are bytes/s and bytes.
  static final double BYTES_PER_KB = 1024.0;
  static final double BYTES_PER_MB = 1024.0 * 1024.0;
  // CPU takes no part (no CPU goal runs, every replica's CPU load is 0); a capacity must
  // still be given, and a large one keeps utilization at 0 whatever is asked of it.
  static final double CPU_CAPACITY = 1.0e6;
  // A capacity Ballast does not know (0 or absent) becomes this multiple of the whole
  // cluster's load of that resource: 0.8 of it is twice what every broker together carries,
  // so no broker can reach it and the capacity goal never binds.
  static final double UNKNOWN_CAPACITY_TIMES_CLUSTER_LOAD = 2.5;
  // Ballast's capacity goals stop a broker at capacity x 0.8 for network in, out and disk.
  // Cruise Control's defaults are 0.8 too; set explicitly, so that another default cannot
  // silently make the comparison unfair.
  static final double CAPACITY_THRESHOLD = 0.8;
  // One metrics window: the model is one snapshot of the rates.
  static final List<Long> WINDOWS = List.of(1L);

  record Options(String model, String assignmentOut, boolean json, List<String> goals, boolean fastMode,
                 Map<String, String> settings) { }

  public static void main(String[] args) {
    // Cruise Control logs through log4j2, whose default console appender writes to stdout:
    // everything but our own result goes to stderr, so that --json's line stays alone.
    PrintStream out = System.out;
    System.setOut(System.err);
    try {
      System.exit(run(args, out));
    } catch (InputError e) {
      System.err.println("cruise-control-plan: " + e.getMessage());
      System.exit(2);
    } catch (IOException e) {
      System.err.println("cruise-control-plan: " + e);
      System.exit(2);
    }
  }

  static final String USAGE = String.join("\n",
      "usage: cruise-control-plan --model FILE.json [--goals A,B,...] [--assignment-out FILE] [--json]",
      "                           [--balance-threshold X] [--no-fast-mode] [--set CC_KEY=VALUE ...]",
      "  --model FILE            a cluster in Ballast's neutral JSON (goals/README.md)",
      "  --goals A,B,...         Cruise Control goals in priority order (simple or full class names);",
      "                          default: " + String.join(",", DEFAULT_GOALS),
      "  --assignment-out FILE   write each changed partition's final replicas, leader first, in the",
      "                          JSON kafka-reassign-partitions --execute reads",
      "  --json                  one JSON line on stdout instead of a summary",
      "  --balance-threshold X   network in/out, disk, replica and leader count balance thresholds",
      "                          (Cruise Control's default 1.10; topic replica count keeps its own)",
      "  --no-fast-mode          no per-broker time limit in the distribution goals (default: fast",
      "                          mode, as Cruise Control's REST API and proposal cache run)",
      "  --set KEY=VALUE         any Cruise Control analyzer setting, e.g. topic.replica.count.balance.threshold=3.0");

  static Options parseArgs(String[] args) throws InputError {
    String model = null;
    String assignmentOut = null;
    boolean json = false;
    boolean fastMode = true;
    List<String> goals = DEFAULT_GOALS;
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--help", "-h" -> {
          System.err.println(USAGE);
          System.exit(0);
        }
        case "--json" -> json = true;
        case "--no-fast-mode" -> fastMode = false;
        case "--model", "--assignment-out", "--goals", "--balance-threshold", "--set" -> {
          if (i + 1 >= args.length) {
            throw new InputError(arg + " needs a value\n" + USAGE);
          }
          String value = args[++i];
          switch (arg) {
            case "--model" -> model = value;
            case "--assignment-out" -> assignmentOut = value;
            case "--goals" -> goals = Arrays.stream(value.split(",")).map(String::trim).filter(g -> !g.isEmpty()).toList();
            case "--balance-threshold" -> {
              double threshold = parsePositive(arg, value);
              for (String key : List.of("network.inbound.balance.threshold", "network.outbound.balance.threshold",
                                        "disk.balance.threshold", "replica.count.balance.threshold",
                                        "leader.replica.count.balance.threshold")) {
                settings.put(key, Double.toString(threshold));
              }
            }
            default -> {
              int eq = value.indexOf('=');
              if (eq <= 0) {
                throw new InputError("--set " + value + ": expected KEY=VALUE");
              }
              settings.put(value.substring(0, eq), value.substring(eq + 1));
            }
          }
        }
        default -> throw new InputError("unknown argument " + arg + "\n" + USAGE);
      }
    }
    if (model == null) {
      throw new InputError("--model FILE is required\n" + USAGE);
    }
    if (goals.isEmpty()) {
      throw new InputError("--goals: no goal given");
    }
    return new Options(model, assignmentOut, json, goals, fastMode, settings);
  }

  static double parsePositive(String flag, String value) throws InputError {
    try {
      double v = Double.parseDouble(value);
      if (Double.isFinite(v) && v > 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new InputError(flag + " " + value + ": expected a number > 0");
  }

  // ---- Cruise Control's model ------------------------------------------------------------

  static int leaderOf(PartitionSpec p) {
    return p.leader == null ? p.replicas[0] : p.leader;
  }

  /// Cruise Control's rack for a broker: its rack, or, as its LoadMonitor does for a broker
  /// without one, its host (every broker a rack of its own: rack awareness never binds).
  static String ccRack(BrokerSpec b) {
    return b.rack().isEmpty() ? host(b) : b.rack();
  }

  static String host(BrokerSpec b) {
    return "broker-" + b.id();
  }

  /// The whole cluster's load of each resource in Cruise Control's units (NW_IN, NW_OUT
  /// KB/s, DISK MB), for capacities Ballast does not know.
  static Map<Resource, Double> clusterLoad(Model model) {
    double in = 0;
    double out = 0;
    double disk = 0;
    for (PartitionSpec p : model.partitions()) {
      int rf = p.replicas.length;
      in += p.bytesInPerS * rf;
      out += p.bytesOutPerS + p.bytesInPerS * (rf - 1);
      disk += p.sizeBytes * rf;
    }
    return Map.of(Resource.NW_IN, in / BYTES_PER_KB, Resource.NW_OUT, out / BYTES_PER_KB, Resource.DISK, disk / BYTES_PER_MB);
  }

  static Map<Resource, Double> capacityOf(BrokerSpec b, Map<Resource, Double> unknown) {
    Map<Resource, Double> capacity = new HashMap<>();
    capacity.put(Resource.CPU, CPU_CAPACITY);
    capacity.put(Resource.NW_IN, b.inBytesPerS() > 0 ? b.inBytesPerS() / BYTES_PER_KB : unknown.get(Resource.NW_IN));
    capacity.put(Resource.NW_OUT, b.outBytesPerS() > 0 ? b.outBytesPerS() / BYTES_PER_KB : unknown.get(Resource.NW_OUT));
    capacity.put(Resource.DISK, b.diskBytes() > 0 ? b.diskBytes() / BYTES_PER_MB : unknown.get(Resource.DISK));
    return capacity;
  }

  /// Capacities known for some brokers but not others: Cruise Control balances utilization
  /// (load / capacity), so the unknown ones, given a capacity that never binds, look nearly
  /// empty to it, where Ballast balances load alone in that case. Said, not refused.
  static void warnMixedCapacities(Model model) {
    String[] names = {"network_in_bytes_per_s", "network_out_bytes_per_s", "disk_bytes"};
    for (int r = 0; r < names.length; r++) {
      int known = 0;
      int alive = 0;
      for (BrokerSpec b : model.brokers()) {
        if (!b.alive()) {
          continue;  // evacuated whatever its capacity
        }
        alive++;
        double v = r == 0 ? b.inBytesPerS() : r == 1 ? b.outBytesPerS() : b.diskBytes();
        known += v > 0 ? 1 : 0;
      }
      if (known > 0 && known < alive) {
        System.err.println("cruise-control-plan: warning: capacity." + names[r] + " is known for " + known + " of "
                           + alive + " alive brokers; the others get a capacity that never binds");
      }
    }
  }

  /// One replica's load as Cruise Control's LoadMonitor builds it from a partition's metrics
  /// (MonitorUtils.populatePartitionLoad): every replica takes the produce rate in
  /// (LEADER_BYTES_IN, which a follower keeps too) and holds the partition's size; the leader
  /// sends the consumers' reads (LEADER_BYTES_OUT) plus one copy of the produce rate per
  /// follower (REPLICATION_BYTES_OUT_RATE); a follower sends nothing. That is Ballast's
  /// replica_load() one to one, and a leadership change moves exactly the NW_OUT part.
  static AggregatedMetricValues replicaLoad(PartitionSpec p, boolean leader) {
    AggregatedMetricValues values = new AggregatedMetricValues();
    double inKb = p.bytesInPerS / BYTES_PER_KB;
    put(values, KafkaMetricDef.CPU_USAGE, 0.0);
    put(values, KafkaMetricDef.DISK_USAGE, p.sizeBytes / BYTES_PER_MB);
    put(values, KafkaMetricDef.LEADER_BYTES_IN, inKb);
    put(values, KafkaMetricDef.REPLICATION_BYTES_IN_RATE, 0.0);
    put(values, KafkaMetricDef.LEADER_BYTES_OUT, leader ? p.bytesOutPerS / BYTES_PER_KB : 0.0);
    put(values, KafkaMetricDef.REPLICATION_BYTES_OUT_RATE, leader ? inKb * (p.replicas.length - 1) : 0.0);
    return values;
  }

  static void put(AggregatedMetricValues values, KafkaMetricDef metric, double value) {
    MetricValues one = new MetricValues(WINDOWS.size());
    one.set(0, value);
    values.add(KafkaMetricDef.commonMetricDefId(metric), one);
  }

  record Built(ClusterModel cluster, int offlineSkipped) { }

  /// Builds the model as LoadMonitor.clusterModel does: racks and brokers first, then each
  /// partition's replicas in preference order with their loads, then dead brokers marked
  /// DEAD (their replicas offline, so every goal moves them away). As in Cruise Control, a
  /// dead broker that holds nothing is not part of the cluster, and an offline partition
  /// (leader -1) is left out of the model: nothing of it moves.
  static Built buildCluster(Model model) {
    Map<Resource, Double> load = clusterLoad(model);
    Map<Resource, Double> unknown = new HashMap<>();
    for (Resource r : List.of(Resource.NW_IN, Resource.NW_OUT, Resource.DISK)) {
      unknown.put(r, Math.max(load.get(r), 1.0) * UNKNOWN_CAPACITY_TIMES_CLUSTER_LOAD);
    }
    Set<Integer> holding = new HashSet<>();
    for (PartitionSpec p : model.partitions()) {
      if (leaderOf(p) >= 0) {
        for (int b : p.replicas) {
          holding.add(b);
        }
      }
    }
    ClusterModel cluster = new ClusterModel(new ModelGeneration(0, 0L), 1.0);
    Map<Integer, BrokerSpec> byId = new HashMap<>();
    List<BrokerSpec> sorted = new ArrayList<>(model.brokers());
    sorted.sort(Comparator.comparingInt(BrokerSpec::id));
    for (BrokerSpec b : sorted) {
      byId.put(b.id(), b);
      if (!b.alive() && !holding.contains(b.id())) {
        continue;
      }
      cluster.createRack(ccRack(b));
      cluster.createBroker(ccRack(b), host(b), b.id(), new BrokerCapacityInfo(capacityOf(b, unknown)), false);
    }
    int offline = 0;
    for (PartitionSpec p : model.partitions()) {
      int leader = leaderOf(p);
      if (leader < 0) {
        offline++;
        continue;
      }
      TopicPartition tp = new TopicPartition(p.topic, p.partition);
      for (int index = 0; index < p.replicas.length; index++) {
        BrokerSpec b = byId.get(p.replicas[index]);
        boolean isLeader = b.id() == leader;
        cluster.createReplica(ccRack(b), b.id(), tp, index, isLeader, !b.alive(), null, false);
        cluster.setReplicaLoad(ccRack(b), b.id(), tp, replicaLoad(p, isLeader), WINDOWS);
      }
    }
    for (BrokerSpec b : sorted) {
      if (!b.alive() && holding.contains(b.id())) {
        cluster.setBrokerState(b.id(), Broker.State.DEAD);
      }
    }
    return new Built(cluster, offline);
  }

  /// Cruise Control's analyzer settings: its defaults, the capacity thresholds pinned to
  /// Ballast's 0.8, the replica cap from the model, then the user's --set/--balance-threshold.
  static Map<String, Object> settings(Model model, Options options) {
    Map<String, Object> props = new HashMap<>();
    // Required by the config class, never used: nothing here talks to a cluster.
    props.put("bootstrap.servers", "unused:9092");
    props.put("disk.capacity.threshold", Double.toString(CAPACITY_THRESHOLD));
    props.put("network.inbound.capacity.threshold", Double.toString(CAPACITY_THRESHOLD));
    props.put("network.outbound.capacity.threshold", Double.toString(CAPACITY_THRESHOLD));
    // Cruise Control has one replica cap for the whole cluster (max.replicas.per.broker), Ballast
    // one per broker: the smallest known among the alive brokers stands for all. None known:
    // one more than all the replicas there are, which never binds (the goal multiplies it by
    // the broker count, so Long.MAX_VALUE would overflow).
    long[] known = model.brokers().stream().filter(BrokerSpec::alive).mapToLong(BrokerSpec::replicasMax)
        .filter(v -> v > 0).distinct().sorted().toArray();
    long replicasMax = known.length > 0 ? known[0] : 0;
    if (known.length > 1 || (known.length == 1 && model.brokers().stream()
                                 .anyMatch(b -> b.alive() && b.replicasMax() == 0))) {
      System.err.println("cruise-control-plan: warning: capacity.replicas_max differs among the alive brokers; "
                         + "Cruise Control has one cap for all, the smallest: " + replicasMax);
    }
    if (replicasMax == 0) {
      replicasMax = model.partitions().stream().mapToLong(p -> p.replicas.length).sum() + 1;
    }
    props.put("max.replicas.per.broker", Long.toString(replicasMax));
    props.putAll(options.settings());
    // May not exceed the cap (a config check); 1,500 is Cruise Control's default.
    if (!options.settings().containsKey("overprovisioned.max.replicas.per.broker")) {
      try {
        long cap = Long.parseLong(props.get("max.replicas.per.broker").toString().trim());
        props.put("overprovisioned.max.replicas.per.broker", Long.toString(Math.max(0, Math.min(1500, cap))));
      } catch (NumberFormatException e) {
        // A bad --set value: the config class names it.
      }
    }
    return props;
  }

  static List<Goal> makeGoals(List<String> names, Map<String, Object> props) throws InputError {
    List<Goal> goals = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      String className = name.contains(".") ? name : GOALS_PACKAGE + name;
      Object instance;
      try {
        instance = Class.forName(className).getConstructor().newInstance();
      } catch (ReflectiveOperationException | LinkageError e) {
        throw new InputError("--goals: unknown goal " + name + " (Cruise Control's goals are classes in "
                             + GOALS_PACKAGE + "*, e.g. " + String.join(", ", DEFAULT_GOALS) + ")");
      }
      if (!(instance instanceof Goal goal)) {
        throw new InputError("--goals: " + name + " is not a Cruise Control goal");
      }
      goal.configure(props);
      if (!seen.add(goal.name())) {
        throw new InputError("--goals: " + goal.name() + " is listed twice");
      }
      goals.add(goal);
    }
    return goals;
  }

  // ---- The optimization ------------------------------------------------------------------

  record GoalRun(String name, boolean hard, boolean succeeded, boolean changed, String failure, double seconds) { }

  record Planned(List<GoalRun> runs, Set<ExecutionProposal> proposals, double seconds) { }

  /// GoalOptimizer.optimizations' loop, goal by goal in priority order, each optimized under
  /// the guard of those before it, with the same per-goal bookkeeping (cluster stats, the
  /// diff that makes a goal "violated before"), then the proposals as the diff from the start.
  /// One difference, on purpose: where GoalOptimizer stops at a goal that throws
  /// OptimizationFailureException (a hard goal it cannot satisfy) and gives no proposals at
  /// all, this records the failure and goes on with the next goal, so that a comparison still
  /// has Cruise Control's answer for the rest. Timed: this method alone.
  static Planned optimize(ClusterModel cluster, List<Goal> goals, OptimizationOptions options,
                          BalancingConstraint constraint) {
    long start = System.nanoTime();
    Map<TopicPartition, List<ReplicaPlacementInfo>> initialReplicas = cluster.getReplicaDistribution();
    Map<TopicPartition, ReplicaPlacementInfo> initialLeaders = cluster.getLeaderDistribution();
    Map<TopicPartition, List<ReplicaPlacementInfo>> beforeReplicas = initialReplicas;
    Map<TopicPartition, ReplicaPlacementInfo> beforeLeaders = initialLeaders;
    Set<Goal> optimized = new HashSet<>();
    List<GoalRun> runs = new ArrayList<>();
    for (Goal goal : goals) {
      long goalStart = System.nanoTime();
      boolean succeeded;
      String failure = null;
      try {
        succeeded = goal.optimize(cluster, optimized, options);
      } catch (OptimizationFailureException e) {
        succeeded = false;
        failure = e.getMessage();
      } catch (KafkaCruiseControlException e) {
        succeeded = false;
        failure = e.getClass().getSimpleName() + ": " + e.getMessage();
      } catch (IllegalStateException e) {
        // Thrown after a goal's work when its result judged worse than its input: the model
        // is whole, so report it like a failure.
        succeeded = false;
        failure = "IllegalStateException: " + e.getMessage();
      }
      // A goal that failed still guards those after it: they may not make it worse.
      optimized.add(goal);
      cluster.getClusterStats(constraint, options);
      boolean changed = AnalyzerUtils.hasDiff(beforeReplicas, beforeLeaders, cluster);
      runs.add(new GoalRun(goal.name(), goal.isHardGoal(), succeeded, changed, failure,
                           (System.nanoTime() - goalStart) / 1e9));
      beforeReplicas = cluster.getReplicaDistribution();
      beforeLeaders = cluster.getLeaderDistribution();
    }
    Set<ExecutionProposal> proposals = AnalyzerUtils.getDiff(initialReplicas, initialLeaders, cluster, true);
    return new Planned(runs, proposals, (System.nanoTime() - start) / 1e9);
  }

  // ---- Results ---------------------------------------------------------------------------

  static void writeAssignment(String file, List<ExecutionProposal> proposals) throws InputError {
    Gson gson = new Gson();
    try (BufferedWriter w = Files.newBufferedWriter(Path.of(file), StandardCharsets.UTF_8)) {
      w.write("{\"version\":1,\"partitions\":[");
      boolean first = true;
      for (ExecutionProposal p : proposals) {
        w.write(first ? "\n" : ",\n");
        first = false;
        StringBuilder replicas = new StringBuilder();
        // newReplicas() has the final leader first (AnalyzerUtils.getDiff puts it there).
        for (ReplicaPlacementInfo r : p.newReplicas()) {
          replicas.append(replicas.length() == 0 ? "" : ",").append(r.brokerId());
        }
        w.write("{\"topic\":" + gson.toJson(p.topic()) + ",\"partition\":" + p.partitionId()
                + ",\"replicas\":[" + replicas + "]}");
      }
      w.write("\n]}\n");
    } catch (IOException e) {
      throw new InputError("--assignment-out " + file + ": cannot write: " + e.getMessage());
    }
  }

  static int run(String[] args, PrintStream out) throws InputError, IOException {
    Options options = parseArgs(args);
    Model model = ModelFile.read(options.model());
    warnMixedCapacities(model);
    Map<String, Object> props = settings(model, options);
    KafkaCruiseControlConfig config;
    try {
      config = new KafkaCruiseControlConfig(props);
    } catch (RuntimeException e) {
      throw new InputError("Cruise Control's settings: " + e.getMessage());
    }
    List<Goal> goals = makeGoals(options.goals(), props);
    Built built = buildCluster(model);
    if (built.offlineSkipped() > 0) {
      System.err.println("cruise-control-plan: " + built.offlineSkipped()
                         + " offline partitions (leader -1) left out, as Cruise Control leaves them");
    }
    // Cruise Control's own consistency check of loads and windows, before anything is timed.
    built.cluster().sanityCheck();
    if (!built.cluster().isClusterAlive()) {
      throw new InputError(options.model() + ": no alive broker");
    }
    // The options Cruise Control's proposal cache computes with: no exclusions, fast mode.
    OptimizationOptions optimizationOptions = new OptimizationOptions(
        Collections.emptySet(), Collections.emptySet(), Collections.emptySet(), false, Collections.emptySet(), false,
        options.fastMode());
    Planned planned = optimize(built.cluster(), goals, optimizationOptions, new BalancingConstraint(config));

    Map<TopicPartition, Double> sizeBytes = new HashMap<>();
    for (PartitionSpec p : model.partitions()) {
      sizeBytes.put(new TopicPartition(p.topic, p.partition), p.sizeBytes);
    }
    List<ExecutionProposal> proposals = new ArrayList<>(planned.proposals());
    proposals.sort(Comparator.comparing(ExecutionProposal::topic).thenComparingInt(ExecutionProposal::partitionId));
    int partitionsMoved = 0;
    int replicaMoves = 0;
    int leaderMoves = 0;
    int leadersChanged = 0;
    double bytesMoved = 0;
    for (ExecutionProposal p : proposals) {
      int added = p.replicasToAdd().size();
      if (added > 0 || !p.replicasToRemove().isEmpty()) {
        partitionsMoved++;
      } else {
        leaderMoves++;
      }
      replicaMoves += added;
      bytesMoved += added * sizeBytes.get(p.topicPartition());
      leadersChanged += p.oldLeader().brokerId() != p.newReplicas().get(0).brokerId() ? 1 : 0;
    }
    if (options.assignmentOut() != null) {
      writeAssignment(options.assignmentOut(), proposals);
    }

    List<String> violatedBefore = new ArrayList<>();
    List<String> violatedAfter = new ArrayList<>();
    for (GoalRun run : planned.runs()) {
      if (run.changed() || !run.succeeded()) {
        violatedBefore.add(run.name());
      }
      if (!run.succeeded()) {
        violatedAfter.add(run.name());
      }
    }
    if (options.json()) {
      JsonObject result = new JsonObject();
      result.addProperty("planning_s", Math.round(planned.seconds() * 1000) / 1000.0);
      JsonArray goalNames = new JsonArray();
      JsonObject goalSeconds = new JsonObject();
      JsonArray failed = new JsonArray();
      for (GoalRun run : planned.runs()) {
        goalNames.add(run.name());
        goalSeconds.addProperty(run.name(), Math.round(run.seconds() * 1000) / 1000.0);
        if (run.failure() != null) {
          JsonObject failure = new JsonObject();
          failure.addProperty("goal", run.name());
          failure.addProperty("hard", run.hard());
          failure.addProperty("error", run.failure());
          failed.add(failure);
        }
      }
      result.add("goals", goalNames);
      result.add("violated_before", new Gson().toJsonTree(violatedBefore));
      result.add("violated_after", new Gson().toJsonTree(violatedAfter));
      result.add("failed", failed);
      result.addProperty("proposals", proposals.size());
      result.addProperty("partitions_moved", partitionsMoved);
      result.addProperty("replica_moves", replicaMoves);
      result.addProperty("bytes_moved", Math.round(bytesMoved));
      result.addProperty("leader_moves", leaderMoves);
      result.addProperty("leaders_changed", leadersChanged);
      result.addProperty("offline_partitions_skipped", built.offlineSkipped());
      result.addProperty("fast_mode", options.fastMode());
      result.add("goal_s", goalSeconds);
      out.println(new Gson().toJson(result));
    } else {
      out.printf("Cruise Control planned %s in %.3f s (optimization only)%n", options.model(), planned.seconds());
      for (GoalRun run : planned.runs()) {
        String state = run.failure() != null ? "FAILED: " + run.failure()
                       : !run.succeeded() ? "violated after" : run.changed() ? "fixed" : "no action";
        out.printf("  %-40s %8.3f s  %s%n", run.name() + (run.hard() ? " (hard)" : ""), run.seconds(), state);
      }
      out.printf("%d proposals: %d partitions moved (%d replicas, %.1f MiB), %d leadership-only, %d leaders changed%n",
                 proposals.size(), partitionsMoved, replicaMoves, bytesMoved / BYTES_PER_MB, leaderMoves, leadersChanged);
      if (options.assignmentOut() != null) {
        out.printf("assignment: %s (%d partitions)%n", options.assignmentOut(), proposals.size());
      }
    }
    return 0;
  }
}
