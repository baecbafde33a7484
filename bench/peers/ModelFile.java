// Reads a cluster described in Ballast's neutral JSON (goals/README.md, "A cluster described
// in JSON") for bench/peers/CruiseControlPlan.java. The same fields and checks as Ballast's
// parser (tools/driver/model_file.cc): errors name the field by its path
// ("partitions[3].replicas[1]"), an unknown field lists the valid ones.

package ballast.peers;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.MalformedJsonException;
import java.io.EOFException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

final class ModelFile {
  private ModelFile() { }

  static final class InputError extends Exception {
    private static final long serialVersionUID = 1L;

    InputError(String message) {
      super(message);
    }
  }

  record BrokerSpec(int id, String rack, boolean alive, double inBytesPerS, double outBytesPerS, double diskBytes,
                    long replicasMax) { }

  static final class PartitionSpec {
    String topic;
    int partition = -1;
    int[] replicas;
    Integer leader;  // null: the first replica; -1: offline
    double bytesInPerS = -1;
    double bytesOutPerS = -1;
    double sizeBytes = -1;
  }

  record Model(List<BrokerSpec> brokers, List<PartitionSpec> partitions) { }

  /// Reads the whole file with gson's streaming reader (a 300,000-partition model is tens of
  /// MB; no tree is built). Errors name the field by its path, as Ballast's parser does.
  static Model read(String file) throws InputError {
    List<BrokerSpec> brokers = null;
    List<PartitionSpec> partitions = null;
    try (Reader reader = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
         JsonReader json = new JsonReader(reader)) {
      expect(json, JsonToken.BEGIN_OBJECT, file, "(top)", "an object");
      json.beginObject();
      while (json.hasNext()) {
        String name = json.nextName();
        switch (name) {
          case "brokers" -> brokers = readBrokers(json, file);
          case "partitions" -> partitions = readPartitions(json, file);
          default -> throw new InputError(file + ": " + name + ": unknown field (valid: brokers, partitions)");
        }
      }
      json.endObject();
      if (json.peek() != JsonToken.END_DOCUMENT) {
        throw new InputError(file + ": text after the top-level object");
      }
    } catch (NoSuchFileException e) {
      throw new InputError(file + ": no such file");
    } catch (MalformedJsonException | EOFException | IllegalStateException | NumberFormatException e) {
      // gson's messages carry the line, column and JSON path.
      throw new InputError(file + ": not valid JSON: " + e.getMessage());
    } catch (IOException e) {
      throw new InputError(file + ": cannot read: " + e);
    }
    if (brokers == null || brokers.isEmpty()) {
      throw new InputError(file + ": brokers: expected a non-empty array");
    }
    if (partitions == null) {
      throw new InputError(file + ": partitions: expected an array");
    }
    checkReferences(file, brokers, partitions);
    return new Model(brokers, partitions);
  }

  static void expect(JsonReader json, JsonToken token, String file, String path, String what)
      throws IOException, InputError {
    JsonToken got = json.peek();
    if (got != token) {
      throw new InputError(file + ": " + path + ": expected " + what + ", got " + describe(got));
    }
  }

  static String describe(JsonToken token) {
    return switch (token) {
      case BEGIN_ARRAY -> "an array";
      case BEGIN_OBJECT -> "an object";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "true/false";
      case NULL -> "null";
      default -> token.toString();
    };
  }

  static double readNumber(JsonReader json, String file, String path) throws IOException, InputError {
    expect(json, JsonToken.NUMBER, file, path, "a number");
    double v = json.nextDouble();
    if (!Double.isFinite(v) || v < 0) {
      throw new InputError(file + ": " + path + ": expected a finite number >= 0, got " + v);
    }
    return v;
  }

