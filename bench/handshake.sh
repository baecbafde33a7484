#!/usr/bin/env bash
# The handshake cost of bench/README.md: connections a second to one broker, each opened as
# Ballast's wire client opens it and closed (handshake_bench.cc), over PLAINTEXT on a
# plaintext cluster of its own, then over TLS alone, TLS+PLAIN, TLS+SCRAM-SHA-256 and
# TLS+SCRAM-SHA-512 on a secured cluster of its own (tools/kafka-cluster up --security
# sasl_ssl), started once the first is down. One JSON line a mode.
# Usage: bench/handshake.sh [BUILD_DIR] [DURATION_S]   (default: build 20)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
duration="${2:-20}"
cluster="$root/tools/kafka-cluster"
export BALLAST_KAFKA_RUN="${BALLAST_KAFKA_RUN:-$root/.kafka-cluster/handshake-run}"
trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
"$cluster" fetch >/dev/null
"$cluster" down >/dev/null 2>&1 || true

bootstrap="$("$cluster" up)"
"$build/bench/handshake_bench" --bootstrap "${bootstrap%%,*}" --mode plaintext --duration "$duration"
"$cluster" down >/dev/null

bootstrap="$("$cluster" up --security sasl_ssl)"
first="${bootstrap%%,*}"
scram512="$("$cluster" client-config ballast SCRAM-SHA-512)"
# The SASL_SSL listener answers ApiVersions before any login: TLS and ApiVersions alone.
"$build/bench/handshake_bench" --bootstrap "$first" --mode tls --duration "$duration" \
  --command-config "$scram512" --set kafka.security.protocol=SSL
"$build/bench/handshake_bench" --bootstrap "$first" --mode tls+plain --duration "$duration" \
  --command-config "$("$cluster" client-config ballast PLAIN)"
"$build/bench/handshake_bench" --bootstrap "$first" --mode tls+scram-sha-256 --duration "$duration" \
  --command-config "$("$cluster" client-config ballast SCRAM-SHA-256)"
"$build/bench/handshake_bench" --bootstrap "$first" --mode tls+scram-sha-512 --duration "$duration" \
  --command-config "$scram512"
