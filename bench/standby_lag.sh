#!/usr/bin/env bash
# High availability's standby lag of bench/README.md: a cluster of its own
# (tools/kafka-cluster), a leader fed `ballast storm`'s synthetic stream at
# RATE events/s over 100,000 partitions for DURATION s, and a hot standby
# following it through the journal topic. One JSON line per rate: lag_ms
# (committed by the leader to held by the standby, per run: p50, p99, max),
# lag_records (sampled), the rate sustained, rounds decided alike.
# Usage: bench/standby_lag.sh [BUILD_DIR] [DURATION_S] [RATE...]   (default: build 60 100000 300000);
# PATTERN=mixed (or another storm pattern) for metadata changes and decisions among the metrics
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
duration="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(100000 300000)
export BALLAST_KAFKA_RUN="${BALLAST_KAFKA_RUN:-$root/.kafka-cluster/standby-lag-run}"
work="$(mktemp -d)"
cleanup() { "$root/tools/kafka-cluster" down >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$root/tools/kafka-cluster" fetch >/dev/null
"$root/tools/kafka-cluster" down >/dev/null 2>&1 || true
bootstrap="$("$root/tools/kafka-cluster" up)"
for rate in "${rates[@]}"; do
  rm -rf "$work/journals" && mkdir -p "$work/journals"
  "$build/bench/standby_lag" --bootstrap "$bootstrap" --dir "$work/journals" --rate "$rate" \
    --duration "$duration" --partitions "${PARTITIONS:-100000}" --pattern "${PATTERN:-metrics-flood}" \
    --seed "${SEED:-1}"
done