  static long readInteger(JsonReader json, String file, String path, long min, long max) throws IOException, InputError {
    expect(json, JsonToken.NUMBER, file, path, "an integer");
    String text = json.nextString();
    try {
      long v = Long.parseLong(text);
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new InputError(file + ": " + path + ": expected an integer from " + min + " to " + max + ", got " + text);
  }

  static String readString(JsonReader json, String file, String path) throws IOException, InputError {
    expect(json, JsonToken.STRING, file, path, "a string");
    return json.nextString();
  }

  static InputError unknownField(String file, String path, String name, String valid) {
    return new InputError(file + ": " + path + "." + name + ": unknown field (valid: " + valid + ")");
  }

  static List<BrokerSpec> readBrokers(JsonReader json, String file) throws IOException, InputError {
    List<BrokerSpec> brokers = new ArrayList<>();
    expect(json, JsonToken.BEGIN_ARRAY, file, "brokers", "a non-empty array");
    json.beginArray();
    while (json.hasNext()) {
      String path = "brokers[" + brokers.size() + "]";
      expect(json, JsonToken.BEGIN_OBJECT, file, path, "an object");
      json.beginObject();
      long id = -1;
      String rack = "";
      boolean alive = true;
      double[] capacity = {0, 0, 0};
      long replicasMax = 0;
      while (json.hasNext()) {
        String name = json.nextName();
        switch (name) {
          case "id" -> id = readInteger(json, file, path + ".id", 0, Integer.MAX_VALUE);
          case "rack" -> rack = readString(json, file, path + ".rack");
          case "alive" -> {
            expect(json, JsonToken.BOOLEAN, file, path + ".alive", "true or false");
            alive = json.nextBoolean();
          }
          case "capacity" -> {
            String cp = path + ".capacity";
            expect(json, JsonToken.BEGIN_OBJECT, file, cp, "an object");
            json.beginObject();
            while (json.hasNext()) {
              String field = json.nextName();
              switch (field) {
                case "network_in_bytes_per_s" -> capacity[0] = readNumber(json, file, cp + "." + field);
                case "network_out_bytes_per_s" -> capacity[1] = readNumber(json, file, cp + "." + field);
                case "disk_bytes" -> capacity[2] = readNumber(json, file, cp + "." + field);
                case "replicas_max" -> replicasMax = readInteger(json, file, cp + "." + field, 0, Integer.MAX_VALUE);
                default -> throw unknownField(file, cp, field,
                    "network_in_bytes_per_s, network_out_bytes_per_s, disk_bytes, replicas_max");
              }
            }
            json.endObject();
          }
          default -> throw unknownField(file, path, name, "id, rack, capacity, alive");
        }
      }
      json.endObject();
      if (id < 0) {
        throw new InputError(file + ": " + path + ".id: missing");
      }
      brokers.add(new BrokerSpec((int) id, rack, alive, capacity[0], capacity[1], capacity[2], replicasMax));
    }
    json.endArray();
    return brokers;
  }

  static List<PartitionSpec> readPartitions(JsonReader json, String file) throws IOException, InputError {
    List<PartitionSpec> partitions = new ArrayList<>();
    Map<String, String> topicNames = new HashMap<>();  // one String per topic, not one per partition
    expect(json, JsonToken.BEGIN_ARRAY, file, "partitions", "an array");
    json.beginArray();
    int[] scratch = new int[16];
    while (json.hasNext()) {
      String path = "partitions[" + partitions.size() + "]";
      expect(json, JsonToken.BEGIN_OBJECT, file, path, "an object");
      json.beginObject();
      PartitionSpec p = new PartitionSpec();
      while (json.hasNext()) {
        String name = json.nextName();
        switch (name) {
          case "topic" -> {
            String topic = readString(json, file, path + ".topic");
            if (topic.isEmpty()) {
              throw new InputError(file + ": " + path + ".topic: expected a non-empty string");
            }
            p.topic = topicNames.computeIfAbsent(topic, t -> t);
          }
          case "partition" -> p.partition = (int) readInteger(json, file, path + ".partition", 0, Integer.MAX_VALUE);
          case "replicas" -> {
            expect(json, JsonToken.BEGIN_ARRAY, file, path + ".replicas", "a non-empty array of broker ids");
            json.beginArray();
            int count = 0;
            while (json.hasNext()) {
              if (count == scratch.length) {
                scratch = Arrays.copyOf(scratch, count * 2);
              }
              scratch[count] = (int) readInteger(json, file, path + ".replicas[" + count + "]", 0, Integer.MAX_VALUE);
              count++;
            }
            json.endArray();
            p.replicas = Arrays.copyOf(scratch, count);
          }
          case "leader" -> p.leader = (int) readInteger(json, file, path + ".leader", -1, Integer.MAX_VALUE);
          case "bytes_in_per_s" -> p.bytesInPerS = readNumber(json, file, path + "." + name);
          case "bytes_out_per_s" -> p.bytesOutPerS = readNumber(json, file, path + "." + name);
          case "size_bytes" -> p.sizeBytes = readNumber(json, file, path + "." + name);
          default -> throw unknownField(file, path, name,
              "topic, partition, replicas, leader, bytes_in_per_s, bytes_out_per_s, size_bytes");
        }
      }
      json.endObject();
      if (p.topic == null) {
        throw new InputError(file + ": " + path + ".topic: expected a non-empty string");
      }
      if (p.partition < 0) {
        throw new InputError(file + ": " + path + ".partition: missing");
      }
      if (p.replicas == null || p.replicas.length == 0) {
        throw new InputError(file + ": " + path + ".replicas: expected a non-empty array of broker ids");
      }
      for (String field : List.of("bytes_in_per_s", "bytes_out_per_s", "size_bytes")) {
        double v = switch (field) {
          case "bytes_in_per_s" -> p.bytesInPerS;
          case "bytes_out_per_s" -> p.bytesOutPerS;
          default -> p.sizeBytes;
        };
        if (v < 0) {
          throw new InputError(file + ": " + path + "." + field + ": missing");
        }
      }
      partitions.add(p);
    }
    json.endArray();
    return partitions;
  }

  /// What needs both lists: unique broker ids, replicas on listed brokers and once each, the
  /// leader among the replicas, each partition once.
  static void checkReferences(String file, List<BrokerSpec> brokers, List<PartitionSpec> partitions) throws InputError {
    Set<Integer> ids = new HashSet<>();
    for (int i = 0; i < brokers.size(); i++) {
      if (!ids.add(brokers.get(i).id())) {
        throw new InputError(file + ": brokers[" + i + "].id: broker " + brokers.get(i).id() + " is listed twice");
      }
    }
    Set<TopicPartition> seen = new HashSet<>();
    for (int i = 0; i < partitions.size(); i++) {
      PartitionSpec p = partitions.get(i);
      String path = "partitions[" + i + "]";
      for (int r = 0; r < p.replicas.length; r++) {
        if (!ids.contains(p.replicas[r])) {
          throw new InputError(file + ": " + path + ".replicas[" + r + "]: broker " + p.replicas[r] + " is not among the brokers");
        }
        for (int earlier = 0; earlier < r; earlier++) {
          if (p.replicas[earlier] == p.replicas[r]) {
            throw new InputError(file + ": " + path + ".replicas[" + r + "]: broker " + p.replicas[r] + " holds the partition twice");
          }
        }
      }
      if (p.leader != null && p.leader >= 0 && Arrays.stream(p.replicas).noneMatch(b -> b == p.leader)) {
        throw new InputError(file + ": " + path + ".leader: broker " + p.leader + " is not one of its replicas");
      }
      if (!seen.add(new TopicPartition(p.topic, p.partition))) {
        throw new InputError(file + ": " + path + ": " + p.topic + "-" + p.partition + " is listed twice");
      }
    }
  }

}
