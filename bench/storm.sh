#!/usr/bin/env bash
# The storm figures of bench/README.md: metrics-flood and mixed at
# 100 brokers / 100,000 partitions and 1,000 brokers / 1,000,000 partitions,
# 500,000 events/s, with the journal's sync off and then on (durable group
# commits). One storm per process (peak RSS is the process's).
# Usage: bench/storm.sh [BUILD_DIR] [SECONDS] [SYNC...]   (one JSON line per storm)
#   SYNC: false, true or both (the default)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ballast="${1:-$root/build}/tools/ballast"
seconds="${2:-60}"
case "${3:-both}" in
  both) syncs=(false true) ;;
  false | true) syncs=("$3") ;;
  *) echo "bench/storm.sh: SYNC is false, true or both, not '$3'" >&2; exit 2 ;;
esac
for sync in "${syncs[@]}"; do
  for size in "100 100000" "1000 1000000"; do
    set -- $size
    for pattern in metrics-flood mixed; do
      "$ballast" --set "ballast.journal.sync=$sync" storm --brokers "$1" --partitions "$2" \
        --rate 500000 --duration "$seconds" --pattern "$pattern" --json || true   # a storm that falls behind says so in its JSON
    done
  done
done
