#!/usr/bin/env python3
"""Ballast and Cruise Control side by side on the same seeded models.

  bench/peers/compare.py [--build build] [--models NAME,...] [--seed N] [--runs N] [--work DIR] [--json]

For each model: bench/peers/model_gen writes it; `ballast plan --model M --complete` plans
it to the end and writes its final assignment; when CRUISE_CONTROL_CLASSPATH is set
(bench/peers/README.md says how to build Cruise Control), bench/peers/cruise-control-plan
runs Cruise Control's optimizer on the same file and writes its final assignment. Both
assignments are judged by one scorer (Ballast's totals come from it, and Cruise Control's
through `ballast plan --model M --score-assignment A`), so every row below is measured the
same way on both sides; only the planning time comes
from each balancer itself. Without Cruise Control it prints Ballast's column alone.

With --runs N each balancer plans each model N times and its planning time is the median
(the range below it): one run of a third of a second moves by 10% with the machine, and
Cruise Control's own time by as much. The rows are the first run's; Ballast's later runs
must write the same assignment (its plans are deterministic), Cruise Control's are timed only.
"""

import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys

# name: model_gen arguments. From AutoMQ's own planning size (20 brokers, 100,000 RF1) to
# 300 brokers / 300,000 RF3; one with brokers of two sizes.
MODELS = {
    "20b_100k_rf1": ["--brokers", "20", "--partitions", "100000", "--rf", "1", "--racks", "1"],
    "100b_100k_rf3": ["--brokers", "100", "--partitions", "100000", "--rf", "3", "--racks", "4"],
    "100b_100k_rf3_mixed": ["--brokers", "100", "--partitions", "100000", "--rf", "3", "--racks", "4",
                            "--mixed-capacity"],
    "300b_300k_rf3": ["--brokers", "300", "--partitions", "300000", "--rf", "3", "--racks", "3"],
}

# Cruise Control's TopicReplicaDistributionGoal allows up to ceil(mean x (1 + (threshold - 1) x 0.9))
# replicas of a topic on a broker, at least ceil(mean) + min.gap; threshold 1 + 0.5 / 0.9 and
# min.gap 1 give Ballast's topic band, max(ceil(mean x 1.5), ceil(mean) + 1), and its lower end.
SAME_TOPIC_BAND = ["--set", "topic.replica.count.balance.threshold=1.5556",
                   "--set", "topic.replica.count.balance.min.gap=1"]

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, what):
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"compare: {what} failed (exit {done.returncode}): {' '.join(cmd)}\n{done.stderr.strip()}")
    return done.stdout


def last_json(text, what):
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    sys.exit(f"compare: {what} printed no JSON line:\n{text}")


def plan_runs(runs, assignment, what, same, command):
    """Runs command(path) `runs` times, the first writing `assignment` and the others beside it;
    returns the first run's JSON line and every run's planning_s. `same`: each later run must
    write the first run's assignment (Ballast's plans are deterministic)."""
    first = None
    times = []
    again = assignment + ".again"
    for i in range(runs):
        path = assignment if i == 0 else again
        result = last_json(run(command(path), what), what)
        times.append(result["planning_s"])
        if i == 0:
            first = result
        elif same and not filecmp.cmp(assignment, path, shallow=False):
            sys.exit(f"compare: {what} wrote {path}, not the assignment of its first run ({assignment}): "
                     "its plans must be the same run after run")
    if runs > 1:
        os.remove(again)
    return first, times


def fmt_bytes(b):
    for unit in ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]:
        if abs(b) < 1024 or unit == "PiB":
            return f"{b:.1f} {unit}"
        b /= 1024


