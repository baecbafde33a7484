# Sourced by tools/kafka-cluster (functions only, nothing run): each node's
# server.properties and the formatting of its KRaft storage, for the layout `up` was asked
# for. It reads the script's $run, $root, $jars, the layout's ids and tool_jvm_opts, and
# calls its helpers (node_name, port_of, die) and the secured cluster's functions
# (tools/kafka/security.sh).

# ------------------------------------------------------------------ configuration

# The voters of the quorum: ID@127.0.0.1:PORT for every controller.
quorum_voters() {
  local voters=() id
  for id in "${controller_ids[@]}"; do voters+=("$id@127.0.0.1:$(port_of "$(node_name "$id")")"); done
  (IFS=,; echo "${voters[*]}")
}

# --short-metadata-log: a snapshot every second, small segments rolled every second, and
# segments behind a snapshot deleted once they are 20 s old, so that the log's start passes
# 0 within half a minute of `up` while a reader that fell a few seconds behind still finds
# its position in the log. The segment size is Kafka's internal setting: the public one
# refuses less than 8 MiB, which the test cluster's metadata never reaches.
short_metadata_log_config() {
  cat <<EOF
metadata.log.max.snapshot.interval.ms=1000
metadata.log.segment.ms=1000
internal.metadata.log.segment.bytes=16384
metadata.max.retention.ms=20000
internal.metadata.delete.delay.millis=1000
EOF
}

write_configs() {
  local voters id
  voters="$(quorum_voters)"
  mkdir -p "$run/logs"
  for id in "${controller_ids[@]}"; do
    local name port
    name="$(node_name "$id")"
    port="$(port_of "$name")"
    mkdir -p "$run/$name"
    {
      cat <<EOF
process.roles=controller
node.id=$id
controller.quorum.voters=$voters
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$port
log.dirs=$run/$name/data
num.io.threads=2
num.network.threads=2
EOF
      if secured; then
        controller_security_config
      else
        echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT"
      fi
      if [ "$short_metadata_log" -eq 1 ]; then short_metadata_log_config; fi
    } >"$run/$name/server.properties"
  done
  local min_isr=$(( ${#broker_ids[@]} > 1 ? 2 : 1 ))
  for id in "${broker_ids[@]}"; do
    local port
    port="$(port_of "broker-$id")"
    mkdir -p "$run/broker-$id"
    {
      cat <<EOF
process.roles=broker
node.id=$id
broker.rack=rack-$id
controller.quorum.voters=$voters
controller.listener.names=CONTROLLER
EOF
      if secured; then
        broker_security_config "$port"
      else
        cat <<EOF
listeners=PLAINTEXT://127.0.0.1:$port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
EOF
      fi
      cat <<EOF
log.dirs=$run/broker-$id/data
# Tests decide leadership themselves (ElectLeaders) and want consumer groups at once.
auto.leader.rebalance.enable=false
group.initial.rebalance.delay.ms=0
# Internal topics: replicated on every broker (three unless up --brokers), few
# partitions (quick to create).
offsets.topic.replication.factor=${#broker_ids[@]}
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=${#broker_ids[@]}
transaction.state.log.min.isr=$min_isr
transaction.state.log.num.partitions=10
share.coordinator.state.topic.replication.factor=${#broker_ids[@]}
share.coordinator.state.topic.min.isr=$min_isr
# Replication throttles hold to their rate over 10 s windows (11 of them) instead of 1 s:
# a follower fetches up to 1 MiB of a partition at once (replica.fetch.max.bytes) and the
# throttle then waits until its window forgets that burst, so with 1 s windows a 10 KB/s
# throttle still copies ~1 MiB per 11 s, and a "minutes long" test move can finish within
# half a minute on a slow machine. With 10 s windows it copies ~1 MiB per ~105 s.
replication.quota.window.size.seconds=10
# A small footprint: 2 cores are shared by four JVMs and the tests.
num.io.threads=2
num.network.threads=2
num.replica.fetchers=1
background.threads=2
log.cleaner.threads=1
num.recovery.threads.per.data.dir=1
EOF
    } >"$run/broker-$id/server.properties"
  done
  # The client config the harness's own tools read (producer-perf): the admin user's on a
  # secured cluster.
  if secured; then
    local user
    for user in "${client_users[@]}"; do client_config "$user" >/dev/null; done
    cp "$run/client-admin.properties" "$run/client.properties"
  else
    echo "bootstrap.servers=$(bootstrap_servers)" >"$run/client.properties"
  fi
}

# Kafka's cluster id: 16 random bytes in URL-safe base64 without padding (22 characters).
# One that starts with '-' is drawn again, as Kafka's own Uuid.randomUuid does: the
# storage tool's argument parser would take it for a flag and fail.
new_cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [ "${id:0:1}" != "-" ] && break
  done
  echo "$id"
}

format_storage() {
  local cluster_id="$1" id pids=() scram=()
  if secured; then mapfile -t scram < <(scram_format_args); fi
  for id in "${controller_ids[@]}" "${broker_ids[@]}"; do
    local name
    name="$(node_name "$id")"
    java "${tool_jvm_opts[@]}" -Dlog4j2.configurationFile="$root/tools/kafka/log4j2-tools.xml" \
      -cp "$jars/*" kafka.tools.StorageTool format --ignore-formatted \
      --cluster-id="$cluster_id" -c "$run/$name/server.properties" "${scram[@]}" \
      >"$run/logs/$name.format" 2>&1 &
    pids+=($!)
  done
  local failed=0
  for id in "${!pids[@]}"; do wait "${pids[$id]}" || failed=1; done
  if [ "$failed" -ne 0 ]; then
    cat "$run"/logs/*.format >&2
    die "formatting KRaft storage failed"
  fi
}
