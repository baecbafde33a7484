#!/usr/bin/env bash
# High availability's failover figures of bench/README.md: a cluster of its own
# (tools/kafka-cluster), three `ballast run --ha` instances with the default
# session timeout, the leader SIGKILLed KILLS times at random moments, then
# SIGSTOPped past the session timeout and SIGCONTed (the zombie), then
# SIGTERMed (a clean handover). One JSON line: failover_ms_p50/max (SIGKILL to
# the new leader's first tick), handover_ms, zombie_submissions, records_lost.
# Usage: bench/failover.sh [BUILD_DIR] [KILLS] [--json]   (the JSON line is printed either way)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
kills="${2:-10}"
export BALLAST_KAFKA_RUN="${BALLAST_KAFKA_RUN:-$root/.kafka-cluster/failover-run}"
work="$(mktemp -d)"
cleanup() { "$root/tools/kafka-cluster" down >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$root/tools/kafka-cluster" fetch >/dev/null
"$root/tools/kafka-cluster" down >/dev/null 2>&1 || true
bootstrap="$("$root/tools/kafka-cluster" up)"
"$build/bench/failover_drill" --bootstrap "$bootstrap" --ballast "$build/tools/ballast" --dir "$work" \
  --kills "$kills" --seed "${SEED:-1}"
