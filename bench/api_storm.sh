#!/usr/bin/env bash
# The HTTP API during a storm: `ballast storm --api` at 100 brokers and 100,000
# partitions while a scraper asks GET /metrics and GET /v1/state in turn on one
# kept-alive connection, against the same storm without the API. Storms with
# and without alternate (RUNS of each), so that a noisy neighbour weighs on
# both alike.
# Usage: bench/api_storm.sh [BUILD_DIR] [RATE] [SECONDS] [RUNS] [INTERVAL_MS]
# Prints each storm's arrival-to-applied p50/p99, then each endpoint's response
# time (min, p50, p90, p99, max in ms) over every run with the API.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ballast="${1:-$root/build}/tools/ballast"
rate="${2:-500000}"
seconds="${3:-30}"
runs="${4:-2}"
interval_ms="${5:-250}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

storm() {  # storm NAME [--api]: one storm's JSON in $dir/NAME.json
  local name="$1"; shift
  "$ballast" --set ballast.http.listen=127.0.0.1:0 storm --partitions 100000 --brokers 100 \
    --rate "$rate" --duration "$seconds" --json "$@" > "$dir/$name.json" 2> "$dir/$name.err" || true
}

for run in $(seq 1 "$runs"); do
  storm "plain-$run"
  storm "api-$run" --api &
  pid=$!
  url=""
  for _ in $(seq 1 600); do
    url="$(sed -n 's/^storm: HTTP API on \(http[^ ]*\).*/\1/p' "$dir/api-$run.err" 2>/dev/null || true)"
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$dir/api-$run.err" >&2; echo "api_storm.sh: the storm never said where it listens" >&2; exit 1; }
  python3 - "$url" "$interval_ms" "$pid" "$dir/times-$run" <<'PY'
import http.client, os, sys, time, urllib.parse
url, interval_ms, pid, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
u = urllib.parse.urlparse(url)
def alive():
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
def get(path):
    global conn
    start = time.perf_counter()
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        return r.status, (time.perf_counter() - start) * 1000, len(body)
    except (OSError, http.client.HTTPException):
        conn.close()
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        return None, None, 0
# Ready once the storm's cluster is set up: the storm itself is what is measured.
while alive():
    status, _, _ = get("/readyz")
    if status == 200:
        break
    time.sleep(0.2)
with open(out, "w") as f:
    paths = ["/metrics", "/v1/state"]
    i = 0
    while alive():
        status, ms, size = get(paths[i % 2])
        if status == 200:
            f.write("%s %.3f %d\n" % (paths[i % 2], ms, size))
        elif status is not None and status != 503:
            sys.exit("api_storm.sh: %s answered %d" % (paths[i % 2], status))
        i += 1
        time.sleep(interval_ms / 1000)
PY
  wait "$pid" || true
done

python3 - "$dir" "$runs" <<'PY'
import json, os, sys
d, runs = sys.argv[1], int(sys.argv[2])
def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * q))] if v else float("nan")
for kind in ("plain", "api"):
    for run in range(1, runs + 1):
        path = os.path.join(d, "%s-%d.json" % (kind, run))
        try:
            s = json.load(open(path))
        except ValueError:
            sys.exit("api_storm.sh: %s: no report (%s)" % (path, open(path.replace(".json", ".err")).read()[-500:]))
        print("%-5s storm %d: %.0f events/s, arrival to applied p50 %.2f p99 %.2f max %.1f ms, %.2f cores, "
              "steal %.1f%%%s" % (kind, run, s["events_per_s"], s["latency_ms"]["p50"], s["latency_ms"]["p99"],
                                  s["latency_ms"]["max"], s["cores_used"], s["machine"]["steal_pct"],
                                  " BEHIND" if s["behind"] else ""))
times = {}
for run in range(1, runs + 1):
    for line in open(os.path.join(d, "times-%d" % run)):
        path, ms, size = line.split()
        times.setdefault(path, []).append((float(ms), int(size)))
for path, v in sorted(times.items()):
    ms = [t for t, _ in v]
    print("%-9s %d answers (%.0f KiB each): min %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f ms" % (
        path, len(ms), sum(s for _, s in v) / len(v) / 1024, min(ms), pct(ms, 0.5), pct(ms, 0.9), pct(ms, 0.99),
        max(ms)))
PY