def row_values(score, planning_s):
    a = score["after"]
    return {
        "planning time": f"{planning_s:.2f} s",
        "partitions moved": str(score["partitions_moved"]),
        "replicas moved": str(score["replicas_moved"]),
        "bytes moved": fmt_bytes(score["bytes_moved"]),
        "leaders changed": str(score["leaders_changed"]),
        "network in max/mean": f"{a['network_in_max_mean']:.3f}",
        "network in min/mean": f"{a['network_in_min_mean']:.3f}",
        "network out max/mean": f"{a['network_out_max_mean']:.3f}",
        "network out min/mean": f"{a['network_out_min_mean']:.3f}",
        "disk max/mean": f"{a['disk_max_mean']:.3f}",
        "disk min/mean": f"{a['disk_min_mean']:.3f}",
        "replicas per broker": f"{a['replicas_min']}-{a['replicas_max']}",
        "leaders per broker": f"{a['leaders_min']}-{a['leaders_max']}",
        "rack violations": str(a["rack_violations"]),
        "brokers over capacity": str(a["brokers_over_capacity"]),
        "topic replicas over band": str(a["topic_replicas_over_band"]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="meson build directory (default: build)")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated, of: " + ", ".join(MODELS))
    parser.add_argument("--seed", default="1", help="model_gen seed (default 1)")
    parser.add_argument("--runs", type=int, default=1,
                        help="plans per balancer and model; the planning time is their median (default 1)")
    parser.add_argument("--work", default="/tmp/ballast-peers", help="where models and assignments go")
    parser.add_argument("--json", action="store_true", help="one JSON object per model instead of the table")
    parser.add_argument("--same-topic-band", action="store_true",
                        help="hold Cruise Control's topic goal to Ballast's topic band (its defaults allow about "
                             "three times a topic's mean on a broker; Ballast's, one and a half)")
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit(f"compare: --runs must be at least 1, not {args.runs}")
    sys.stdout.reconfigure(line_buffering=True)  # each model's table as it is done, also into a file

    ballast = os.path.join(args.build, "tools", "ballast")
    model_gen = os.path.join(args.build, "bench", "peers", "model_gen")
    for path in (ballast, model_gen):
        if not os.access(path, os.X_OK):
            sys.exit(f"compare: {path} is missing: build it (meson compile -C {args.build})")
    names = [n for n in args.models.split(",") if n]
    for n in names:
        if n not in MODELS:
            sys.exit(f"compare: unknown model {n!r} (known: {', '.join(MODELS)})")
    cruise = os.environ.get("CRUISE_CONTROL_CLASSPATH")
    os.makedirs(args.work, exist_ok=True)

    results = []
    for name in names:
        model = os.path.join(args.work, f"{name}-s{args.seed}.json")
        run([model_gen, *MODELS[name], "--seed", args.seed, "--out", model], f"model_gen {name}")
        sides = {}
        ours = os.path.join(args.work, f"{name}-s{args.seed}.ballast.json")
        plan, ballast_s = plan_runs(
            args.runs, ours, f"ballast plan {name}", True,
            lambda path: [ballast, "plan", "--model", model, "--complete", "--json", "--assignment-out", path])
        # The plan's own totals come from the scorer's code (plan_model_test checks they equal
        # --score-assignment of its assignment): scoring it again would only repeat them.
        sides["ballast"] = {"planning_s": statistics.median(ballast_s), "planning_s_runs": ballast_s,
                            "rounds": plan["rounds"], "score": plan, "goals_not_met": plan["violated_after"]}
        if cruise:
            theirs = os.path.join(args.work, f"{name}-s{args.seed}.cruise-control.json")
            cc, cc_s = plan_runs(
                args.runs, theirs, f"cruise-control-plan {name}", False,
                lambda path: [os.path.join(HERE, "cruise-control-plan"), "--model", model, "--assignment-out", path,
                              "--json", *(SAME_TOPIC_BAND if args.same_topic_band else [])])
            score = last_json(run([ballast, "plan", "--model", model, "--score-assignment", theirs, "--json"],
                                  "score"), "score")
            sides["cruise_control"] = {"planning_s": statistics.median(cc_s), "planning_s_runs": cc_s,
                                       "score": score, "harness": cc}
        results.append({"model": name, "seed": args.seed, "brokers": plan["brokers"], "partitions": plan["partitions"],
                        "replicas": plan["replicas"], "before": plan["before"], "sides": sides})
        if args.json:
            print(json.dumps(results[-1]), flush=True)
        else:
            print_table(results[-1])
    if not cruise and not args.json:
        print("(CRUISE_CONTROL_CLASSPATH is not set: Ballast's side alone; bench/peers/README.md says how to build "
              "Cruise Control)")


def print_table(r):
    print(f"\n{r['model']} (seed {r['seed']}): {r['brokers']} brokers, {r['partitions']} partitions, "
          f"{r['replicas']} replicas")
    before = row_values({"after": r["before"], "partitions_moved": 0, "replicas_moved": 0, "bytes_moved": 0,
                         "leaders_changed": 0}, 0)
    columns = [("before", before)]
    for side, label in (("ballast", "Ballast"), ("cruise_control", "Cruise Control")):
        if side in r["sides"]:
            s = r["sides"][side]
            columns.append((label, row_values(s["score"], s["planning_s"])))
    print(f"{'':24}" + "".join(f"{label:>18}" for label, _ in columns))
    for key in before:
        cells = ["" if label == "before" and key in ("planning time", "partitions moved", "replicas moved",
                                                    "bytes moved", "leaders changed") else values[key]
                 for label, values in columns]
        print(f"{key:24}" + "".join(f"{c:>18}" for c in cells))
        runs = len(r["sides"]["ballast"]["planning_s_runs"])
        if key == "planning time" and runs > 1:
            # The median above, the range of the runs here.
            spans = [""] + [f"{min(s['planning_s_runs']):.2f}-{max(s['planning_s_runs']):.2f} s"
                            for s in (r["sides"][side] for side in ("ballast", "cruise_control") if side in r["sides"])]
            print(f"{f'  of {runs} runs':24}" + "".join(f"{c:>18}" for c in spans))
    if "cruise_control" in r["sides"]:
        ratio = r["sides"]["cruise_control"]["planning_s"] / max(r["sides"]["ballast"]["planning_s"], 1e-9)
        print(f"{'Ballast faster by':24}{'':18}{ratio:17.0f}x")
    goals = r["sides"]["ballast"]["goals_not_met"]
    print(f"Ballast's goals not met after its plan: {', '.join(goals) if goals else 'none'}")


if __name__ == "__main__":
    main()
