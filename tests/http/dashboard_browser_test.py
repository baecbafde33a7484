#!/usr/bin/env python3
"""The dashboard (GET /, tools/http/ui/) in a real headless Chromium, driven
through the DevTools protocol (devtools.py), against `ballast sim --realtime`
on a small seeded scenario with a token configured:

1. the page loads without console errors, uncaught exceptions or failed
   requests (none at all: the page asks for the token before it reads);
2. once the token is typed, it shows every broker `/v1/state` names, its
   history chart has drawn every broker's line and the band, and a
   decision's partition link shows that partition's explanation;
3. the Pause button, clicked with the mouse, pauses the engine
   (`/v1/state` says paused), and no action is submitted after the pause's
   seq while the simulation runs on (its rounds hold what they chose, "paused"),
   although submissions happened before it; Resume, clicked the same way,
   lets them happen again; Drain, with a broker id typed, drains it;
4. a screenshot of the page is written to meson-logs/http_dashboard_browser_test.png.

Exit 77 (meson's skip) when `chromium` is not installed; tools/install-deps
installs it."""

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402

TOKEN = "dashboard-test-token"

# Four brokers, 32 partitions of 100 MiB on the first three, the fourth
# empty: the replica count goal fills broker 4 one move at a time (one in
# flight, a round every 2 s, each copy ~2 s at the simulated 50 MiB/s), so
# submissions go on for about half a minute unless paused.
SCENARIO = {
    "name": "dashboard", "flavor": "apache", "seed": 11, "duration": "5m", "report_interval": "1s",
    "settings": {"autobalancer.controller.anomaly.detect.interval.ms": 2000,
                 "autobalancer.controller.execution.interval.ms": 500,
                 "autobalancer.controller.execution.concurrency": 1},
    "brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c"}, {"id": 4, "rack": "d"}],
    "topics": [{"name": "orders", "partitions": 32, "replication_factor": 1,
                "assignment": [[1 + i % 3] for i in range(32)], "initial_size_bytes": 104857600,
                "traffic": {"profile": "constant", "bytes_in_per_s": 4194304, "record_bytes": 1024, "fanout": 1}}],
}


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Sim:
    """`ballast sim --realtime` with its API on a free loopback port and a token."""

    def __init__(self, binary, work):
        scenario = os.path.join(work, "scenario.json")
        with open(scenario, "w") as f:
            json.dump(SCENARIO, f)
        self.binary = binary
        self.journal = os.path.join(work, "journal")
        self.log_path = os.path.join(work, "sim.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary, "--set", "ballast.http.listen=127.0.0.1:0", "--set", "ballast.http.auth.token=" + TOKEN,
             "sim", "--realtime", "--quiet", "--until", "5m", "--scenario", scenario, "--journal", self.journal],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        self.url = None
        while self.url is None:
            text = open(self.log_path).read()
            at = text.find("HTTP API on ")
            if at >= 0:
                self.url = text[at + len("HTTP API on "):].split()[0]
            elif self.process.poll() is not None or time.monotonic() > deadline:
                fail("ballast sim --realtime did not start its API:\n" + text)
            else:
                time.sleep(0.05)

    def get(self, path):
        request = urllib.request.Request(self.url + path, headers={"Authorization": "Bearer " + TOKEN})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def events(self, *types):
        """The journal's events of `types`, read beside the running writer (`ballast log show`)."""
        args = [self.binary, "log", "show", "--json", "--journal", self.journal]
        for t in types:
            args += ["--type", t]
        out = subprocess.run(args, capture_output=True, text=True, timeout=60)
        check(out.returncode == 0, "ballast log show failed: " + out.stderr)
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def page_errors(events):
    """What the browser reported as an error: exceptions, console errors, log
    errors, failed loads, answers of 400 or more."""
    errors = []
    for e in events:
        method, p = e["method"], e.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append("uncaught exception: " + json.dumps(p["exceptionDetails"])[:500])
        elif method == "Runtime.consoleAPICalled" and p.get("type") == "error":
            errors.append("console.error: " + json.dumps(p.get("args"))[:500])
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            errors.append("log error: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
        elif method == "Network.loadingFailed":
            errors.append("request failed: " + p.get("errorText", "") + " (request " + p.get("requestId", "") + ")")
        elif method == "Network.responseReceived" and p["response"]["status"] >= 400:
            errors.append(f"HTTP {p['response']['status']}: {p['response']['url']}")
    return errors


def submissions_between(sim, after_seq, before_seq=None):
    return [e for e in sim.events("action_submitted")
            if e["seq"] > after_seq and (before_seq is None or e["seq"] < before_seq)]


def command_seq(sim, name):
    commands = [e for e in sim.events("operator_command") if e.get("command") == name]
    check(len(commands) == 1, f"expected one {name} command in the journal, found {commands}")
    return commands[0]["seq"]


def save_screenshot(browser, path):
    """The whole page as a PNG at `path`."""
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def main():
    if shutil.which("chromium") is None:
        print("SKIP: Debian's chromium is not installed (tools/install-deps installs it); "
              "the dashboard's browser test needs it", flush=True)
        sys.exit(77)
    binary = os.environ.get("BALLAST_BIN")
    check(binary and os.path.exists(binary), "BALLAST_BIN must name the ballast binary (meson sets it)")
    artifacts = os.environ.get("BALLAST_TEST_ARTIFACTS", ".")
    screenshot = os.path.join(artifacts, "http_dashboard_browser_test.png")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ballast-dashboard-") as work:
        sim = Sim(binary, work)
        os.mkdir(os.path.join(work, "profile"))
        browser = None
        try:
            browser = devtools.Browser(os.path.join(work, "profile"))
            for domain in ("Runtime", "Log", "Network", "Page"):
                browser.call(domain + ".enable")
            browser.call("Page.navigate", url=sim.url + "/")
            browser.wait_for("document.readyState === 'complete'", 20, "the page loaded")

            # Before the token: the page says it needs one and sends nothing that would be refused.
            message = browser.wait_for("(() => { const m = document.getElementById('message');"
                                       " return m.hidden ? '' : m.textContent; })()", 10, "the page asks for the token")
            check("token" in message, "the page's message does not ask for the token: " + message)

            # 2. The token typed and used: every broker of the cluster, and the history drawn.
            browser.type_into("#token", TOKEN)
            browser.click("#token-use")
            state = sim.get("/v1/state")
            ids = sorted(b["broker_id"] for b in state["cluster"]["brokers"])
            check(ids == [1, 2, 3, 4], f"/v1/state names brokers {ids}")
            shown = browser.wait_for(
                f"(() => {{ const ids = [...document.querySelectorAll('#brokers tbody tr')].map(r => +r.dataset.brokerId);"
                f" return {json.dumps(ids)}.every(id => ids.includes(id)) && ids; }})()",
                15, f"brokers {ids} in the page's table")
            print(f"brokers shown: {shown}", flush=True)
            for chart in ("chart-in", "chart-out"):
                drawn = browser.wait_for(
                    f"(() => {{ const lines = [...document.querySelectorAll('#{chart} polyline.series')]"
                    f".filter(l => l.getAttribute('points').trim().length > 0).map(l => +l.dataset.broker);"
                    f" const band = document.querySelector('#{chart} polygon.band');"
                    f" return {json.dumps(ids)}.every(id => lines.includes(id)) && band && lines; }})()",
                    15, f"every broker's line and the band in #{chart}")
                print(f"{chart}: lines of brokers {drawn} and the band", flush=True)

            # A decision's partition link shows every decision about it, read with the token.
            link = browser.wait_for("(() => { const a = document.querySelector('#decisions a.explain');"
                                    " return a && a.getAttribute('href'); })()", 15, "a decision with an explain link")
            check(link.startswith("/v1/explain/orders/"), "the decision's link is " + link)
            browser.click("#decisions a.explain")
            name = "orders-" + link.rsplit("/", 1)[1]
            browser.wait_for(f"document.getElementById('explain').textContent.includes({json.dumps(name)})", 10,
                             f"the explanation of {name} in the page")

            # 3. Submissions happen, then the Pause button stops them.
            deadline = time.monotonic() + 20
            while not submissions_between(sim, 0):
                check(time.monotonic() < deadline, "no action was submitted within 20 s of the start")
                time.sleep(0.3)
            browser.click("#pause")
            browser.wait_for("document.getElementById('paused').textContent === 'paused'", 10,
                             "the page shows paused")
            check(sim.get("/v1/state")["engine"]["paused"] is True, "/v1/state does not say paused")
            pause_seq = command_seq(sim, "pause")
            before = submissions_between(sim, 0, pause_seq)
            check(len(before) > 0, "no submission before the pause: the check below could not fail")
            # The simulation runs on: several rounds (every 2 s) and moves' completions.
            paused_at_ms = sim.get("/v1/state")["engine"]["now_ms"]
            deadline = time.monotonic() + 30
            while sim.get("/v1/state")["engine"]["now_ms"] < paused_at_ms + 6000:
                check(time.monotonic() < deadline, "the simulation did not run on 6 s within 30 s")
                browser.pump(0.5)
            after = submissions_between(sim, pause_seq)
            check(not after, f"actions submitted after the pause at seq {pause_seq}: {after}")
            # Meanwhile the rounds went on and wanted to act: what they chose was held for the pause.
            rounds = sim.get(f"/v1/decisions?since={pause_seq}")["decisions"]
            held = [h for d in rounds for h in d["held"] if h["reason"] == "paused"]
            check(held, f"no round after the pause held an action for it: {rounds}")
            print(f"{len(before)} submissions before the pause (seq {pause_seq}), none in the 6 s of engine time after",
                  flush=True)

            # Resume from the page too: submissions come back (the pause, not a settled cluster, held them).
            browser.click("#resume")
            resume_seq = 0
            deadline = time.monotonic() + 10
            while not resume_seq:
                check(time.monotonic() < deadline, "no resume command in the journal within 10 s of the click")
                resumes = [e for e in sim.events("operator_command") if e.get("command") == "resume"]
                resume_seq = resumes[0]["seq"] if resumes else 0
                browser.pump(0.2)
            deadline = time.monotonic() + 15
            while not submissions_between(sim, resume_seq):
                check(time.monotonic() < deadline, "no submission within 15 s after resuming")
                browser.pump(0.3)
            print(f"submissions again after the resume (seq {resume_seq})", flush=True)

            # Drain: without an id the page says what it needs; with one, the broker drains.
            browser.click("#drain")
            message = browser.wait_for("(() => { const m = document.getElementById('message');"
                                       " return m.hidden ? '' : m.textContent; })()", 5, "the drain's missing id named")
            check("broker to drain" in message, "the page's message for a drain without an id: " + message)
            browser.type_into("#drain-broker", "3")
            browser.click("#drain")
            browser.wait_for("document.getElementById('command-result').textContent.startsWith('draining broker 3:')",
                             10, "the drain applied, in the page")
            draining = [b["broker_id"] for b in sim.get("/v1/state")["cluster"]["brokers"] if b["draining"]]
            check(draining == [3], f"/v1/state says brokers {draining} drain")

            # Wait for one history refresh after the actions so the screenshot shows them marked.
            browser.pump(2)
            save_screenshot(browser, screenshot)
            print(f"screenshot: {screenshot}", flush=True)

            # 1. Nothing the browser counts as an error, over the whole visit.
            errors = page_errors(browser.events)
            check(not errors, "the browser reported errors:\n  " + "\n  ".join(errors))
            print(f"no browser errors in {len(browser.events)} protocol events", flush=True)
        except (AssertionError, RuntimeError, TimeoutError, ConnectionError) as e:
            if browser is not None:
                try:
                    save_screenshot(browser, screenshot)
                    print(f"screenshot of the failure: {screenshot}", flush=True)
                except Exception:  # noqa: BLE001 - the failure below is what matters
                    pass
            fail(f"{e}\n--- sim.log (tail) ---\n{open(sim.log_path).read()[-3000:]}")
        finally:
            if browser is not None:
                browser.close()
            sim.stop()
    print(f"PASS in {time.monotonic() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
