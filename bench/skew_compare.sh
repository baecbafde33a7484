#!/usr/bin/env bash
# The traffic-skew seed (and an uneven variant) planned by Ballast's defaults
# and by AutoMQ's rule alone, expressed as settings: the two network
# distribution goals, moves only, no cooldown, no return block.
# Usage: bench/skew_compare.sh [BUILD_DIR]   (prints one line per run)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ballast="${1:-$root/build}/tools/ballast"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
automq=(--set ballast.planner.actions=move --set ballast.partition.cooldown.ms=0
        --set ballast.partition.return.block.ms=0
        --set autobalancer.controller.goals=NetworkInUsageDistributionGoal,NetworkOutUsageDistributionGoal)
printf '%-14s %-22s %7s %6s %-16s %s\n' scenario planner rounds moves "last move" "final spread in/out"
for scenario in "$root/adapters/sim/scenarios/traffic-skew.json" "$root/bench/scenarios/skew-uneven.json"; do
  name="$(basename "$scenario" .json)"
  for planner in ballast automq-move-only; do
    args=()
    [ "$planner" = automq-move-only ] && args=("${automq[@]}")
    out="$("$ballast" "${args[@]}" sim --scenario "$scenario" --journal "$work/$name-$planner" --quiet)"
    rounds="$(sed -n 's/.* \([0-9]*\) rounds.*/\1/p' <<<"$out")"
    moves="$(sed -n 's/.* \([0-9]*\) partitions moved.*/\1/p' <<<"$out")"
    last="$(sed -n 's/.*last completed at \(t+[0-9.]*s\).*/\1/p' <<<"$out")"
    spread="$(sed -n 's/final spread of load (max\/mean): in \([0-9.]*\), out \([0-9.]*\)/\1 \/ \2/p' <<<"$out")"
    printf '%-14s %-22s %7s %6s %-16s %s\n' "$name" "$planner" "$rounds" "$moves" "${last:--}" "$spread"
  done
done
