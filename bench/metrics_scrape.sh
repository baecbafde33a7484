#!/usr/bin/env bash
# GET /metrics' response time from `ballast sim --realtime` at 12 brokers and
# 100,000 partitions (10 topics of 10,000, RF 1, even traffic): the first
# scrape and the rest (the counters are kept by the journal's appends,
# store/append_tally.h, so no scrape reads the journal back).
# Usage: bench/metrics_scrape.sh [BUILD_DIR] [SCRAPES] [PORT]
# Prints the first scrape's time and min, p50, p90, p99, max of the others, in ms.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ballast="${1:-$root/build}/tools/ballast"
scrapes="${2:-100}"
port="${3:-19473}"
dir="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
python3 - "$dir/scenario.json" <<'PY'
import json, sys
json.dump({"name": "metrics-100k", "flavor": "apache", "seed": 7, "duration": "10m",
           "brokers": [{"id": i, "rack": "r%d" % (i % 3)} for i in range(1, 13)],
           "topics": [{"name": "t%d" % t, "partitions": 10000, "replication_factor": 1,
                       "initial_size_bytes": 1073741824,
                       "traffic": {"profile": "constant", "bytes_in_per_s": 10485760,
                                   "record_bytes": 1024, "fanout": 1}} for t in range(10)]},
          open(sys.argv[1], "w"))
PY
"$ballast" --set "ballast.http.listen=127.0.0.1:$port" sim --realtime --quiet --until 10m \
  --scenario "$dir/scenario.json" --journal "$dir/journal" > "$dir/log" 2>&1 &
pid=$!
for _ in $(seq 1 60); do curl -sf -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 1; done
sleep 10  # the cluster created and sampled
for _ in $(seq 1 "$scrapes"); do
  curl -sf -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/metrics"
  sleep 0.2
done > "$dir/times"
awk 'NR == 1 { printf "first scrape %.1f ms\n", $1 * 1000 }' "$dir/times"
tail -n +2 "$dir/times" | sort -g | awk '
  { t[NR] = $1 * 1000 }
  END {
    printf "next %d scrapes: min %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f ms\n",
      NR, t[1], t[int(NR * 0.5)], t[int(NR * 0.9)], t[int(NR * 0.99)], t[NR]
  }'
