#!/usr/bin/env bash
# The storm figures of the simulator issue: metrics-flood and mixed at
# 100 brokers / 100,000 partitions and 1,000 brokers / 1,000,000 partitions,
# 500,000 events/s. One storm per process (peak RSS is the process's).
# Usage: bench/storm.sh [BUILD_DIR] [SECONDS]   (one JSON line per storm)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ballast="${1:-$root/build}/tools/ballast"
seconds="${2:-60}"
for size in "100 100000" "1000 1000000"; do
  set -- $size
  for pattern in metrics-flood mixed; do
    "$ballast" storm --brokers "$1" --partitions "$2" --rate 500000 --duration "$seconds" \
      --pattern "$pattern" --json || true   # a storm that falls behind says so in its JSON
  done
done
